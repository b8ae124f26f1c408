-- Close entries. KEYS: meta, entrants; ARGV: retention ms. Answers ok, missing, closed or few
-- (under two).
local phase = redis.call('HGET', KEYS[1], 'phase')
if not phase then return 'missing' end
if phase ~= 'open' then return 'closed' end
if redis.call('HLEN', KEYS[2]) < 2 then return 'few' end
redis.call('HSET', KEYS[1], 'phase', 'started')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 'ok'
