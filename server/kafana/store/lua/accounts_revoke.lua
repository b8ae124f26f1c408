-- Revoke an account: its key hash is forgotten, the account kept and marked revoked.
-- KEYS: names, info, keyof, bykey, revoked. ARGV: name, revoked at (ms).
-- Returns 1, or 0 when there is no such account.
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 0
end
local current = redis.call('HGET', KEYS[3], ARGV[1])
if current then
  redis.call('HDEL', KEYS[4], current)
  redis.call('HDEL', KEYS[3], ARGV[1])
end
redis.call('HSETNX', KEYS[5], ARGV[1], ARGV[2])
return 1
