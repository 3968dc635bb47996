/**
 * The Lua scripts behind Redis coordination: each runs atomically on the server, so a check and
 * its write can never interleave with another replica's. Times come from the server's clock
 * (`TIME`), so replicas with skewed clocks still agree.
 */

const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS: lock. ARGV: token. Deletes the lock only when this token holds it. */
export const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** KEYS: turn, queue. ARGV: holder JSON, item JSON, ttl ms. 0 = the turn is yours; n = queued at n. */
export const TURN_ENTER = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[3]) then return 0 end
local n = redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[2], 86400000)
return n`;

/**
 * KEYS: turn, queue. ARGV: holder JSON, ttl ms, replica id. The next item (the turn stays with the
 * caller), or false after releasing the turn. A turn another replica took over is left alone.
 */
export const TURN_NEXT = `
local current = redis.call('GET', KEYS[1])
if current and cjson.decode(current).replicaId ~= ARGV[3] then return false end
local item = redis.call('LPOP', KEYS[2])
if item then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return item
end
redis.call('DEL', KEYS[1])
return false`;

/** KEYS: turn. ARGV: holder JSON, ttl ms, replica id. Updates (and renews) a turn this replica holds. */
export const TURN_UPDATE = `
local current = redis.call('GET', KEYS[1])
if current and cjson.decode(current).replicaId == ARGV[3] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;

/** KEYS: turn. ARGV: ttl ms, replica id. Renews a turn this replica holds. */
export const TURN_RENEW = `
local current = redis.call('GET', KEYS[1])
if current and cjson.decode(current).replicaId == ARGV[2] then return redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 0`;

/** KEYS: leader. ARGV: replica id, ttl ms. 1 when this replica holds (or just took) the leadership. */
export const LEAD = `
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not current then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;

/**
 * KEYS: budget. ARGV: kind (bucket|window), capacity or limit, per second or window ms, member.
 * 0 when a call was taken, else the ms until one may be.
 */
export const TAKE_TOKEN = `
${NOW}
if ARGV[1] == 'bucket' then
  local capacity = tonumber(ARGV[2]); local rate = tonumber(ARGV[3])
  local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
  local tokens = tonumber(state[1]) or capacity
  local at = tonumber(state[2]) or now
  tokens = math.min(capacity, tokens + math.max(0, now - at) / 1000 * rate)
  local wait = 0
  if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) / rate * 1000) end
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
  redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate * 1000) + 60000)
  return wait
end
local limit = tonumber(ARGV[2]); local window = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window + 1000)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - now)`;

/** Waiter scores are `rank × SLOT_RANK_SPAN + arrival number`: by class (`slot-priority.ts`), then arrival. */
export const SLOT_RANK_SPAN = 1e12;

/**
 * Shared by the slot scripts (KEYS: waiters, seen, seq, since, tickets; `stale` and `promote` set):
 * drops waiters that stopped asking, and serves a waiter that has waited `promote` ms as a person's.
 */
const SLOT_TIDY = `
local SPAN = ${SLOT_RANK_SPAN}
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - stale)) do
  redis.call('ZREM', KEYS[1], gone); redis.call('ZREM', KEYS[2], gone); redis.call('ZREM', KEYS[4], gone); redis.call('HDEL', KEYS[5], gone)
end
for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now - promote)) do
  local score = tonumber(redis.call('ZSCORE', KEYS[1], old))
  if score and score >= SPAN then redis.call('ZADD', KEYS[1], score % SPAN, old) end
end`;

/**
 * KEYS: waiters, seen, seq, since, tickets. ARGV: id, capacity, lease ms, waiter expiry ms, rank,
 * promotion ms, ticket JSON, then the servers. Waiters are served by class, then in arrival order,
 * across every replica; a waiter that stopped asking is dropped, a holder whose lease lapsed frees
 * its slot. Returns {1, server} when granted, else {0, place}.
 */
export const SLOT_ACQUIRE = `
${NOW}
local id = ARGV[1]; local capacity = tonumber(ARGV[2]); local lease = tonumber(ARGV[3]); local stale = tonumber(ARGV[4])
local promote = tonumber(ARGV[6])
${SLOT_TIDY}
if not redis.call('ZSCORE', KEYS[1], id) then
  redis.call('ZADD', KEYS[1], tonumber(ARGV[5]) * SPAN + redis.call('INCR', KEYS[3]), id)
  redis.call('ZADD', KEYS[4], now, id)
  redis.call('HSET', KEYS[5], id, ARGV[7])
end
redis.call('ZADD', KEYS[2], now, id)
local free = 0; local best = nil; local bestFree = 0
for i = 8, #ARGV do
  local held = 'tsuka:slots:held:' .. ARGV[i]
  redis.call('ZREMRANGEBYSCORE', held, '-inf', now)
  local f = capacity - redis.call('ZCARD', held)
  if f > 0 then
    free = free + f
    if f > bestFree then best = ARGV[i]; bestFree = f end
  end
end
local rank = redis.call('ZRANK', KEYS[1], id)
if best and rank < free then
  redis.call('ZADD', 'tsuka:slots:held:' .. best, now + lease, id)
  redis.call('ZREM', KEYS[1], id); redis.call('ZREM', KEYS[2], id); redis.call('ZREM', KEYS[4], id); redis.call('HDEL', KEYS[5], id)
  return {1, best}
end
return {0, rank + 1}`;

/**
 * KEYS: waiters, seen, seq, since, tickets. ARGV: waiter expiry ms, promotion ms. Every waiter in
 * the order it will be served: {now, id, ticket JSON, waiting since, id, …}.
 */
export const SLOT_QUEUE = `
${NOW}
local stale = tonumber(ARGV[1]); local promote = tonumber(ARGV[2])
${SLOT_TIDY}
local out = {now}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  table.insert(out, id)
  table.insert(out, redis.call('HGET', KEYS[5], id) or '')
  table.insert(out, redis.call('ZSCORE', KEYS[4], id) or '0')
end
return out`;

/** KEYS: held. ARGV: id, lease ms. Renews a held slot. */
export const SLOT_RENEW = `
${NOW}
return redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])`;

/** KEYS: held. ARGV: now is the server's. Live holders of one server. */
export const SLOT_COUNT = `
${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])`;

/** KEYS: turn. ARGV: replica id. Releases a turn this replica holds (its queue stays). */
export const TURN_RELEASE = `
local current = redis.call('GET', KEYS[1])
if current and cjson.decode(current).replicaId == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * KEYS: turn, queue. ARGV: holder JSON, ttl ms, stopped replica id (or ''). Takes a free turn, or
 * one the stopped replica held, when something is queued: the first item, else false (nothing taken).
 */
export const TURN_RESUME = `
local current = redis.call('GET', KEYS[1])
if current and (ARGV[3] == '' or cjson.decode(current).replicaId ~= ARGV[3]) then return false end
local item = redis.call('LPOP', KEYS[2])
if not item then
  if current then redis.call('DEL', KEYS[1]) end
  return false
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return item`;
