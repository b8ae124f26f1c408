-- Take every player out of the queue into a new match, or nothing if one is not waiting.
-- KEYS: queue since, queue rating, match counter, active, due, recent (optional: each
-- player's other players of its last 8 matches, newest first, "b c;d;")
-- ARGV: first look (ms), match key prefix, bands, band, player count, players...,
-- field/value pairs... (the match's number: the band's count * bands + band)
local n = tonumber(ARGV[5])
local first = 6
for i = first, first - 1 + n do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i]) or redis.call('HEXISTS', KEYS[4], ARGV[i]) == 1 then
    return 0
  end
end
local id = redis.call('INCR', KEYS[3]) * tonumber(ARGV[3]) + tonumber(ARGV[4])
for i = first, first - 1 + n do
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('ZREM', KEYS[2], ARGV[i])
  redis.call('HSET', KEYS[4], ARGV[i], id)
end
local match = ARGV[2] .. id
for i = first + n, #ARGV, 2 do
  redis.call('HSET', match, ARGV[i], ARGV[i + 1])
end
redis.call('ZADD', KEYS[5], ARGV[1], id)
if KEYS[6] then
  for i = first, first - 1 + n do
    local others = {}
    for j = first, first - 1 + n do
      if j ~= i then table.insert(others, ARGV[j]) end
    end
    local kept = {table.concat(others, ' ')}
    for group in string.gmatch(redis.call('HGET', KEYS[6], ARGV[i]) or '', '([^;]*);') do
      if #kept < 8 then table.insert(kept, group) end
    end
    redis.call('HSET', KEYS[6], ARGV[i], table.concat(kept, ';') .. ';')
  end
end
return id
