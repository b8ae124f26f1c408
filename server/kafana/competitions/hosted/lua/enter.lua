-- Enter an open event. KEYS: meta, entrants, callers; ARGV: name, value, most entrants (or the
-- meta's max_entrants when fewer),
-- retention ms, caller ("" for none), most entrants of one caller. Answers ok, missing,
-- closed, taken, full or many (the caller has entered its most).
local phase = redis.call('HGET', KEYS[1], 'phase')
if not phase then return 'missing' end
if phase ~= 'open' then return 'closed' end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 'taken' end
local n = redis.call('HLEN', KEYS[2])
local cap = tonumber(ARGV[3])
local own = tonumber(redis.call('HGET', KEYS[1], 'max_entrants') or '0')
if own > 0 and own < cap then cap = own end  -- the organiser's limit
if n >= cap then return 'full' end
if ARGV[5] ~= '' then
  local had = tonumber(redis.call('HGET', KEYS[3], ARGV[5]) or '0')
  if had >= tonumber(ARGV[6]) then return 'many' end
  redis.call('HINCRBY', KEYS[3], ARGV[5], 1)
  redis.call('PEXPIRE', KEYS[3], ARGV[4])
end
-- entry numbers keep growing when entrants withdraw (the count of entries ever made)
local number = redis.call('HINCRBY', KEYS[1], 'entries', 1) - 1
if number < n then
  number = n
  redis.call('HSET', KEYS[1], 'entries', n + 1)
end
redis.call('HSET', KEYS[2], ARGV[1], number .. ' ' .. ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 'ok'
