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
local MAX_W = MAX_WAIT * 1000
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local timeout = tonumber(ARGV[5])
local vgen = tonumber(ARGV[7])
local vuntil = tonumber(ARGV[8])
local now
if ARGV[4] ~= '' then
  now = tonumber(ARGV[4])
else
  local t = redis.call('TIME')
  now = t[1] * 1000 + t[2] / 1000
end
local cycle = math.floor(now / period)
local p = limit
local seq = 0
local gen = 0
local untilc = -1
local same = false
local write = false
local lost = 0
local v = redis.call('GET', key)
if v then
  local sp, c, sr, ss
  if #v >= 48 then
    sp, c, sr, ss, gen, untilc = struct.unpack('dddddd', v)
  else
    sp, c, sr, ss = struct.unpack('dddd', v)
  end
  seq = ss
  if sr == period then
    p = sp
    if c ~= cycle then p = math.min(p + (cycle - c) * limit, limit) else same = true end
  end
end
-- The caller saw generation vgen of the key holding reservations through cycle vuntil, so by its
-- TTL the key exists through vuntil + 2. Absent, or another generation, before that: it was lost
-- (evicted, deleted, flushed). What it had granted is unknown: this cycle, and every cycle the
-- caller saw reserved, count as taken.
if vgen ~= 0 and cycle <= vuntil + 2 and (not v or (gen ~= 0 and gen ~= vgen)) then
  lost = 1
  p = math.min(p, 0) - math.max(0, vuntil - cycle) * limit
  same = false
  write = true
end
-- A new key (or one written by an older script) gets the caller's fresh generation, if it is written.
local created = false
if not v or gen == 0 then
  gen = tonumber(ARGV[6])
  created = true
end
-- Sized for one operation (the common batch), so Lua does not grow the table for it.
local out = { cycle, math.floor(now * 1000 + 0.5), seq, gen, untilc, lost, 0, 0 }
local n = 6
local i = 9
local last = #ARGV
while i <= last do
  local op = ARGV[i]
  local w = 0
  if op == 'd' then
    w = p
    if p > 0 then
      p = 0
      seq = seq + 1
    end
    write = true
    i = i + 1
  elseif op == 'g' then
    if seq == tonumber(ARGV[i + 2]) and gen == tonumber(ARGV[i + 4]) and tonumber(ARGV[i + 3]) > now then
      p = math.min(p + tonumber(ARGV[i + 1]), limit)
      -- Undone: the number steps back to the one before it, so the reservation before can come back next.
      seq = seq - 1
      w = 1
      write = true
    end
    i = i + 5
  elseif op == 'm' then
    i = i + 1
  else
    local permits = tonumber(op)
    local wait = 0
    if p < permits then
      wait = math.floor((permits - p - 1) / limit) * period + ((cycle + 1) * period - now)
    end
    w = math.ceil(wait * 1000)
    if timeout >= wait and wait <= MAX_WAIT then
      p = p - permits
      seq = seq + 1
    else
      w = -math.min(w, MAX_W)
    end
    write = true
    i = i + 1
  end
  out[n + 1] = w
  out[n + 2] = p
  n = n + 2
end
if write then
  if same and p >= 0 then
    -- Written before in this cycle, so its TTL was set in this cycle (at least 3 periods), and
    -- nothing is reserved ahead: the key outlives this cycle, and once the cycle is over a key
    -- with no deficit is a full cycle whether or not it has expired. KEEPTTL costs Redis less.
    untilc = math.max(untilc, cycle)
    redis.call('SET', key, struct.pack('dddddd', p, cycle, period, seq, gen, untilc), 'KEEPTTL')
  else
    local ahead = 0
    if p < 0 then ahead = math.ceil(-p / limit) end
    untilc = cycle + ahead
    -- %d: Lua would write a number of 15 digits or more as '1e+15', which PX refuses.
    local ttl = string.format('%d', math.min(math.ceil(math.max(tonumber(ARGV[3]), (ahead + 3) * period)), MAX_TTL))
    redis.call('SET', key, struct.pack('dddddd', p, cycle, period, seq, gen, untilc), 'PX', ttl)
  end
end
if created and not write then gen = 0 end
out[4] = gen
out[5] = untilc
return out
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
