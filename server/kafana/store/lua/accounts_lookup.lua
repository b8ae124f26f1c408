-- The active account of a key hash: {name, record, key hash}, or false.
-- KEYS: names, info, keyof, bykey, revoked. ARGV: key hash (hex).
local name = redis.call('HGET', KEYS[4], ARGV[1])
if not name then
  return false
end
local record = redis.call('HGET', KEYS[2], name)
local current = redis.call('HGET', KEYS[3], name)
if not record or not current then
  return false
end
return {name, record, current}
