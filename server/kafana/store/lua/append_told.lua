-- The append (`append.lua`) and, if it applied, its riders' notices (`notice.lua`), in one
-- script: `redis_store.py` puts the two scripts before this as the functions `append` and
-- `notice`, each of its own KEYS and ARGV. One Redis server only (the account's keys are in
-- other slots than the table's).
-- KEYS: the append's 4, then 3 a rider. ARGV: the append's 16, then 9 a rider.
-- Returns the append's {outcome, seq, status} and 1 when every rider's notice ran (0: one
-- failed, and the caller tells its news the usual way; a notice that its mark drops ran).
local result = append(KEYS, ARGV)  -- it reads its 4 keys and 16 arguments, the first
local told = 1
if result[1] == 'applied' then
  for r = 0, (#KEYS - 4) / 3 - 1 do
    local k, a = 5 + 3 * r, 17 + 9 * r
    if not pcall(notice, {KEYS[k], KEYS[k + 1], KEYS[k + 2]}, {unpack(ARGV, a, a + 8)}) then
      told = 0
    end
  end
end
result[4] = told
return result
