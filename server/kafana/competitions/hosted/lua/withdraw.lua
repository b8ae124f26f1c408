-- Take an entrant out of an open event. KEYS: meta, entrants, callers; ARGV: name, the caller
-- that entered it ("" for none). Answers ok, missing, closed or gone (no such entrant).
local phase = redis.call('HGET', KEYS[1], 'phase')
if not phase then return 'missing' end
if phase ~= 'open' then return 'closed' end
if redis.call('HDEL', KEYS[2], ARGV[1]) == 0 then return 'gone' end
if ARGV[2] ~= '' and redis.call('HINCRBY', KEYS[3], ARGV[2], -1) <= 0 then
  redis.call('HDEL', KEYS[3], ARGV[2])
end
return 'ok'
