-- Append one account notice, unless its mark says the same news was told already.
-- KEYS: 1 stream, 2 marks hash, 3 marks order (sorted set), all of one account (one slot).
-- ARGV: 1 mark field ("": none), 2 holder, 3 rank, 4 data, 5 max len (kept: at least that
--       many, fewer than max len + max len / 8), 6 ttl ms, 7 max marks,
--       8 live channel, 9 ttl slack ms (0: none).
-- Returns the new id, or nil (a duplicate). The count `#` of the marks hash goes up by one
-- and is published on the live channel; a mark is ordered by the count that first set it, so
-- the marks of the tables first heard of go first past `max marks` (not reordered on every
-- notice: that was a ZADD a notice; a mark dropped early only lets its news be told twice).
-- Time to live as `append.lua` gives a table's: with a slack, ttl + slack, left alone while
-- between ttl and ttl + slack are left (a key made now, or one without a time to live, gets
-- it).
-- Also run inside `append_told` (the append script with its riders: `redis_store.py`), as
-- a function of its own KEYS and ARGV, after an append that applied.
local field = ARGV[1]
local old = nil
if field ~= '' then
  old = redis.call('HGET', KEYS[2], field)
  if old then
    local holder, rank = string.match(old, '^(.*):(%d+)$')
    if holder == ARGV[2] and tonumber(rank) >= tonumber(ARGV[3]) then
      return false
    end
  end
end
local number = redis.call('HINCRBY', KEYS[2], '#', 1)
local made = number == 1
local count = tostring(number)  -- made text once (a sprintf each time)
if field ~= '' then
  redis.call('HSET', KEYS[2], field, ARGV[2] .. ':' .. ARGV[3])
  if not old then  -- a new field: ordered by the notice that set it first; past the bound?
    redis.call('ZADD', KEYS[3], count, field)
    local marks = redis.call('ZCARD', KEYS[3])
    made = made or marks == 1
    local extra = marks - tonumber(ARGV[7])
    if extra > 0 then
      local gone = redis.call('ZPOPMIN', KEYS[3], extra)
      for i = 1, #gone, 2 do
        redis.call('HDEL', KEYS[2], gone[i])
      end
    end
  end
end
local id = redis.call('XADD', KEYS[1], '*', 'd', ARGV[4])
-- Trimmed exactly every max/8 notices, not on each: an exact trim walks the stream's first
-- node past the entries it deleted before (most of an append's cost in Redis), a batch walks
-- it once. The stream holds max to max + max/8 - 1 notices.
local max = tonumber(ARGV[5])
if number % math.max(1, math.floor(max / 8)) == 0 then
  redis.call('XTRIM', KEYS[1], 'MAXLEN', max)
end
local ttl = tonumber(ARGV[6])
local slack = tonumber(ARGV[9]) or 0
if slack > 0 and not made then
  local left = redis.call('PTTL', KEYS[1])  -- -1: the stream is new (or has none)
  if left >= ttl and left <= ttl + slack then
    ttl = 0
  end
end
if ttl > 0 then
  for i = 1, 3 do
    redis.call('PEXPIRE', KEYS[i], ttl + slack)
  end
end
redis.call('SPUBLISH', ARGV[8], count)
return id
