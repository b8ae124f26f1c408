-- The baseline's move: compare and bump the table's seq, append the move to a stream.
-- KEYS: seq, events. ARGV: expected seq, move. Returns the new seq, or -(current seq) - 1.
local seq = tonumber(redis.call('GET', KEYS[1]) or '0')
if seq ~= tonumber(ARGV[1]) then
  return -seq - 1
end
seq = seq + 1
redis.call('SET', KEYS[1], seq)
redis.call('XADD', KEYS[2], seq .. '-0', 'm', ARGV[2])
return seq
