import { redisScript } from '../../../redis/redis-script';
import { DEADLINE_LUA } from '../../../redis/redis-clock';
import { SHARE_REFUSAL_LUA } from '../../../kit/fair-share';

// A record is a hash (b = binding, d = data, e = expiry, r = round, o = owner, t = the keyring's
// tag) that Redis expires at e. Beside the records, `<prefix>~all` (every handle, scored by
// expiry), `<prefix>~by:<owner>` (likewise per owner) and `<prefix>~bytes` (each handle's
// "<owner> <bytes>", the total and each owner's) keep the counts the fair shares are decided on;
// expired records leave them at the next write. The per-owner keys are built here from the
// prefix, so on Redis Cluster the prefix needs a hash tag (it does anyway: RENAME).
const ACCOUNTING = `${SHARE_REFUSAL_LUA}
${DEADLINE_LUA}
local prefix = ARGV[1]
local all, bytes = prefix .. '~all', prefix .. '~bytes'
local function unaccount(handle)
  local entry = redis.call('HGET', bytes, handle)
  redis.call('ZREM', all, handle)
  if not entry then return end
  local space = string.find(entry, ' ')
  local owner = string.sub(entry, 1, space - 1)
  local weight = tonumber(string.sub(entry, space + 1))
  redis.call('HINCRBY', bytes, '~total', -weight)
  if redis.call('HINCRBY', bytes, '~c:' .. owner, -weight) <= 0 then
    redis.call('HDEL', bytes, '~c:' .. owner)
  end
  redis.call('ZREM', prefix .. '~by:' .. owner, handle)
  redis.call('HDEL', bytes, handle)
end
local function account(handle, owner, weight, expires)
  local by = prefix .. '~by:' .. owner
  redis.call('ZADD', all, expires, handle)
  redis.call('ZADD', by, expires, handle)
  local last = redis.call('ZRANGE', by, -1, -1, 'WITHSCORES')
  redis.call('PEXPIREAT', by, last[2])
  redis.call('HSET', bytes, handle, owner .. ' ' .. weight)
  redis.call('HINCRBY', bytes, '~total', weight)
  redis.call('HINCRBY', bytes, '~c:' .. owner, weight)
end
local function prune(now)
  for _, handle in ipairs(redis.call('ZRANGEBYSCORE', all, '-inf', now, 'LIMIT', 0, 1000)) do
    unaccount(handle)
  end
end
local function first_expiry()
  local first = redis.call('ZRANGE', all, 0, 0, 'WITHSCORES')
  return first[2] or ''
end`;

// Every script gets the deadline of its caller (on Redis's clock) as its last argument and
// changes nothing past it, answering 'late': its caller has been told it failed.

// KEYS: the record. ARGV: prefix, handle, b, d, e, r, o, t, now, weight, maxEntries,
// maxEntriesPerOwner, maxBytes, per-owner bytes, deadline. Answers 1, 'late' or
// {'full' | 'share', first expiry}.
const PUT = `${ACCOUNTING}
if past_deadline(ARGV[15]) then return 'late' end
local handle, owner, weight = ARGV[2], ARGV[7], tonumber(ARGV[10])
prune(tonumber(ARGV[9]))
local by = prefix .. '~by:' .. owner
if redis.call('EXISTS', KEYS[1]) == 1 then
  local entry = redis.call('HGET', bytes, handle)
  local before = 0
  if entry then before = tonumber(string.sub(entry, string.find(entry, ' ') + 1)) end
  local growth = weight - before
  if growth > 0 then
    local refused = share_refusal(tonumber(ARGV[13]), tonumber(ARGV[14]),
      tonumber(redis.call('HGET', bytes, '~c:' .. owner) or '0'),
      tonumber(redis.call('HGET', bytes, '~total') or '0'), growth)
    if refused == 'store' then return {'full', first_expiry()} end
    if refused == 'partition' then return {'share', first_expiry()} end
  end
else
  local refused = share_refusal(tonumber(ARGV[11]), tonumber(ARGV[12]),
    redis.call('ZCARD', by), redis.call('ZCARD', all), 1)
  if not refused then
    refused = share_refusal(tonumber(ARGV[13]), tonumber(ARGV[14]),
      tonumber(redis.call('HGET', bytes, '~c:' .. owner) or '0'),
      tonumber(redis.call('HGET', bytes, '~total') or '0'), weight)
  end
  if refused then return {refused == 'store' and 'full' or 'share', first_expiry()} end
end
unaccount(handle)
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'b', ARGV[3], 'd', ARGV[4], 'e', ARGV[5], 'r', ARGV[6], 'o', owner, 't', ARGV[8])
redis.call('PEXPIREAT', KEYS[1], ARGV[5])
account(handle, owner, weight, ARGV[5])
return 1`;

// Compare-and-swap in one step: a foreign binding changes nothing; RENAME keeps the key's expiry.
// KEYS: the record, its replacement. ARGV: prefix, handle, replacement, binding, now, deadline.
const REDEEM = `${ACCOUNTING}
if past_deadline(ARGV[6]) then return 'late' end
local f = redis.call('HMGET', KEYS[1], 'b', 'd', 'e', 'r', 'o', 't')
if f[1] ~= ARGV[4] then return false end
if tonumber(f[3]) <= tonumber(ARGV[5]) then
  redis.call('DEL', KEYS[1])
  unaccount(ARGV[2])
  return false
end
local entry = redis.call('HGET', bytes, ARGV[2])
unaccount(ARGV[2])
redis.call('RENAME', KEYS[1], KEYS[2])
if entry then
  local space = string.find(entry, ' ')
  account(ARGV[3], string.sub(entry, 1, space - 1), tonumber(string.sub(entry, space + 1)), f[3])
end
return {f[2], f[3], f[4], f[5] or '', f[6] or ''}`;

// KEYS: the record. ARGV: prefix, handle, deadline.
const DELETE = `${ACCOUNTING}
if past_deadline(ARGV[3]) then return 'late' end
redis.call('DEL', KEYS[1])
unaccount(ARGV[2])
return 1`;

/** The repository's scripts, each atomic on the server. @internal */
export const SCRIPTS = {
  put: redisScript(PUT),
  redeem: redisScript(REDEEM),
  delete: redisScript(DELETE),
};
