-- Read a table atomically: record, control state, seats, and the events after a seq.
-- KEYS: table, state, seats, events. ARGV: after_seq.
local record = redis.call('GET', KEYS[1])
if not record then
  return false
end
local state = redis.call('HMGET', KEYS[2], 'seq', 'status', 'deadline')
if not state[1] then
  return false
end
local seats = redis.call('HGETALL', KEYS[3])
local events = redis.call('XRANGE', KEYS[4], '(' .. ARGV[1] .. '-0', '+')
return {record, state[1], state[2], state[3], seats, events}
