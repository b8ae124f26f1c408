-- Delete self-registered accounts whose key was never used, made before a time: the name,
-- its record, its key hash; the name is free again.
-- KEYS: names, info, keyof, bykey, revoked, unused. ARGV: made before (ms), at most this many.
-- Returns the names deleted.
local names = redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', '(' .. ARGV[1], 'LIMIT', 0, ARGV[2])
for _, name in ipairs(names) do
  local current = redis.call('HGET', KEYS[3], name)
  if current then
    redis.call('HDEL', KEYS[4], current)
  end
  redis.call('HDEL', KEYS[3], name)
  redis.call('HDEL', KEYS[2], name)
  redis.call('HDEL', KEYS[5], name)
  redis.call('ZREM', KEYS[1], name)
  redis.call('ZREM', KEYS[6], name)
end
return names
