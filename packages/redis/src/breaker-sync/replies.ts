// The replies of the fleet protocol's scripts (scripts.ts), decoded: one decoder per script, each
// returning what the script said as a discriminated union (`kind`), or throwing when the reply is
// not one the script gives — a store error (reported as `storeError`, the reply ignored), as the
// limiter's checkReply does. Decoders check the shape (types, the status a script returns, the
// ranges it keeps); the values an operator may have typed in the state hash come back as strings
// (`ignoredOverride`, `until`, `untilIgnored`) and the member bounds the durations it uses
// (bounds.ts) as before.

/** What every reply that read the state hash carries: its `ver`, and an `override` value not believed ('' if none). */
interface StateRead {
  readonly ver: number;
  readonly ignoredOverride: string;
}

/** The reply of `opened` (an instance opened on its own). */
export type OpenedReply = StateRead &
  (
    | { readonly kind: 'recorded'; readonly count: number }
    | { readonly kind: 'fleetOpened'; readonly count: number; readonly waitMs: number; readonly attempt: number }
    | {
        readonly kind: 'alreadyOpen';
        readonly count: number;
        readonly remainingMs: number;
        readonly attempt: number;
        readonly until: string;
        readonly untilIgnored: string;
      }
    | { readonly kind: 'overridden' }
  );

/** The reply of `tryLease` (the fleet's wait may be over). */
export type TryLeaseReply = StateRead &
  (
    | { readonly kind: 'closed' | 'overridden' | 'stale' }
    | { readonly kind: 'granted'; readonly leaseMs: number; readonly attempt: number; readonly untilIgnored: string }
    | { readonly kind: 'waiting'; readonly remainingMs: number; readonly untilIgnored: string }
    | { readonly kind: 'leaseHeld'; readonly ttlMs: number; readonly attempt: number; readonly untilIgnored: string }
  );

/** The reply of `decide` (the lease holder's trial decided). */
export type DecideReply = { readonly kind: 'lost' } | { readonly kind: 'published'; readonly ver: number; readonly waitMs: number };

/** The reply of `renew` (keep the lease while a trial call runs). */
export type RenewReply = { readonly kind: 'renewed' | 'lost' };

/** The reply of `abandon` (give the lease back). */
export type AbandonReply = { readonly kind: 'released' | 'notHeld' };

/** The reply of `read` (the fleet state). */
export type ReadReply = StateRead &
  (
    | { readonly kind: 'overridden'; readonly override: 'FORCED_OPEN' | 'DISABLED' }
    | { readonly kind: 'open'; readonly remainingMs: number; readonly attempt: number; readonly until: string; readonly untilIgnored: string }
    | { readonly kind: 'closed' }
  );

/** The reply of `override` (an operator's command). */
export type OverrideReply = { readonly kind: 'written'; readonly ver: number };

/** The highest `ver` a script returns: 2^50 (a larger one it reads as 0), bumped once. */
const MAX_VER = 2 ** 50 + 1;

/** A reply's elements, checked one by one; a check that fails throws the store error. */
class Fields {
  constructor(
    readonly script: string,
    readonly raw: readonly unknown[],
  ) {}

  /** Element `i`: an integer in [min, max]. */
  int(i: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const v = this.raw[i];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) this.bad(`[${i}] is ${describe(v)}, not an integer in [${min}, ${max}]`);
    return v;
  }

  /** Element `i`: a string. */
  str(i: number): string {
    const v = this.raw[i];
    if (typeof v !== 'string') this.bad(`[${i}] is ${describe(v)}, not a string`);
    return v;
  }

  /** The status (element 0) among `0 .. last`. */
  status(last: number): number {
    return this.int(0, 0, last);
  }

  bad(why: string): never {
    return unexpected(this.script, why);
  }
}

function unexpected(script: string, why: string): never {
  throw new Error(`RedisBreakerSync: unexpected reply to ${script}: it ${why}, which the script never answers`);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value.length > 20 ? `a string of ${value.length} characters` : `'${value}'`;
  if (typeof value === 'number' || value === null || value === undefined || typeof value === 'boolean') return String(value);
  return `a ${Array.isArray(value) ? 'array' : typeof value}`;
}

/** A reply that must be an array of `length` elements. */
function fields(script: string, raw: unknown, length: number): Fields {
  if (!Array.isArray(raw)) return unexpected(script, `is ${describe(raw)}, not an array`);
  if (raw.length !== length) return unexpected(script, `has ${raw.length} elements, not ${length}`);
  return new Fields(script, raw);
}

/**
 * Decodes `opened`'s reply {status, count, remaining, ver, ignored override, attempt, until, until
 * not believed}: 0 recorded, 1 the fleet opened now, 2 it was open already, 3 an override holds it.
 */
export function decodeOpened(raw: unknown): OpenedReply {
  const f = fields('opened', raw, 8);
  const status = f.status(3);
  const ver = f.int(3, 0, MAX_VER);
  const ignoredOverride = f.str(4);
  if (status === 3) return { kind: 'overridden', ver, ignoredOverride };
  const count = f.int(1, 0);
  if (status === 0) return { kind: 'recorded', count, ver, ignoredOverride };
  const attempt = f.int(5, 1);
  if (status === 1) return { kind: 'fleetOpened', count, waitMs: f.int(2, 1), ver, ignoredOverride, attempt };
  return { kind: 'alreadyOpen', count, remainingMs: f.int(2, 0), ver, ignoredOverride, attempt, until: f.str(6), untilIgnored: f.str(7) };
}

/**
 * Decodes `tryLease`'s reply {status, ms, ver, attempt, ignored override, until not believed}: 0
 * closed, 1 granted, 2 waiting, 3 overridden, 4 another instance holds the lease, 5 stale.
 */
export function decodeTryLease(raw: unknown): TryLeaseReply {
  const f = fields('tryLease', raw, 6);
  const status = f.status(5);
  const ms = f.int(1, 0);
  const ver = f.int(2, 0, MAX_VER);
  const attempt = f.int(3, 1);
  const ignoredOverride = f.str(4);
  const untilIgnored = f.str(5);
  switch (status) {
    case 1:
      return { kind: 'granted', leaseMs: ms, attempt, untilIgnored, ver, ignoredOverride };
    case 2:
      return { kind: 'waiting', remainingMs: ms, untilIgnored, ver, ignoredOverride };
    case 4:
      return { kind: 'leaseHeld', ttlMs: ms, attempt, untilIgnored, ver, ignoredOverride };
    default:
      return { kind: status === 0 ? 'closed' : status === 3 ? 'overridden' : 'stale', ver, ignoredOverride };
  }
}

/** Decodes `decide`'s reply {status, remaining ms, ver}: 0 the lease was lost, 1 published. */
export function decodeDecide(raw: unknown): DecideReply {
  const f = fields('decide', raw, 3);
  if (f.status(1) === 0) return { kind: 'lost' };
  return { kind: 'published', waitMs: f.int(1, 0), ver: f.int(2, 0, MAX_VER) };
}

/** Decodes `renew`'s reply {1} (renewed) or {0} (lost). */
export function decodeRenew(raw: unknown): RenewReply {
  return { kind: fields('renew', raw, 1).status(1) === 1 ? 'renewed' : 'lost' };
}

/** Decodes `abandon`'s reply: 1 (the lease was this instance's, now freed) or 0. */
export function decodeAbandon(raw: unknown): AbandonReply {
  if (raw !== 0 && raw !== 1) return unexpected('abandon', `is ${describe(raw)}, not 0 or 1`);
  return { kind: raw === 1 ? 'released' : 'notHeld' };
}

/**
 * Decodes `read`'s reply {override or '', remaining ms (-1: not open), ver, ignored override,
 * attempt, until as stored, until not believed}.
 */
export function decodeRead(raw: unknown): ReadReply {
  const f = fields('read', raw, 7);
  const override = f.str(0);
  const remainingMs = f.int(1, -1);
  const ver = f.int(2, 0, MAX_VER);
  const ignoredOverride = f.str(3);
  const attempt = f.int(4, 1);
  const until = f.str(5);
  const untilIgnored = f.str(6);
  if (override === 'FORCED_OPEN' || override === 'DISABLED') return { kind: 'overridden', override, ver, ignoredOverride };
  if (override !== '') return f.bad(`says override '${override}'`);
  if (remainingMs < 0) return { kind: 'closed', ver, ignoredOverride };
  return { kind: 'open', remainingMs, attempt, until, untilIgnored, ver, ignoredOverride };
}

/** Decodes `override`'s reply: the new `ver`. */
export function decodeOverride(raw: unknown): OverrideReply {
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > MAX_VER) return unexpected('override', `is ${describe(raw)}, not a ver`);
  return { kind: 'written', ver: raw };
}
