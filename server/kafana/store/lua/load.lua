-- Read a table atomically: record, control state, seats, and the log from a byte offset.
-- KEYS: table, state, seats, log. ARGV: 1 offset in the log (bytes the caller already has).
local record = redis.call('GET', KEYS[1])
if not record then
  return false
end
local state = redis.call('HGETALL', KEYS[2])
if #state == 0 then
  return false
end
local seats = redis.call('HGETALL', KEYS[3])
local tail = redis.call('GETRANGE', KEYS[4], ARGV[1], -1)
return {record, state, seats, tail}
