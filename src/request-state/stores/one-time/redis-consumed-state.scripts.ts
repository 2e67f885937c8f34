import { DEADLINE_LUA } from '../../../redis/redis-clock';
import { redisScript } from '../../../redis/redis-script';
import { SHARE_REFUSAL_LUA } from '../../../kit/fair-share';

// A consumed state's key holds `1` once spent, or `p <attempt> <lease end>` while the presentation
// that claimed it is in doubt: its instance sent the claim but has not confirmed that the reply
// came back in time (it then sets `1`) nor released it (its caller was told to retry; it then
// deletes it). Another presentation meanwhile is neither accepted nor refused as a replay: it is
// told to wait (`doubt`). A claim whose instance never came back counts as spent at its lease end.

// One presentation, atomically: the state's key, and beside it every unexpired state scored by
// expiry in `<prefix>consumed~all` and per owner in `<prefix>consumed~by:<owner>`, which the fair
// shares are counted from. KEYS: the state, all, the owner's. ARGV: time left, expiresAt, now,
// maxEntries, per owner, id, attempt, deadline (Redis's clock), lease (ms). Answers 1 (claimed by
// this attempt), 0 (presented before), {'doubt', ms} (another presentation is in doubt),
// {'late', ''} (past the deadline: nothing changed) or {reason, first}. An empty attempt records
// the id as spent at once (an id never presented again after a failed attempt: no doubt to settle).
/** @internal */
export const CONSUME = redisScript(`${SHARE_REFUSAL_LUA}
${DEADLINE_LUA}
local now_ms = redis_now_ms()
if now_ms > tonumber(ARGV[8]) then return {'late', ''} end
local held = redis.call('GET', KEYS[1])
if held then
  if ARGV[7] == '' then return 0 end
  local mine = 'p ' .. ARGV[7] .. ' '
  -- The same attempt sent again (a resend after a reconnection): its own claim.
  if string.sub(held, 1, #mine) == mine then return 1 end
  local lease = tonumber(string.match(held, '^p %S+ (%d+)$'))
  if lease and lease > now_ms then return {'doubt', tostring(lease - now_ms)} end
  return 0
end
-- The SET comes first: a script's first write decides whether an out-of-memory Redis refuses it.
local value = '1'
if ARGV[7] ~= '' then value = 'p ' .. ARGV[7] .. ' ' .. (tonumber(ARGV[8]) + tonumber(ARGV[9])) end
redis.call('SET', KEYS[1], value, 'PX', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[3])
local refused = share_refusal(tonumber(ARGV[4]), tonumber(ARGV[5]),
  redis.call('ZCARD', KEYS[3]), redis.call('ZCARD', KEYS[2]), 1)
if refused then
  -- Not recorded after all: the state stays presentable once there is room.
  redis.call('DEL', KEYS[1])
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {refused == 'store' and 'full' or 'share', first[2] or ''}
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[6])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[6])
local last = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[3], last[2])
return 1`);

// The claim's reply came back in time and the method runs: spent for good. KEYS: the state.
// ARGV: attempt.
/** @internal */
export const SETTLE = redisScript(`
local mine = 'p ' .. ARGV[1] .. ' '
local held = redis.call('GET', KEYS[1])
if not held or string.sub(held, 1, #mine) ~= mine then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('SET', KEYS[1], '1', 'PX', ttl) end
return 1`);

// The claim's caller was told to retry (its reply never came in time, or no replica acknowledged
// it): the method did not run, so the state is presentable again. KEYS: the state, all, the
// owner's. ARGV: attempt, id.
/** @internal */
export const RELEASE = redisScript(`
local mine = 'p ' .. ARGV[1] .. ' '
local held = redis.call('GET', KEYS[1])
if not held or string.sub(held, 1, #mine) ~= mine then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
return 1`);
