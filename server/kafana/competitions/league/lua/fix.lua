-- Settling a match, step 1 of 3 (the match's band): its result is fixed once. The first
-- referee's fields are stored and the match marked 'rating'; a later one gets those.
-- KEYS: match; ARGV: field/value pairs...
-- Returns the match's fields ('rating' state), or {} if it is settled or gone.
local state = redis.call('HGET', KEYS[1], 'state')
if redis.call('EXISTS', KEYS[1]) == 0 or state == 'settled' then
  return {}
end
if state ~= 'rating' then
  for i = 1, #ARGV, 2 do
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
  redis.call('HSET', KEYS[1], 'state', 'rating')
end
return redis.call('HGETALL', KEYS[1])
