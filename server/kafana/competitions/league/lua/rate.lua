-- Rate one game if no rating changed since it was read (0 if one did: read again, retry).
-- KEYS: ratings, games counter, board, one history list per player
-- ARGV: per player 5 values: player, rating read ('' for none), new rating, board score,
--       history point without its game number ('"mu": ..., "sigma": ...}')
local n = #ARGV / 5
for i = 0, n - 1 do
  local now = redis.call('HGET', KEYS[1], ARGV[5 * i + 1]) or ''
  if now ~= ARGV[5 * i + 2] then
    return 0
  end
end
local game = redis.call('INCR', KEYS[2])
for i = 0, n - 1 do
  local player = ARGV[5 * i + 1]
  redis.call('HSET', KEYS[1], player, ARGV[5 * i + 3])
  redis.call('ZADD', KEYS[3], ARGV[5 * i + 4], player)
  redis.call('RPUSH', KEYS[4 + i], '{"game": ' .. game .. ', ' .. ARGV[5 * i + 5])
end
return game
