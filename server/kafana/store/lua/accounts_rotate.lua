-- Give an active account a new key hash; the old one stops working at once.
-- KEYS: names, info, keyof, bykey, revoked. ARGV: name, new key hash (hex).
-- Returns 1, or 0 when there is no such active account.
local current = redis.call('HGET', KEYS[3], ARGV[1])
if not current then
  return 0
end
redis.call('HDEL', KEYS[4], current)
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[4], ARGV[2], ARGV[1])
return 1
