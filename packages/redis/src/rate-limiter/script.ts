import { createHash } from 'node:crypto';

/**
 * The longest wait a RedisRateLimiter reserves, ms (about 285 years): its waits travel as integers
 * of µs, exact in a double up to `Number.MAX_SAFE_INTEGER`. A reservation that would wait longer is
 * refused whatever `timeoutDuration`; a permit count that would wait longer even from a full cycle
 * is a `RangeError` (see {@link maxPermits}).
 *
 * @example
 * ```ts
 * MAX_WAIT_MS; // 9007199254740
 * ```
 */
export const MAX_WAIT_MS = Math.floor(Number.MAX_SAFE_INTEGER / 1000);

/** The longest TTL the script sets, ms: far beyond any wait, well within what `SET … PX` takes. */
const MAX_TTL_MS = 2 ** 53;

/**
 * The most permits one call may ask for at `limitForPeriod` per `limitRefreshPeriod` ms: the
 * largest count whose least wait (from a full cycle, at the very end of the cycle) is within
 * {@link MAX_WAIT_MS}. More can never be granted, so asking is a `RangeError`, not a store error.
 *
 * @example
 * ```ts
 * maxPermits(50, 500); // 900719925550
 * ```
 */
export function maxPermits(limitForPeriod: number, limitRefreshPeriod: number): number {
  // The least wait for n > limit permits is floor((n - limit - 1) / limit) full periods plus a sliver of the cycle.
  return Math.min((Math.floor(MAX_WAIT_MS / limitRefreshPeriod) + 2) * limitForPeriod, Number.MAX_SAFE_INTEGER);
}

/**
 * The one Lua script of a RedisRateLimiter: Resilience4j's `AtomicRateLimiter` cycle arithmetic
 * (the same as `nextState` in @breakwater/rate-limiter's state.ts, with the origin at the Unix
 * epoch), run atomically on one key for a **batch** of operations, in order, with one reading of
 * the time. See the README's "Lua contract" for the table.
 *
 * - `KEYS[1]`: the limiter's key, a string of six doubles packed by Lua's `struct` (`'dddddd'`:
 *   permissions, cycle, period, sequence, generation, the last cycle reserved), read by one GET
 *   and written by one SET — with PX on the first write of a cycle and when permits are reserved
 *   ahead, else KEEPTTL (a hash, or text to parse, cost Redis more per call). A key of four
 *   doubles (an older script's) is read as generation 0.
 * - `ARGV`: limitForPeriod, limitRefreshPeriod ms, least TTL ms, now ms (`''`: Redis `TIME`),
 *   timeout ms of the reservations, the generation a key this call creates gets, and the caller's
 *   last view of the key (its generation, 0 for none, and its last cycle reserved), then the
 *   operations in order: a number `n` (reserve `n` permits), `m` (look: reserve nothing), `d`
 *   (drain), or `g`, permits, sequence, release time, generation (give back a reservation's permits).
 * - Reply: cycle, now µs, the sequence number before the batch, the key's generation and last
 *   cycle reserved after it, 1 when the batch found the key lost (else 0), then two integers per
 *   operation: `w` and the permissions after it. `w`: for a reservation the wait in µs rounded up
 *   (negative: refused, nothing reserved); for `d` the permissions there were; for `g` 1 (given
 *   back) or 0. Every reservation or drain that is done bumps the sequence number by one; a
 *   give-back that is done (the number and generation were its reservation's: nothing taken
 *   since) undoes it and steps the number back.
 * - A key lost mid-use (absent, or of another generation, while the caller's view says its TTL
 *   still runs) is recreated with this cycle and every cycle the view saw reserved taken.
 *
 * @example
 * ```ts
 * await client.eval(RATE_LIMITER_SCRIPT, { keys: [rateLimiterKey('pg')], arguments: ['10', '1000', '3000', '', '0', '7', '0', '-1', '1'] });
 * ```
 */
export const RATE_LIMITER_SCRIPT = `
local MAX_WAIT = ${MAX_WAIT_MS}
local MAX_TTL = ${MAX_TTL_MS}
local MAX_WAIT_US = MAX_WAIT * 1000
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local timeout = tonumber(ARGV[5])
-- The caller's view of the key: the generation it last saw (0: none), the last cycle it saw reserved.
local viewGeneration = tonumber(ARGV[7])
local viewLastReserved = tonumber(ARGV[8])
local now
if ARGV[4] ~= '' then
  -- A controlled time (tests): the caller's.
  now = tonumber(ARGV[4])
else
  -- Redis time, in ms with µs: the one clock of every instance.
  local time = redis.call('TIME')
  now = time[1] * 1000 + time[2] / 1000
end
local cycle = math.floor(now / period)
-- The key's state as this batch changes it: a full cycle unless the key says otherwise.
local permissions = limit
local sequence = 0
local generation = 0
local lastReserved = -1
local writtenThisCycle = false
local changed = false
local lost = 0
local stored = redis.call('GET', key)
if stored then
  local storedPermissions, storedCycle, storedPeriod, storedSequence
  if #stored >= 48 then
    -- Six doubles: this script's.
    storedPermissions, storedCycle, storedPeriod, storedSequence, generation, lastReserved = struct.unpack('dddddd', stored)
  else
    -- Four doubles: an older script's key, read as generation 0.
    storedPermissions, storedCycle, storedPeriod, storedSequence = struct.unpack('dddd', stored)
  end
  sequence = storedSequence
  if storedPeriod == period then
    -- The same period: its permissions, refilled by a limit per cycle gone by, up to the limit.
    -- (A key stored with another period is started afresh: a full cycle.)
    permissions = storedPermissions
    if storedCycle ~= cycle then
      permissions = math.min(permissions + (cycle - storedCycle) * limit, limit)
    else
      writtenThisCycle = true
    end
  end
end
-- The caller saw generation viewGeneration of the key holding reservations through cycle
-- viewLastReserved, so by its TTL the key exists through viewLastReserved + 2. Absent, or another
-- generation, before that: it was lost (evicted, deleted, flushed). What it had granted is
-- unknown: this cycle, and every cycle the caller saw reserved, count as taken.
if viewGeneration ~= 0 and cycle <= viewLastReserved + 2 and (not stored or (generation ~= 0 and generation ~= viewGeneration)) then
  lost = 1
  permissions = math.min(permissions, 0) - math.max(0, viewLastReserved - cycle) * limit
  writtenThisCycle = false
  changed = true
end
-- A new key (or one written by an older script) gets the caller's fresh generation, if it is written.
local created = false
if not stored or generation == 0 then
  generation = tonumber(ARGV[6])
  created = true
end
-- The reply: a head of six, then a pair per operation. Sized for one operation (the common
-- batch), so Lua does not grow the table for it.
local reply = { cycle, math.floor(now * 1000 + 0.5), sequence, generation, lastReserved, lost, 0, 0 }
local replyLength = 6
local arg = 9
local lastArg = #ARGV
while arg <= lastArg do
  local operation = ARGV[arg]
  local answer = 0
  if operation == 'd' then
    -- Drain: answers the permissions there were; takes what is left of this cycle (a deficit stays).
    answer = permissions
    if permissions > 0 then
      permissions = 0
      sequence = sequence + 1
    end
    changed = true
    arg = arg + 1
  elseif operation == 'g' then
    -- Give back: permits, the reservation's sequence number, when its permits are there, the
    -- key's generation then. Done only if nothing was taken since (same number, same key) and
    -- its permits are still ahead: answers 1, else 0.
    if sequence == tonumber(ARGV[arg + 2]) and generation == tonumber(ARGV[arg + 4]) and tonumber(ARGV[arg + 3]) > now then
      permissions = math.min(permissions + tonumber(ARGV[arg + 1]), limit)
      -- Undone: the number steps back to the one before it, so the reservation before can come back next.
      sequence = sequence - 1
      answer = 1
      changed = true
    end
    arg = arg + 5
  elseif operation == 'm' then
    -- Look: reserves nothing, writes nothing (the pair says the permissions).
    arg = arg + 1
  else
    -- Reserve this many permits: the wait is 0 when they are there, else the rest of this cycle
    -- plus the full cycles the deficit needs. Taken only when the wait is within the timeout (and
    -- MAX_WAIT); answers the wait in µs rounded up, negative when refused.
    local permits = tonumber(operation)
    local wait = 0
    if permissions < permits then
      wait = math.floor((permits - permissions - 1) / limit) * period + ((cycle + 1) * period - now)
    end
    answer = math.ceil(wait * 1000)
    if timeout >= wait and wait <= MAX_WAIT then
      permissions = permissions - permits
      sequence = sequence + 1
    else
      answer = -math.min(answer, MAX_WAIT_US)
    end
    changed = true
    arg = arg + 1
  end
  reply[replyLength + 1] = answer
  reply[replyLength + 2] = permissions
  replyLength = replyLength + 2
end
if changed then
  if writtenThisCycle and permissions >= 0 then
    -- Written before in this cycle, so its TTL was set in this cycle (at least 3 periods), and
    -- nothing is reserved ahead: the key outlives this cycle, and once the cycle is over a key
    -- with no deficit is a full cycle whether or not it has expired. KEEPTTL costs Redis less.
    lastReserved = math.max(lastReserved, cycle)
    redis.call('SET', key, struct.pack('dddddd', permissions, cycle, period, sequence, generation, lastReserved), 'KEEPTTL')
  else
    -- The first write of a cycle, or permits reserved in later cycles: a TTL that outlives every
    -- cycle reserved by three periods (at least the least TTL).
    local cyclesAhead = 0
    if permissions < 0 then cyclesAhead = math.ceil(-permissions / limit) end
    lastReserved = cycle + cyclesAhead
    -- %d: Lua would write a number of 15 digits or more as '1e+15', which PX refuses.
    local ttl = string.format('%d', math.min(math.ceil(math.max(tonumber(ARGV[3]), (cyclesAhead + 3) * period)), MAX_TTL))
    redis.call('SET', key, struct.pack('dddddd', permissions, cycle, period, sequence, generation, lastReserved), 'PX', ttl)
  end
end
-- A key this batch would have created but did not write does not exist: no generation to tell.
if created and not changed then generation = 0 end
reply[4] = generation
reply[5] = lastReserved
return reply
`;

/**
 * The SHA1 of {@link RATE_LIMITER_SCRIPT} (what `EVALSHA` names it by).
 *
 * @example
 * ```ts
 * await client.scriptExists(RATE_LIMITER_SCRIPT_SHA);
 * ```
 */
export const RATE_LIMITER_SCRIPT_SHA = createHash('sha1').update(RATE_LIMITER_SCRIPT).digest('hex');
