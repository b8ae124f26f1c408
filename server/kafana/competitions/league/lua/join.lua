-- Join the queue unless the player has a match not settled.
-- KEYS: active, queue since, queue rating; ARGV: player, now ms, rating
local paired = redis.call('HGET', KEYS[1], ARGV[1])
if paired then
  return {'paired', tonumber(paired)}
end
redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return {'waiting', 0}
