-- Take or renew the lease. KEYS: lease; ARGV: owner, ttl ms. 1 if held by owner now.
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
