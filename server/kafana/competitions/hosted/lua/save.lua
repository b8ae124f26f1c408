-- Write the snapshot if owner holds the lease. KEYS: lease, state, then the event's other keys
-- (meta, entrants, control, adjudications); ARGV: owner, text, retention ms. Every key of the
-- event lives `retention` from now.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
for i = 3, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
return 1
