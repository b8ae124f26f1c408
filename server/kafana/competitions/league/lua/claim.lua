-- KEYS: since, rating, match counter, assigned; ARGV: player a, player b, now ms
if redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1], ARGV[2])
  redis.call('ZREM', KEYS[2], ARGV[1], ARGV[2])
  local id = redis.call('INCR', KEYS[3])
  redis.call('HSET', KEYS[4], ARGV[1], 'pending:' .. id, ARGV[2], 'pending:' .. id)
  return id
end
return 0
