-- Append one account notice, unless its mark says the same news was told already.
-- KEYS: 1 stream, 2 marks hash, 3 marks order (sorted set), all of one account (one slot);
--       4 (optional, one Redis server only: another slot) a table's state hash.
-- ARGV: 1 mark field ("": none), 2 holder, 3 rank, 4 data, 5 max len, 6 ttl ms, 7 max marks,
--       8 live channel; with KEYS[4]: 9 the table's seq, 10 a dedupe field of its state,
--       11 that field's value: the notice is told only while the table is at that seq with
--       that client move (a notice that rides on the move's own append: nil if it failed).
-- Returns the new id, or nil (a duplicate). The count `#` of the marks hash goes up by one
-- and is published on the live channel; a mark is ordered by the count that set it, so the
-- oldest go first past `max marks`.
if KEYS[4] then
  local at = redis.call('HMGET', KEYS[4], 'seq', ARGV[10])
  if at[1] ~= ARGV[9] or at[2] ~= ARGV[11] then
    return false
  end
end
local field = ARGV[1]
if field ~= '' then
  local old = redis.call('HGET', KEYS[2], field)
  if old then
    local holder, rank = string.match(old, '^(.*):(%d+)$')
    if holder == ARGV[2] and tonumber(rank) >= tonumber(ARGV[3]) then
      return false
    end
  end
end
local count = redis.call('HINCRBY', KEYS[2], '#', 1)
if field ~= '' then
  redis.call('HSET', KEYS[2], field, ARGV[2] .. ':' .. ARGV[3])
  redis.call('ZADD', KEYS[3], count, field)
  local extra = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[7])
  if extra > 0 then
    local gone = redis.call('ZPOPMIN', KEYS[3], extra)
    for i = 1, #gone, 2 do
      redis.call('HDEL', KEYS[2], gone[i])
    end
  end
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[5], '*', 'd', ARGV[4])
for i = 1, 3 do
  redis.call('PEXPIRE', KEYS[i], ARGV[6])
end
redis.call('SPUBLISH', ARGV[8], count)
return id
