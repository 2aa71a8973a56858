import { createHash } from 'node:crypto';
import { MAX_ATTEMPT, MAX_MS } from './bounds.js';
import type { BreakerKeys } from './keys.js';
import { decodeAbandon, decodeDecide, decodeOpened, decodeOverride, decodeRead, decodeRenew, decodeTryLease } from './replies.js';

// The Lua scripts of the fleet protocol. Each runs atomically on Redis, reads time from Redis
// `TIME` (the one clock of the fleet: instances' own clocks never meet), and publishes the change
// it made in the same step, so no instance ever sees a state change that was not recorded nor a
// recorded one that was never announced. Keys come in KEYS (built by keys.ts); the channel comes in
// ARGV (a channel is not a key). Every change of the fleet state bumps `ver` in the state hash, and
// every message and read carries it: an instance never applies an older state over a newer one.

// Every script starts with this: Redis time, and how a value read from the state hash is believed.
// The hash is Redis's: an operator may have typed anything in it, and Redis turns a Lua number
// beyond 2^63 (or NaN) into -2^63 in a reply. So every value read is bounded before use (bounds.ts
// has the same limits): an `override` other than the two the protocol writes is no override (the
// script acts as without it, and returns the value so the instance can report it); `ver` that is
// not an integer in [0, 2^50] counts as 0 (and is rewritten by the next change); `attempt` is an
// integer in [1, MAX_ATTEMPT]; an `until` that is no number, or further away than `cap`, counts as
// passed (and is returned so the instance can report it); a duration from ARGV is in [1, MAX_MS].
const PRELUDE = `-- Redis time in ms: the one clock of the fleet.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local MAXMS = ${MAX_MS}
-- A value as a number; nil for what is none (absent, text, NaN).
local function number(value)
  value = tonumber(value)
  if value == nil or value ~= value then return nil end
  return value
end
-- The override in force ('' for none), and a stored value that is no override ('' for none).
local function override(key)
  local stored = redis.call('HGET', key, 'override')
  -- One of the two the protocol writes: in force.
  if stored == 'FORCED_OPEN' or stored == 'DISABLED' then return stored, '' end
  -- Anything else: no override, returned so that the instance reports it.
  if stored then return '', stored end
  return '', ''
end
-- The state's version: an integer in [0, 2^50]; anything else counts as 0.
local function readVersion(key)
  local version = number(redis.call('HGET', key, 'ver'))
  if version == nil or version < 0 or version > 1125899906842624 then return 0 end
  return math.floor(version)
end
-- A change of the fleet state: the next version.
local function bumpVersion(key, version)
  redis.call('HSET', key, 'ver', version + 1)
  return version + 1
end
-- An opening attempt: an integer in [1, MAX_ATTEMPT]; what is no number is 1.
local function attemptOf(value)
  value = number(value)
  if value == nil or value < 1 then return 1 end
  if value > ${MAX_ATTEMPT} then return ${MAX_ATTEMPT} end
  return math.floor(value)
end
-- A duration from ARGV: a whole number of ms in [1, MAXMS].
local function duration(value)
  value = number(value)
  if value == nil or value < 1 then return 1 end
  if value > MAXMS then return MAXMS end
  return math.ceil(value)
end
-- The time left of the fleet's opening, believed only up to cap ms: nil when the fleet is not
-- open; else ms left (0: over, or not believed), the stored value not believed ('' if believed),
-- and the stored value as it is.
local function timeLeft(key, cap)
  local stored = redis.call('HGET', key, 'until')
  -- No deadline: the fleet is not open.
  if not stored then return nil, '', '' end
  local untilMs = number(stored)
  -- Not a number: counts as passed, and is reported.
  if untilMs == nil then return 0, stored, stored end
  local remaining = untilMs - now
  -- Over.
  if remaining <= 0 then return 0, '', stored end
  -- Further away than cap: counts as passed, and is reported.
  if remaining > cap then return 0, stored, stored end
  return math.ceil(remaining), '', stored
end
`;

/** A script, its SHA-1 (what EVALSHA takes), its keys and the decoder of its reply (replies.ts). */
export interface Script<R> {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
  /** KEYS, from the keys of one breaker name. */
  readonly keys: (k: BreakerKeys) => string[];
  /** The reply as the script means it; throws (a store error) for a reply the script never gives. */
  readonly decode: (raw: unknown) => R;
}

function script<R>(name: string, keys: (k: BreakerKeys) => string[], decode: (raw: unknown) => R, body: string): Script<R> {
  const source = PRELUDE + body;
  return { name, source, sha: createHash('sha1').update(source).digest('hex'), keys, decode };
}

/**
 * An instance opened. ARGV: instanceId, quorumWindow ms, quorum, wait ms, channel, its opening attempt.
 * Records the opening (ZADD), forgets those older than the window (ZREMRANGEBYSCORE), counts the
 * rest (ZCARD); at quorum the fleet opens until now + wait, at that attempt (the fleet's `attempt`,
 * which each failed fleet trial raises by one). Returns {status, count, remaining ms, ver, ignored
 * override, attempt, until as stored, until not believed}: status 0 recorded (no quorum yet), 1 the
 * fleet opened now, 2 the fleet was already open, 3 an operator override holds the fleet (nothing
 * recorded).
 */
export const OPENED = script(
  'opened',
  (k) => [k.state, k.opened],
  decodeOpened,
  `
local version = readVersion(KEYS[1])
local activeOverride, ignoredOverride = override(KEYS[1])
-- An operator's override holds the fleet: nothing is recorded.
if activeOverride ~= '' then return {3, 0, 0, version, ignoredOverride, 1, '', ''} end
-- Record this instance's opening, forget those older than the window, count the rest.
local window = duration(ARGV[2])
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
redis.call('PEXPIRE', KEYS[2], window)
local count = redis.call('ZCARD', KEYS[2])
local remaining, ignoredUntil, storedUntil = timeLeft(KEYS[1], MAXMS)
-- The fleet is open already: its time left, as stored (the instance checks it against its own wait).
if remaining then return {2, count, remaining, version, ignoredOverride, attemptOf(redis.call('HGET', KEYS[1], 'attempt')), storedUntil, ignoredUntil} end
if count >= tonumber(ARGV[3]) then
  -- Quorum: the fleet opens until now + wait, at this instance's opening attempt; told to all.
  local wait = duration(ARGV[4])
  local attempt = attemptOf(ARGV[6])
  redis.call('HSET', KEYS[1], 'until', now + wait, 'attempt', attempt)
  version = bumpVersion(KEYS[1], version)
  redis.call('PUBLISH', ARGV[5], cjson.encode({t = 'open', from = ARGV[1], remaining = wait, ver = version, count = count}))
  return {1, count, wait, version, ignoredOverride, attempt, '', ''}
end
-- Below quorum: recorded, and told to the others.
redis.call('PUBLISH', ARGV[5], cjson.encode({t = 'opened', from = ARGV[1], count = count, ver = version}))
return {0, count, 0, version, ignoredOverride, 1, '', ''}
`,
);

/**
 * The fleet's wait may be over: try to take the trial lease. ARGV: instanceId, lease ms, cap ms
 * (the instance's own wait at the fleet's attempt: a deadline further away is not believed and
 * counts as passed), the `ver` the instance applied. Returns {status, ms, ver, attempt, ignored
 * override, until not believed}: 0 the fleet is not open (closed meanwhile), 1 lease taken (ms =
 * its duration), 2 still waiting (ms left), 3 an override holds the fleet, 4 another instance
 * holds the lease (ms = its time to live; a lease that would never expire, or outlive this
 * instance's own lease, is cut to that), 5 the state changed since the instance's `ver` (read it);
 * `attempt` is the fleet's opening attempt (what a failed trial's next wait follows).
 */
export const TRY_LEASE = script(
  'tryLease',
  (k) => [k.state, k.lease],
  decodeTryLease,
  `
local version = readVersion(KEYS[1])
local activeOverride, ignoredOverride = override(KEYS[1])
-- The state changed since the instance read it: it reads it again.
if version ~= tonumber(ARGV[4]) then return {5, 0, version, 1, ignoredOverride, ''} end
-- An operator's override holds the fleet.
if activeOverride ~= '' then return {3, 0, version, 1, ignoredOverride, ''} end
local remaining, ignoredUntil = timeLeft(KEYS[1], duration(ARGV[3]))
-- The fleet is not open (closed meanwhile).
if not remaining then return {0, 0, version, 1, ignoredOverride, ''} end
-- The fleet's wait is not over: the time left.
if remaining > 0 then return {2, remaining, version, 1, ignoredOverride, ''} end
local lease = duration(ARGV[2])
local attempt = attemptOf(redis.call('HGET', KEYS[1], 'attempt'))
-- The lease was free: this instance takes it.
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', lease) then return {1, lease, version, attempt, ignoredOverride, ignoredUntil} end
if redis.call('GET', KEYS[2]) == ARGV[1] then
  -- This instance holds it already: another lease from now.
  redis.call('PEXPIRE', KEYS[2], lease)
  return {1, lease, version, attempt, ignoredOverride, ignoredUntil}
end
-- Another instance holds it: its time to live, cut to this instance's lease when it would never
-- expire or outlive it.
local ttl = redis.call('PTTL', KEYS[2])
if ttl < 0 or ttl > lease then
  redis.call('PEXPIRE', KEYS[2], lease)
  ttl = lease
end
return {4, ttl, version, attempt, ignoredOverride, ignoredUntil}
`,
);

/**
 * The lease holder's trial decided. ARGV: instanceId, 'CLOSED' | 'OPEN', wait ms (of the next
 * attempt), channel. Only while it still holds the lease: CLOSED clears the fleet's opening (state,
 * attempt, openings, lease), OPEN opens the fleet again until now + wait, one attempt further, and
 * frees the lease; either is published.
 * Returns {status, remaining ms, ver}: 0 the lease was lost (nothing changed), 1 published.
 */
export const DECIDE = script(
  'decide',
  (k) => [k.state, k.opened, k.lease],
  decodeDecide,
  `
-- The lease is no longer this instance's: nothing changes.
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return {0, 0, 0} end
redis.call('DEL', KEYS[3])
local version = bumpVersion(KEYS[1], readVersion(KEYS[1]))
if ARGV[2] == 'CLOSED' then
  -- The trial closed: the fleet's opening is cleared (deadline, attempt, openings); told to all.
  redis.call('HDEL', KEYS[1], 'until', 'attempt')
  redis.call('DEL', KEYS[2])
  redis.call('PUBLISH', ARGV[4], cjson.encode({t = 'closed', from = ARGV[1], ver = version}))
  return {1, 0, version}
end
-- The trial failed: the fleet opens again until now + wait, one attempt further; told to all.
local wait = duration(ARGV[3])
local attempt = math.min(attemptOf(redis.call('HGET', KEYS[1], 'attempt')) + 1, ${MAX_ATTEMPT})
redis.call('HSET', KEYS[1], 'until', now + wait, 'attempt', attempt)
redis.call('PUBLISH', ARGV[4], cjson.encode({t = 'open', from = ARGV[1], remaining = wait, ver = version, count = 0}))
return {1, wait, version}
`,
);

/**
 * The holder's trial call is still running: it keeps the lease another lease (compare and
 * PEXPIRE). ARGV: instanceId, lease ms. Returns {1} if it still held it, {0} if it was lost.
 */
export const RENEW = script(
  'renew',
  (k) => [k.lease],
  decodeRenew,
  `
-- The lease was lost (expired, taken, deleted).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {0} end
-- Still this instance's: another lease from now.
redis.call('PEXPIRE', KEYS[1], duration(ARGV[2]))
return {1}
`,
);

/** A holder gives its lease back without a decision (compare and delete). ARGV: instanceId. Returns 1 if it held it. */
export const ABANDON = script(
  'abandon',
  (k) => [k.lease],
  decodeAbandon,
  `
-- Only the holder frees the lease.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`,
);

/**
 * The fleet state, read when an instance attaches, when Redis comes back, and on a notice. Returns
 * {override or '', remaining ms of the fleet's OPEN (-1: not open), ver, ignored override, attempt,
 * until as stored, until not believed}. The instance checks `remaining` against its own wait at
 * `attempt` (a script cannot run the wait function).
 */
export const READ = script(
  'read',
  (k) => [k.state],
  decodeRead,
  `
local version = readVersion(KEYS[1])
local activeOverride, ignoredOverride = override(KEYS[1])
local remaining, ignoredUntil, storedUntil = timeLeft(KEYS[1], MAXMS)
-- Not open: remaining -1.
return {activeOverride, remaining or -1, version, ignoredOverride, attemptOf(redis.call('HGET', KEYS[1], 'attempt')), storedUntil, ignoredUntil}
`,
);

/**
 * An operator's override. ARGV: 'FORCED_OPEN' | 'DISABLED' | '' (release), channel. Any of them
 * clears the fleet's opening (state, openings, lease): an override replaces it, a release starts
 * the fleet afresh. Returns ver.
 */
export const OVERRIDE = script(
  'override',
  (k) => [k.state, k.opened, k.lease],
  decodeOverride,
  `
if ARGV[1] == '' then
  -- A release: no override.
  redis.call('HDEL', KEYS[1], 'override')
else
  -- FORCED_OPEN or DISABLED, until released.
  redis.call('HSET', KEYS[1], 'override', ARGV[1])
end
-- Either way the fleet's opening is cleared (deadline, attempt, openings, lease); told to all.
redis.call('HDEL', KEYS[1], 'until', 'attempt')
redis.call('DEL', KEYS[2], KEYS[3])
local version = bumpVersion(KEYS[1], readVersion(KEYS[1]))
redis.call('PUBLISH', ARGV[2], cjson.encode({t = 'override', state = ARGV[1], ver = version}))
return version
`,
);
