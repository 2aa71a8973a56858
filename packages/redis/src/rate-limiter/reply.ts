import { MAX_WAIT_MS } from './script.js';

/**
 * How many integers of the script's reply come before the operations' pairs: the cycle, now in µs,
 * the sequence number, the key's generation, its last cycle reserved, and 1 when it was found lost.
 */
export const REPLY_HEAD = 6;

/** The largest integer a reply may hold: what a double holds exactly. */
/** What the script answered for one operation of a batch, parsed (what `metrics` shows). */
export interface ScriptReply {
  /** A reservation: the permits were reserved; `d`: permissions were drained; `g`: the permits came back. */
  readonly done: boolean;
  /** A reservation: the wait for the permits, ms (reserved or not); `d`: the permissions there were before. */
  readonly waitMs: number;
  /** The cycle of `now`, counted from the Unix epoch. */
  readonly cycle: number;
  /** Permissions left in `cycle` after the operation (negative: later cycles reserved). */
  readonly permissions: number;
  /** The key's sequence number after the operation (a reservation's own, for a give-back). */
  readonly seq: number;
  /** The time the script used, ms since the epoch (Redis `TIME`, or the `now` given). */
  readonly now: number;
  /** A reservation: the cycle the permits belong to (the cycle the wait ends in). */
  readonly grantCycle: number;
  /** The wait for one permit after the operation, ms (what `metrics.waitMs` shows). */
  readonly waitOneMs: number;
}

/**
 * An operation of a batch as the script read it (a `Call`): `code` is the permits of a
 * reservation (`'1'`), `'m'` (look), `'d'` (drain) or `'g'` (give back).
 */
export interface SentOp {
  readonly code: string;
}

/**
 * The script's reply to a batch of `ops` run with `timeoutMs` and `period`, if it is one the script
 * can give; throws (a store error) otherwise. A reply is `6 + 2 × ops` safe integers: the cycle
 * (that of `now`), `now` in µs, the sequence number, the key's generation (all >= 0), its last
 * cycle reserved (>= -1), whether it was found lost (0 or 1), then per operation `w` and the
 * permissions after it, which must agree with the operation — a reservation granted waits at most
 * the batch's timeout (and {@link MAX_WAIT_MS}), a refused one has a negative `w`, a look answers 0,
 * a drain leaves `min(before, 0)`, a give-back answers 0 or 1. Strings, nulls, fractions, a wait
 * the caller would never accept: each is an error, never a grant.
 *
 * @example
 * ```ts
 * checkReply([1000, 1_000_000_000, 4, 7, 1000, 0, 0, 1], [{ code: '1' }], 5000, 1000); // the reply, as numbers
 * checkReply(['1000', '1000000000', '4', '7', '1000', '0', '0', '1'], [{ code: '1' }], 5000, 1000); // throws
 * ```
 */
export function checkReply(reply: unknown, ops: readonly SentOp[], timeoutMs: number, period: number): number[] {
  if (!Array.isArray(reply)) return bad(`is ${describe(reply)}, not an array`);
  if (reply.length !== REPLY_HEAD + 2 * ops.length)
    return bad(`has ${reply.length} elements for ${ops.length} operations (${REPLY_HEAD + 2 * ops.length} expected)`);
  for (let i = 0; i < reply.length; i++) {
    const v: unknown = reply[i];
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) return bad(`[${i}] is ${describe(v)}, not an integer`);
  }
  const raw = reply as number[];
  const cycle = raw[0]!;
  const nowUs = raw[1]!;
  if (cycle < 0 || nowUs < 0 || raw[2]! < 0 || raw[3]! < 0)
    return bad(`starts ${cycle}, ${nowUs}, ${raw[2]!}, ${raw[3]!}: a cycle, a time, a sequence number and a generation are >= 0`);
  if (raw[4]! < -1 || (raw[5] !== 0 && raw[5] !== 1)) return bad(`says ${raw[4]!} for the last cycle reserved (>= -1) and ${raw[5]!} for lost (0 or 1)`);
  // cycle = floor(now / period); now travels rounded to the µs.
  if (Math.abs(Math.floor(nowUs / 1000 / period) - cycle) > 1)
    return bad(`says cycle ${cycle} at ${nowUs} µs, not the cycle of that time (period ${period} ms)`);
  const longest = Math.ceil(Math.min(timeoutMs, MAX_WAIT_MS) * 1000);
  for (let i = 0; i < ops.length; i++) {
    const code = ops[i]!.code;
    const w = raw[REPLY_HEAD + 2 * i]!;
    const after = raw[REPLY_HEAD + 1 + 2 * i]!;
    let fits: boolean;
    if (code === 'm') fits = w === 0;
    else if (code === 'g') fits = w === 0 || w === 1;
    else if (code === 'd') fits = after === Math.min(w, 0);
    // A reservation: granted at once (permits there), granted with a wait within the timeout (taken from later cycles), or refused.
    else fits = w < 0 || (w === 0 ? after >= 0 : w <= longest && after < 0);
    if (!fits)
      return bad(
        `answers ${w}, ${after} to operation ${i} ('${code}'${code === 'm' || code === 'g' || code === 'd' ? '' : `, timeout ${timeoutMs} ms`}), which the script never does`,
      );
  }
  return raw;
}

function bad(why: string): never {
  throw new Error(`RedisRateLimiter: unexpected script reply: it ${why}`);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value.length > 20 ? `a string of ${value.length} characters` : `'${value}'`;
  if (typeof value === 'number' || value === null || value === undefined || typeof value === 'boolean') return String(value);
  return `a ${typeof value === 'object' ? 'non-number object' : typeof value}`;
}

/**
 * Operation `i` (0-based) of a batch's reply as a {@link ScriptReply}: `op` is what was sent
 * (`'r'` for a reservation of `permits`), `seq` the sequence number after it (the reply's third
 * integer plus the operations done up to it), `limit` and `period` the batch's.
 *
 * @example
 * ```ts
 * replyOf(checkReply(raw, batch.calls, 5000, 1000), 0, 'r', seq, 10, 1000).waitMs;
 * ```
 */
export function replyOf(raw: readonly number[], i: number, op: 'r' | 'm' | 'd' | 'g', seq: number, limit: number, period: number): ScriptReply {
  const w = raw[REPLY_HEAD + 2 * i]!;
  const permissions = raw[REPLY_HEAD + 1 + 2 * i]!;
  const cycle = raw[0]!;
  const now = raw[1]! / 1000;
  const waitMs = op === 'r' ? Math.abs(w) / 1000 : op === 'd' ? w : 0;
  const done = op === 'r' ? w >= 0 : op === 'd' ? w > 0 : op === 'g' && w === 1;
  // The permits' cycle: the one the wait ends in (state.ts's waitForPermits: full cycles + 1).
  const grantCycle = op === 'r' && done && waitMs > 0 ? cycle + Math.floor((-permissions - 1) / limit) + 1 : cycle;
  const waitOneMs = permissions >= 1 ? 0 : Math.floor(-permissions / limit) * period + ((cycle + 1) * period - now);
  return { done, waitMs, cycle, permissions, seq, now, grantCycle, waitOneMs };
}
