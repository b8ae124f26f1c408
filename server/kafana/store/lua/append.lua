-- Append one event if its conditions hold: the whole move in one round trip.
-- KEYS: state, seats, log, table.
-- ARGV: 1 expected seq ('' any), 2 dedupe tag, 3 framed record, 4 required status,
--       5 new status, 6 deadline ms ('' unchanged), 7 seat to take, 8 seat data,
--       9 seat to free, 10 seats that start the match, 11 deadline at the start, 12 ttl ms
--       (0: keep the table's time to live, e.g. a clock timeout: it does not keep a table alive),
--       13 dedupe slot, 14 live channel (SPUBLISH of the new seq), 15 the digest of the log
--       the writer decided on ('' not checked).
-- The state's `h` is '<seq>:<digest>', the digest of the log up to that seq (framing.chain:
-- sha1 of the previous digest and the framed record, 16 hex digits). A writer whose log has
-- another digest decided on a history the store lost (a failover, a crash): 'stale'.
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
-- GET + SET, not APPEND: APPEND grows the string's allocation greedily (up to twice its size).
local log = redis.call('GET', KEYS[3]) or ''
redis.call('SET', KEYS[3], log .. ARGV[3])
if ARGV[5] ~= '' then
  status = ARGV[5]
end
local deadline = ARGV[6]
local start = tonumber(ARGV[10])
if ARGV[7] ~= '' and start > 0 and status == 'open' and redis.call('HLEN', KEYS[2]) >= start then
  status = 'playing'
  deadline = ARGV[11]
end
if digest then
  local h = seq .. ':' .. string.sub(redis.sha1hex(digest .. ARGV[3]), 1, 16)
  redis.call('HSET', KEYS[1], 'seq', seq, 'status', status, 'h', h)
else
  redis.call('HSET', KEYS[1], 'seq', seq, 'status', status)
end
if deadline ~= '' then
  redis.call('HSET', KEYS[1], 'deadline', deadline)
end
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[1], 'd' .. ARGV[13], seq .. ':' .. ARGV[2])
end
local ttl = tonumber(ARGV[12])
if ttl <= 0 then
  ttl = redis.call('PTTL', KEYS[1])  -- keys made now (the log, the seats) get it too
end
if ttl > 0 then
  for i = 1, 4 do
    redis.call('PEXPIRE', KEYS[i], ttl)
  end
end
redis.call('SPUBLISH', ARGV[14], seq)
return {'applied', seq, status}
