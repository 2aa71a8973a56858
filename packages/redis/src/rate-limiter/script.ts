import { createHash } from 'node:crypto';

/**
 * The one Lua script of a RedisRateLimiter: Resilience4j's `AtomicRateLimiter` cycle arithmetic
 * (the same as `nextState` in @breakwater/rate-limiter's state.ts, with the origin at the Unix
 * epoch), run atomically on one hash. See the README's "Lua contract" for the table.
 *
 * - `KEYS[1]`: the limiter's hash (fields `p` permissions, `c` cycle, `r` period, `s` sequence).
 * - `ARGV`: op (`r` reserve, `d` drain, `g` give back), permits, timeout ms (-1: look only),
 *   limitForPeriod, limitRefreshPeriod ms, least TTL ms, now ms (`''`: Redis `TIME`), and for `g`
 *   the reservation's sequence number and the time its permits are there.
 * - Reply: 8 strings: done (1/0), wait ms, cycle, permissions, sequence, now, grant cycle, wait
 *   ms for one permit after the operation.
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
local minTtl = tonumber(ARGV[6])
local now
if ARGV[7] ~= '' then
  now = tonumber(ARGV[7])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
local cycle = math.floor(now / period)
local h = redis.call('HMGET', key, 'p', 'c', 'r', 's')
local p = limit
if h[1] and h[3] == ARGV[5] then
  p = tonumber(h[1])
  local c = tonumber(h[2])
  if c ~= cycle then p = math.min(p + (cycle - c) * limit, limit) end
end
local seq = tonumber(h[4]) or 0
local function waitFor(n, available)
  if available >= n then return 0, cycle end
  local full = math.floor((n - (available + limit) + limit - 1) / limit)
  return full * period + ((cycle + 1) * period - now), cycle + full + 1
end
local function save(took)
  if took then seq = seq + 1 end
  redis.call('HSET', key, 'p', p, 'c', cycle, 'r', ARGV[5], 's', seq)
  local deficit = 0
  if p < 0 then deficit = math.ceil(-p / limit) end
  redis.call('PEXPIRE', key, math.ceil(math.max(minTtl, (deficit + 3) * period)))
end
local done = 0
local wait, grant = 0, cycle
if op == 'r' then
  wait, grant = waitFor(permits, p)
  if timeout >= wait then
    p = p - permits
    done = 1
  end
  -- A refusal stores the refreshed state too (as Resilience4j's compareAndSet does): the refill
  -- of this cycle was made with the limit in force now.
  if timeout >= 0 then save(done == 1) end
elseif op == 'd' then
  wait = p
  if p > 0 then
    p = 0
    done = 1
  end
  save(done == 1)
elseif op == 'g' then
  if seq == tonumber(ARGV[8]) and tonumber(ARGV[9]) > now then
    p = math.min(p + permits, limit)
    save(true)
    done = 1
  end
end
local one = waitFor(1, p)
local f = '%.17g'
return { tostring(done), string.format(f, wait), string.format(f, cycle), string.format(f, p), string.format(f, seq), string.format(f, now), string.format(f, grant), string.format(f, one) }
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
 * Runs the script on `key`: `EVALSHA`, and on `NOSCRIPT` (a restarted or failed-over Redis has
 * an empty script cache) `EVAL` once, which loads it again. Rejects with the client's error
 * otherwise (including its command timeout).
 */
export async function runScript(client: ScriptClient, key: string, argv: string[]): Promise<ScriptReply> {
  const options = { keys: [key], arguments: argv };
  let reply: unknown;
  try {
    reply = await client.evalSha(RATE_LIMITER_SCRIPT_SHA, options);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    reply = await client.eval(RATE_LIMITER_SCRIPT, options);
  }
  return parseReply(reply);
}

/** The script's 8 strings as a {@link ScriptReply}; throws on anything else. */
export function parseReply(reply: unknown): ScriptReply {
  if (!Array.isArray(reply) || reply.length !== 8) throw new Error(`RedisRateLimiter: unexpected script reply ${JSON.stringify(reply)}`);
  const n = reply.map((x) => Number(x));
  return { done: n[0] === 1, waitMs: n[1]!, cycle: n[2]!, permissions: n[3]!, seq: n[4]!, now: n[5]!, grantCycle: n[6]!, waitOneMs: n[7]! };
}
