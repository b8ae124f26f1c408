-- Hold a place for a member until a time: 0 when held, else the milliseconds until the first
-- held place lapses (at most `limit` places at once; lapsed ones are dropped first).
-- KEYS: sorted set member -> until ms. ARGV: 1 member, 2 limit, 3 until ms, 4 now ms.
local now = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
    local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
    return math.max(1, tonumber(first[2]) - now)
  end
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], math.max(1, tonumber(last[2]) - now))
return 0
