import { SHARE_REFUSAL_LUA } from '../../../kit/fair-share';
import { DEADLINE_LUA } from '../../../extension-api';

/** The Lua scripts of {@link RedisTaskStore}, each atomic on the server. @internal */
// Each task is a hash — `v` its version, `d` its JSON, `t` the keyring's tag over both and the
// key — that expires with the task. `<prefix>~all` (every task, scored by expiry), one
// `<prefix>by-caller:<digest>` per partition (likewise) and `<prefix>~bytes` (each task's
// "<partition digest> <bytes>", the total and each partition's) keep the counts the fair shares
// are decided on; expired tasks leave them at the next write.
const PRUNE = `
local function prune(now)
  local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 1000)
  for _, id in ipairs(gone) do
    local entry = redis.call('HGET', KEYS[4], id)
    if entry then
      local space = string.find(entry, ' ')
      local owner = string.sub(entry, 1, space - 1)
      local bytes = tonumber(string.sub(entry, space + 1))
      redis.call('HINCRBY', KEYS[4], '~total', -bytes)
      if redis.call('HINCRBY', KEYS[4], '~c:' .. owner, -bytes) <= 0 then
        redis.call('HDEL', KEYS[4], '~c:' .. owner)
      end
      redis.call('HDEL', KEYS[4], id)
    end
    redis.call('ZREM', KEYS[3], id)
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
end
local function first_expiry(key)
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return first[2] or ''
end`;

// What CREATE and REPLACE both write once a task is admitted: the hash and its expiry, the task
// in both indexes, its "<partition digest> <bytes>" entry, and the change to both byte tallies.
const WRITE = `
local function write(version, json, tag, expires, id, owner, bytes, change)
  redis.call('HSET', KEYS[1], 'v', version, 'd', json, 't', tag)
  redis.call('PEXPIREAT', KEYS[1], expires)
  redis.call('ZADD', KEYS[2], expires, id)
  redis.call('ZADD', KEYS[3], expires, id)
  redis.call('HSET', KEYS[4], id, owner .. ' ' .. bytes)
  redis.call('HINCRBY', KEYS[4], '~total', change)
  redis.call('HINCRBY', KEYS[4], '~c:' .. owner, change)
end`;

// CREATE and REPLACE get their caller's deadline (on Redis's clock) last and change nothing past
// it, answering 'late': the caller was told the write failed, so it must never land afterwards.

// KEYS: task, partition index, all, bytes. ARGV: version, json, expiresAt, now, per-partition
// count, taskId, tag, maxTasks, maxBytes, per-partition bytes, weight, partition digest, deadline.
// Answers 1, 0 (id taken), 'late' or {unit, refusal, total, first expiry}.
/** @internal */
export const CREATE = `${SHARE_REFUSAL_LUA}
${PRUNE}
${WRITE}
${DEADLINE_LUA}
if past_deadline(ARGV[13]) then return 'late' end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local now = tonumber(ARGV[4])
prune(now)
local owner_bytes = '~c:' .. ARGV[12]
local held = redis.call('ZCARD', KEYS[2])
local total = redis.call('ZCARD', KEYS[3])
local refusal = share_refusal(tonumber(ARGV[8]), tonumber(ARGV[5]), held, total, 1)
if refusal then
  return {'tasks', refusal, tostring(total), first_expiry(refusal == 'store' and KEYS[3] or KEYS[2])}
end
local held_bytes = tonumber(redis.call('HGET', KEYS[4], owner_bytes) or '0')
local total_bytes = tonumber(redis.call('HGET', KEYS[4], '~total') or '0')
local weight = tonumber(ARGV[11])
refusal = share_refusal(tonumber(ARGV[9]), tonumber(ARGV[10]), held_bytes, total_bytes, weight)
if refusal then
  return {'bytes', refusal, tostring(total_bytes), first_expiry(refusal == 'store' and KEYS[3] or KEYS[2])}
end
write(ARGV[1], ARGV[2], ARGV[7], ARGV[3], ARGV[6], ARGV[12], ARGV[11], weight)
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[2], last[2])
return 1`;

/** @internal */
// KEYS: task, partition index, all, bytes. ARGV: expected version, next version, json,
// expiresAt, tag, now, taskId, weight, maxBytes, per-partition bytes, partition digest, deadline.
// Answers 1, 0 (version moved on), 'late' or {unit, refusal, total, first expiry}.
export const REPLACE = `${PRUNE}
${WRITE}
${DEADLINE_LUA}
if past_deadline(ARGV[12]) then return 'late' end
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
local now = tonumber(ARGV[6])
prune(now)
local owner_bytes = '~c:' .. ARGV[11]
local entry = redis.call('HGET', KEYS[4], ARGV[7])
local before = 0
if entry then
  local space = string.find(entry, ' ')
  -- A task never changes hands.
  if string.sub(entry, 1, space - 1) ~= ARGV[11] then return 0 end
  before = tonumber(string.sub(entry, space + 1))
end
local growth = tonumber(ARGV[8]) - before
if growth > 0 then
  local held_bytes = tonumber(redis.call('HGET', KEYS[4], owner_bytes) or '0')
  local total_bytes = tonumber(redis.call('HGET', KEYS[4], '~total') or '0')
  if held_bytes + growth > tonumber(ARGV[10]) then
    return {'bytes', 'partition', tostring(total_bytes), first_expiry(KEYS[2])}
  end
  if total_bytes + growth > tonumber(ARGV[9]) then
    return {'bytes', 'store', tostring(total_bytes), first_expiry(KEYS[3])}
  end
end
write(ARGV[2], ARGV[3], ARGV[5], ARGV[4], ARGV[7], ARGV[11], ARGV[8], growth)
return 1`;

/** @internal */
// KEYS: task, partition index, all, bytes. ARGV: taskId. Allowed while Redis is out of memory
// (Redis 7): it only frees memory, and a task that failed to start must give its slot back then.
export const REMOVE_BODY = `
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
local entry = redis.call('HGET', KEYS[4], ARGV[1])
if entry then
  local space = string.find(entry, ' ')
  local bytes = tonumber(string.sub(entry, space + 1))
  redis.call('HINCRBY', KEYS[4], '~total', -bytes)
  redis.call('HINCRBY', KEYS[4], '~c:' .. string.sub(entry, 1, space - 1), -bytes)
  redis.call('HDEL', KEYS[4], ARGV[1])
end
return 1`;
/** @internal */
export const REMOVE = `#!lua flags=allow-oom
${REMOVE_BODY}`;
