-- Append one event if its conditions hold: the whole move in one round trip.
-- KEYS: state, seats, events, table.
-- ARGV: 1 expected seq ('' any), 2 dedupe tag, 3 event (protobuf), 4 required status,
--       5 new status, 6 deadline ms ('' unchanged), 7 seat to take, 8 seat data,
--       9 seat to free, 10 seats that start the match, 11 deadline at the start, 12 ttl ms.
-- Returns {outcome, seq, status}.
local state = redis.call('HMGET', KEYS[1], 'seq', 'status')
if not state[1] then
  return {'missing', 0, ''}
end
local seq = tonumber(state[1])
local status = state[2]
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= seq then
  if ARGV[2] ~= '' and tonumber(ARGV[1]) < seq then
    local id = (tonumber(ARGV[1]) + 1) .. '-0'
    local found = redis.call('XRANGE', KEYS[3], id, id)
    if found[1] then
      local fields = found[1][2]
      for i = 1, #fields, 2 do
        if fields[i] == 'd' and fields[i + 1] == ARGV[2] then
          return {'duplicate', tonumber(ARGV[1]) + 1, status}
        end
      end
    end
  end
  return {'stale', seq, status}
end
if ARGV[4] ~= '' and status ~= ARGV[4] then
  return {'wrong_status', seq, status}
end
if ARGV[7] ~= '' then
  if redis.call('HSETNX', KEYS[2], ARGV[7], ARGV[8]) == 0 then
    return {'seat_taken', seq, status}
  end
end
if ARGV[9] ~= '' then
  redis.call('HDEL', KEYS[2], ARGV[9])
end
seq = seq + 1
redis.call('XADD', KEYS[3], seq .. '-0', 'e', ARGV[3], 'd', ARGV[2])
if ARGV[5] ~= '' then
  status = ARGV[5]
end
local deadline = ARGV[6]
local start = tonumber(ARGV[10])
if ARGV[7] ~= '' and start > 0 and status == 'open' and redis.call('HLEN', KEYS[2]) >= start then
  status = 'playing'
  deadline = ARGV[11]
end
redis.call('HSET', KEYS[1], 'seq', seq, 'status', status)
if deadline ~= '' then
  redis.call('HSET', KEYS[1], 'deadline', deadline)
end
for i = 1, 4 do
  redis.call('PEXPIRE', KEYS[i], ARGV[12])
end
return {'applied', seq, status}
