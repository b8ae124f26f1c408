-- Move a player's home band: only from what the mover read ('' for none), kept ttl ms.
-- KEYS: home; ARGV: read, new value, ttl ms
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
