-- A player leaves this band for another (its rating crossed an edge): out of the queue, and
-- no join begun before (an epoch below `epoch`) gets in; refused while it has a match here.
-- KEYS: active, queue since, queue rating, fence; ARGV: player, the new home's epoch
local paired = redis.call('HGET', KEYS[1], ARGV[1])
if paired then
  return {'paired', tonumber(paired)}
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
if tonumber(redis.call('HGET', KEYS[4], ARGV[1]) or '0') < tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[4], ARGV[1], ARGV[2])
end
return {'gone', 0}
