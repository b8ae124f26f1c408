-- Claim a due clock deadline for a lease: exactly one caller wins while it is due.
-- KEYS: deadlines index. ARGV: table id, now ms, lease ms.
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
  return 1
end
return 0
