-- Settling a match, step 3 of 3 (the match's band): marked settled, out of the due set, its
-- players free to queue again.
-- KEYS: match, due, active; ARGV: match number, retention ms, players...
-- Returns 'settled', or 'done' if it was (or is gone).
local state = redis.call('HGET', KEYS[1], 'state')
if redis.call('EXISTS', KEYS[1]) == 0 or state == 'settled' then
  return 'done'
end
redis.call('HSET', KEYS[1], 'state', 'settled')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[1])
for i = 3, #ARGV do
  if redis.call('HGET', KEYS[3], ARGV[i]) == ARGV[1] then
    redis.call('HDEL', KEYS[3], ARGV[i])
  end
end
return 'settled'
