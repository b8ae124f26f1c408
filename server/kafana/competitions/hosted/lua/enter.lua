-- Enter an open event. KEYS: meta, entrants; ARGV: name, value, most entrants, retention ms.
-- Answers ok, missing, closed, taken or full.
local phase = redis.call('HGET', KEYS[1], 'phase')
if not phase then return 'missing' end
if phase ~= 'open' then return 'closed' end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 'taken' end
local n = redis.call('HLEN', KEYS[2])
if n >= tonumber(ARGV[3]) then return 'full' end
redis.call('HSET', KEYS[2], ARGV[1], n .. ' ' .. ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 'ok'
