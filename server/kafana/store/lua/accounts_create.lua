-- Create an account unless its name is taken.
-- KEYS: names (zset), info (hash), keyof (hash), bykey (hash), revoked (hash), unused (zset).
-- ARGV: name, record (JSON: role, created_ms, origin), key hash (hex), and for an account that
-- expires unless used, when it was made (ms). Returns 1, or 0 if taken.
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[1], 0, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[4], ARGV[3], ARGV[1])
if ARGV[4] then
  redis.call('ZADD', KEYS[6], ARGV[4], ARGV[1])
end
return 1
