-- Settle a match once: mark it settled and write its ratings together, or nothing.
-- KEYS: match, ratings, board, games counter, due, active, meta,
--       then per player its history list and its match list
-- ARGV: match number, retention ms, field count, fields..., rating count,
--       per rating 5 values (player, rating read or '', new rating, board score, point
--       without its game number), player count, players...
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HGET', KEYS[1], 'state') == 'settled' then
  return 'done'
end
local at = 3
local nfields = tonumber(ARGV[at])
local fields_at = at + 1
at = fields_at + 2 * nfields
local nratings = tonumber(ARGV[at])
local ratings_at = at + 1
at = ratings_at + 5 * nratings
local nplayers = tonumber(ARGV[at])
local players_at = at + 1
for i = 0, nratings - 1 do
  local now = redis.call('HGET', KEYS[2], ARGV[ratings_at + 5 * i]) or ''
  if now ~= ARGV[ratings_at + 5 * i + 1] then
    return 'retry'
  end
end
local keep = ARGV[2]
local game = 0
if nratings > 0 then
  game = redis.call('INCR', KEYS[4])
end
for i = 0, nratings - 1 do
  local base = ratings_at + 5 * i
  local player = ARGV[base]
  redis.call('HSET', KEYS[2], player, ARGV[base + 2])
  redis.call('ZADD', KEYS[3], ARGV[base + 3], player)
end
for i = 0, nfields - 1 do
  redis.call('HSET', KEYS[1], ARGV[fields_at + 2 * i], ARGV[fields_at + 2 * i + 1])
end
redis.call('HSET', KEYS[1], 'state', 'settled')
redis.call('PEXPIRE', KEYS[1], keep)
for i = 0, nplayers - 1 do
  local player = ARGV[players_at + i]
  local history = KEYS[8 + 2 * i]
  local matches = KEYS[9 + 2 * i]
  for j = 0, nratings - 1 do
    local base = ratings_at + 5 * j
    if ARGV[base] == player then
      redis.call('RPUSH', history, '{"game": ' .. game .. ', ' .. ARGV[base + 4])
      redis.call('PEXPIRE', history, keep)
    end
  end
  redis.call('LPUSH', matches, ARGV[1])
  redis.call('LTRIM', matches, 0, 199)
  redis.call('PEXPIRE', matches, keep)
  if redis.call('HGET', KEYS[6], player) == ARGV[1] then
    redis.call('HDEL', KEYS[6], player)
  end
end
redis.call('ZREM', KEYS[5], ARGV[1])
redis.call('HINCRBY', KEYS[7], 'settled', 1)
return 'settled'
