-- Create a table at seq 0, status open, unless the id is taken.
-- KEYS: table, state. ARGV: table record (protobuf), ttl_ms.
if redis.call('EXISTS', KEYS[2]) == 1 then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
-- h: the log's digest and the seq it is for (append.lua keeps it; framing.chain)
redis.call('HSET', KEYS[2], 'seq', 0, 'status', 'open', 'deadline', 0, 'h', '0:0000000000000000')
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
