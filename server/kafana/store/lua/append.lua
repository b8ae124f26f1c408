-- Append one event if its conditions hold: the whole move in one round trip.
-- KEYS: state, seats, log, table.
-- ARGV: 1 expected seq ('' any), 2 dedupe tag, 3 framed record, 4 required status,
--       5 new status, 6 deadline ms ('' unchanged), 7 seat to take, 8 seat data,
--       9 seat to free, 10 seats that start the match, 11 deadline at the start, 12 ttl ms
--       (0: keep the table's time to live, e.g. a clock timeout: it does not keep a table alive),
--       13 dedupe slot, 14 live channel (SPUBLISH of the new seq), 15 the digest of the log
--       the writer decided on ('' not checked), 16 ttl slack ms (0: none).
-- The state's `h` is '<seq>:<digest>', the digest of the log up to that seq (framing.chain:
-- sha1 of the previous digest and the framed record, 16 hex digits). A writer whose log has
-- another digest decided on a history the store lost (a failover, a crash): 'stale'.
-- Time to live: with a slack, the keys are given ttl + slack and left alone while they have
-- between ttl and ttl + slack left (a table lives at least ttl after its last append, at
-- most ttl + slack; PTTL, not four PEXPIREs, on most appends); keys made now get it too.
-- The log grows by APPEND (Redis keeps up to as much again spare); an append that sets a
-- status (a match's end) writes it back at its exact size, as a finished table is kept long.
-- Returns {outcome, seq, status}.
local state = redis.call('HMGET', KEYS[1], 'seq', 'status', 'h')
if not state[1] then
  return {'missing', 0, ''}
end
local seq = tonumber(state[1])
local status = state[2]
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= seq then
  if ARGV[2] ~= '' and tonumber(ARGV[1]) < seq then
    -- A retry: its tag is the last tagged event of its slot, at the seq it made.
    local mark = redis.call('HGET', KEYS[1], 'd' .. ARGV[13])
    if mark == (tonumber(ARGV[1]) + 1) .. ':' .. ARGV[2] then
      -- A write that changes nothing: a WAIT on this connection then covers the original,
      -- whichever connection wrote it (--durability replicated).
      redis.call('HSET', KEYS[1], 'seq', seq)
      return {'duplicate', tonumber(ARGV[1]) + 1, status}
    end
  end
  return {'stale', seq, status}
end
-- The digest is vouched for when it is of the current seq (a writer before digests leaves
-- it behind: then the writer's word starts the chain again).
local digest = nil
if state[3] then
  local at, value = string.match(state[3], '^(%d+):(%x+)$')
  if at and tonumber(at) == seq then
    digest = value
  end
end
if ARGV[15] ~= '' and digest and digest ~= ARGV[15] then
  return {'stale', seq, status}
end
if not digest and ARGV[15] ~= '' then
  digest = ARGV[15]
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
local made = ARGV[7] ~= ''  -- keys made now (the seats, the log) need the time to live
if ARGV[5] ~= '' then
  status = ARGV[5]
  local log = redis.call('GET', KEYS[3])
  made = made or not log
  redis.call('SET', KEYS[3], (log or '') .. ARGV[3], 'KEEPTTL')
elseif redis.call('APPEND', KEYS[3], ARGV[3]) == #ARGV[3] then
  made = true
end
local deadline = ARGV[6]
local start = tonumber(ARGV[10])
if ARGV[7] ~= '' and start > 0 and status == 'open' and redis.call('HLEN', KEYS[2]) >= start then
  status = 'playing'
  deadline = ARGV[11]
end
-- One HSET: the seq and status, the digest, the deadline, the client move's mark (the seq
-- made text once: each number made text is a sprintf).
local at = tostring(seq)
local fields = {'seq', at, 'status', status}
if digest then
  fields[5] = 'h'
  fields[6] = at .. ':' .. string.sub(redis.sha1hex(digest .. ARGV[3]), 1, 16)
end
if deadline ~= '' then
  fields[#fields + 1] = 'deadline'
  fields[#fields + 1] = deadline
end
if ARGV[2] ~= '' then
  fields[#fields + 1] = 'd' .. ARGV[13]
  fields[#fields + 1] = at .. ':' .. ARGV[2]
end
redis.call('HSET', KEYS[1], unpack(fields))
local ttl = tonumber(ARGV[12])
if ttl > 0 then
  local slack = tonumber(ARGV[16]) or 0
  if slack > 0 and not made then
    local left = redis.call('PTTL', KEYS[1])
    if left >= ttl and left <= ttl + slack then
      ttl = 0  -- within its window: left as it is
    end
  end
  if ttl > 0 then
    ttl = ttl + slack
  end
elseif made then
  ttl = redis.call('PTTL', KEYS[1])  -- keys made now (the log, the seats) get the table's
end
if ttl > 0 then
  for i = 1, 4 do
    redis.call('PEXPIRE', KEYS[i], ttl)
  end
end
redis.call('SPUBLISH', ARGV[14], at)
return {'applied', seq, status}
