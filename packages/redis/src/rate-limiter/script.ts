import { createHash } from 'node:crypto';

/**
 * The one Lua script of a RedisRateLimiter: Resilience4j's `AtomicRateLimiter` cycle arithmetic
 * (the same as `nextState` in @breakwater/rate-limiter's state.ts, with the origin at the Unix
 * epoch), run atomically on one hash. See the README's "Lua contract" for the table.
 *
 * - `KEYS[1]`: the limiter's key, a string of four doubles packed by Lua's `struct` (`'dddd'`:
 *   permissions, cycle, period, sequence), read by one GET and written by one SET with PX
 *   (a hash, or text to parse, cost Redis more per call).
 * - `ARGV`: op (`r` reserve, `d` drain, `g` give back), permits, timeout ms (-1: look only),
 *   limitForPeriod, limitRefreshPeriod ms, least TTL ms, now ms (`''`: Redis `TIME`), and for `g`
 *   the reservation's sequence number and the time its permits are there.
 * - Reply: 6 integers: done (1/0), wait µs rounded up (`d`: the permissions there were, ×1000), cycle,
 *   permissions, sequence, now µs. The cycle the permits belong to and the wait for one permit
 *   follow from them (computed by the client: fewer values cost Redis less).
 *
 * @example
 * ```ts
 * await client.eval(RATE_LIMITER_SCRIPT, { keys: [rateLimiterKey('pg')], arguments: ['r', '1', '0', '10', '1000', '3000', ''] });
 * ```
 */
export const RATE_LIMITER_SCRIPT = `
local key = KEYS[1]
local op = ARGV[1]
local permits = tonumber(ARGV[2])
local timeout = tonumber(ARGV[3])
local limit = tonumber(ARGV[4])
local period = tonumber(ARGV[5])
local now
if ARGV[7] ~= '' then
  now = tonumber(ARGV[7])
else
  local t = redis.call('TIME')
  now = t[1] * 1000 + t[2] / 1000
end
local cycle = math.floor(now / period)
local p = limit
local seq = 0
local v = redis.call('GET', key)
if v then
  local sp, c, sr, ss = struct.unpack('dddd', v)
  seq = ss
  if sr == period then
    p = sp
    if c ~= cycle then p = math.min(p + (cycle - c) * limit, limit) end
  end
end
local done = 0
local wait, grant = 0, cycle
local write = false
if op == 'r' then
  if p < permits then
    local full = math.floor((permits - p - 1) / limit)
    wait = full * period + ((cycle + 1) * period - now)
    grant = cycle + full + 1
  end
  if timeout >= wait then
    p = p - permits
    seq = seq + 1
    done = 1
  end
  write = timeout >= 0
elseif op == 'd' then
  wait = p
  if p > 0 then
    p = 0
    seq = seq + 1
    done = 1
  end
  write = true
elseif op == 'g' then
  if seq == tonumber(ARGV[8]) and tonumber(ARGV[9]) > now then
    p = math.min(p + permits, limit)
    seq = seq + 1
    done = 1
    write = true
  end
end
if write then
  local ttl = 3 * period
  if p < 0 then ttl = (math.ceil(-p / limit) + 3) * period end
  ttl = math.ceil(math.max(tonumber(ARGV[6]), ttl))
  redis.call('SET', key, struct.pack('dddd', p, cycle, period, seq), 'PX', ttl)
end
return { done, math.ceil(wait * 1000), cycle, p, seq, math.floor(now * 1000 + 0.5) }
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

/** What the script answered, parsed. */
export interface ScriptReply {
  /** `r`: the permits were reserved; `d`: permissions were drained; `g`: the permits came back. */
  readonly done: boolean;
  /** `r`: the wait for the permits, ms (reserved or not); `d`: the permissions there were before. */
  readonly waitMs: number;
  /** The cycle of `now`, counted from the Unix epoch. */
  readonly cycle: number;
  /** Permissions left in `cycle` after the operation (negative: later cycles reserved). */
  readonly permissions: number;
  /** The hash's sequence number after the operation (a reservation's own, for a give-back). */
  readonly seq: number;
  /** The time the script used, ms since the epoch (Redis `TIME`, or the `now` given). */
  readonly now: number;
  /** `r`: the cycle the permits belong to (the cycle the wait ends in). */
  readonly grantCycle: number;
  /** The wait for one permit after the operation, ms (what `metrics.waitMs` shows). */
  readonly waitOneMs: number;
}

/**
 * The part of a node-redis client (or cluster) a RedisRateLimiter uses: `createClient()` from
 * `redis` 6 satisfies it once connected.
 *
 * @example
 * ```ts
 * const client: ScriptClient = await createClient({ url: process.env.REDIS_URL }).on('error', log.warn).connect();
 * ```
 */
export interface ScriptClient {
  /** Whether the connection is up (node-redis `isReady`). */
  readonly isReady: boolean;
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/**
 * Runs the script on `keys` (the limiter's one key): `EVALSHA`, and on `NOSCRIPT` (a restarted or failed-over Redis has
 * an empty script cache) `EVAL` once, which loads it again. Rejects with the client's error
 * otherwise (including its command timeout).
 */
export function runScript(client: ScriptClient, keys: string[], argv: string[]): Promise<ScriptReply> {
  const options = { keys, arguments: argv };
  const parse = (reply: unknown): ScriptReply => parseReply(reply, argv);
  return client.evalSha(RATE_LIMITER_SCRIPT_SHA, options).then(parse, (error: unknown) => {
    if (!isNoScript(error)) throw error;
    return client.eval(RATE_LIMITER_SCRIPT, options).then(parse);
  });
}

/** Whether Redis answered `NOSCRIPT` (its script cache does not hold the script: restarted, failed over, flushed). */
export function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/**
 * The script's 6 integers as a {@link ScriptReply} (µs to ms), with what follows from them and
 * from the call's `argv` (permits, limitForPeriod, period); throws on anything else.
 */
export function parseReply(reply: unknown, argv: readonly string[]): ScriptReply {
  if (!Array.isArray(reply) || reply.length !== 6) throw new Error(`RedisRateLimiter: unexpected script reply ${JSON.stringify(reply)}`);
  const r = reply as number[];
  const waitMs = Number(r[1]) / 1000;
  const cycle = Number(r[2]);
  const permissions = Number(r[3]);
  const now = Number(r[5]) / 1000;
  const limit = Number(argv[3]);
  const period = Number(argv[4]);
  // The permits' cycle: the one the wait ends in (state.ts's waitForPermits: full cycles + 1).
  const grantCycle = argv[0] === 'r' && waitMs > 0 ? cycle + Math.floor((-permissions - 1) / limit) + 1 : cycle;
  const waitOneMs = permissions >= 1 ? 0 : Math.floor(-permissions / limit) * period + ((cycle + 1) * period - now);
  return { done: Number(r[0]) === 1, waitMs, cycle, permissions, seq: Number(r[4]), now, grantCycle, waitOneMs };
}
