-- Join the queue unless the player has a match not settled (or, in a league of several
-- bands, has moved to another band since `epoch` was read: 'moved' and the band's fence).
-- KEYS: active, queue since, queue rating, (several bands) fence
-- ARGV: player, now ms, rating, (several bands) the epoch of the player's home band
local paired = redis.call('HGET', KEYS[1], ARGV[1])
if paired then
  return {'paired', tonumber(paired)}
end
if KEYS[4] then
  local fence = tonumber(redis.call('HGET', KEYS[4], ARGV[1]) or '0')
  if fence > tonumber(ARGV[4]) then
    return {'moved', fence}
  end
end
redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return {'waiting', 0}
