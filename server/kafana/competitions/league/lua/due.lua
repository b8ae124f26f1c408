-- Claim up to `limit` matches due by now: each is looked at again only after the lease.
-- KEYS: due; ARGV: now ms, limit, lease ms
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
local again = tonumber(ARGV[1]) + tonumber(ARGV[3])
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], again, id)
end
return ids
