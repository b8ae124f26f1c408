-- Count one use in a window that starts at its first use: 0 when within the limit, else the
-- milliseconds until the window ends (the use is not counted).
-- KEYS: the counter. ARGV: 1 limit, 2 window ms.
local uses = tonumber(redis.call('GET', KEYS[1]) or '0')
if uses >= tonumber(ARGV[1]) then
  local left = redis.call('PTTL', KEYS[1])
  if left < 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    left = tonumber(ARGV[2])
  end
  return math.max(1, left)
end
if redis.call('INCR', KEYS[1]) == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
