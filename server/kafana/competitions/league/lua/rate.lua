-- Settling a match, step 2 of 3 (the league's own keys): its ratings written once.
-- KEYS: ratings, board, games counter, meta, rated (match -> game, until step 3),
--       then per player its history list and its match list
-- ARGV: match number, retention ms, rating count, per rating 5 values (player, rating read
--       or '', new rating, board score, point without its game number), player count,
--       players...
-- Returns 'rated', 'done' (rated before) or 'retry' (a rating changed since it was read).
if redis.call('HEXISTS', KEYS[5], ARGV[1]) == 1 then
  return 'done'
end
local nratings = tonumber(ARGV[3])
local ratings_at = 4
local nplayers = tonumber(ARGV[ratings_at + 5 * nratings])
local players_at = ratings_at + 5 * nratings + 1
for i = 0, nratings - 1 do
  local now = redis.call('HGET', KEYS[1], ARGV[ratings_at + 5 * i]) or ''
  if now ~= ARGV[ratings_at + 5 * i + 1] then
    return 'retry'
  end
end
local keep = ARGV[2]
local game = 0
if nratings > 0 then
  game = redis.call('INCR', KEYS[3])
end
for i = 0, nratings - 1 do
  local base = ratings_at + 5 * i
  redis.call('HSET', KEYS[1], ARGV[base], ARGV[base + 2])
  redis.call('ZADD', KEYS[2], ARGV[base + 3], ARGV[base])
end
for i = 0, nplayers - 1 do
  local player = ARGV[players_at + i]
  local history = KEYS[6 + 2 * i]
  local matches = KEYS[7 + 2 * i]
  for j = 0, nratings - 1 do
    local base = ratings_at + 5 * j
    if ARGV[base] == player then
      redis.call('RPUSH', history, '{"game": ' .. game .. ', ' .. ARGV[base + 4])
      redis.call('LTRIM', history, -1000, -1)  -- what GetPlayer shows (MAX_HISTORY)
      redis.call('PEXPIRE', history, keep)
    end
  end
  redis.call('LPUSH', matches, ARGV[1])
  redis.call('LTRIM', matches, 0, 199)
  redis.call('PEXPIRE', matches, keep)
end
redis.call('HSET', KEYS[5], ARGV[1], game)
redis.call('PEXPIRE', KEYS[5], keep)
redis.call('HINCRBY', KEYS[4], 'settled', 1)
return 'rated'
