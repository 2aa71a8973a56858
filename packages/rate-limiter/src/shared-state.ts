import type { PermitState } from './permit-state.js';
import { drain, giveBack, nextState, refresh, type RateLimiterState } from './state.js';

/**
 * The layout of a shared limiter's `SharedArrayBuffer` (byte offsets):
 *
 * - 0: the state word, one 64-bit integer updated by `Atomics.compareExchange`: the permissions
 *   left (int32, low half) and the cycle they belong to (modulo 2^32, high half);
 * - 8: `limitForPeriod` (int32, `Atomics.load` / `Atomics.store`);
 * - 12: a tag that says the buffer holds this state ({@link TAG});
 * - 16: the time base (0: the process's monotonic clock, 1: an injected `Clock`);
 * - 24: the origin, cycle 0's start in that time base (float64, written once before sharing);
 * - 32: `limitRefreshPeriod`, ms (float64, written once before sharing).
 */
export const SHARED_STATE_BYTES = 40;
const LIMIT = 2; // int32 index
const TAGGED = 3;
const BASE = 4;
const ORIGIN = 3; // float64 index
const PERIOD = 4;
const TAG = 0x42_57_52_4c; // 'BWRL'
/** The largest `limitForPeriod` the state word holds (permissions are an int32). */
export const MAX_SHARED_LIMIT = 0x7fff_ffff;
const MIN_PERMISSIONS = -0x8000_0000;
const TWO_32 = 0x1_0000_0000;

/** Which time a shared state counts in: the process's monotonic clock, or an injected `Clock` (one thread). */
export type TimeBase = 'monotonic' | 'clock';

/**
 * The process's monotonic clock in ms (`process.hrtime()`): one origin for every thread of the
 * process, where `performance.now()` counts from each thread's own start. `systemClock`'s
 * `performance.now()` is this clock minus the thread's start, so a wait computed here and armed on
 * `systemClock` ends at the same instant.
 */
export function monotonicNow(): number {
  const t = process.hrtime();
  return t[0] * 1e3 + t[1] / 1e6;
}

// One 64-bit scratch word seen as two int32 halves: packs and unpacks the state word without BigInt arithmetic.
const scratch = new BigInt64Array(1);
const halves = new Int32Array(scratch.buffer);

/**
 * A limiter's cycle state in a `SharedArrayBuffer`: any thread holding the buffer reserves from
 * the same permits. Every change is Resilience4j's `AtomicRateLimiter` loop for real: read the
 * state word, read the time (after the word, so no thread computes with a time earlier than the
 * state's own), compute the next state with state.ts's pure functions, `compareExchange` it in,
 * and start again if another thread changed the word meanwhile. A refusal and a look (the metrics)
 * write nothing.
 */
export class SharedPermitState implements PermitState {
  readonly buffer: SharedArrayBuffer;
  readonly timeBase: TimeBase;
  readonly limitRefreshPeriod: number;
  readonly #word: BigInt64Array;
  readonly #ints: Int32Array;
  readonly #origin: number;
  readonly #now: () => number;
  /** The word this thread last wrote: while the state still holds it, no other thread changed anything since. */
  #mine = -1n;
  lastWaitMs = 0;
  reservedAt = 0;
  interleaved = false;

  /** A new state: a full cycle of `limitForPeriod` permits, cycle 0 starting now. */
  static create(limitForPeriod: number, limitRefreshPeriod: number, timeBase: TimeBase, now: () => number): SharedPermitState {
    const buffer = new SharedArrayBuffer(SHARED_STATE_BYTES);
    const ints = new Int32Array(buffer);
    const floats = new Float64Array(buffer);
    halves[0] = limitForPeriod;
    halves[1] = 0;
    new BigInt64Array(buffer, 0, 1)[0] = scratch[0]!;
    ints[LIMIT] = limitForPeriod;
    ints[BASE] = timeBase === 'clock' ? 1 : 0;
    floats[PERIOD] = limitRefreshPeriod;
    floats[ORIGIN] = now();
    Atomics.store(ints, TAGGED, TAG);
    return new SharedPermitState(buffer, now);
  }

  /** Whether `buffer` holds a state {@link create} made. */
  static holds(buffer: SharedArrayBuffer): boolean {
    return buffer.byteLength === SHARED_STATE_BYTES && Atomics.load(new Int32Array(buffer), TAGGED) === TAG;
  }

  /** The time base the state in `buffer` counts in (`buffer` must be one {@link holds} accepts). */
  static timeBaseOf(buffer: SharedArrayBuffer): TimeBase {
    return new Int32Array(buffer)[BASE] === 1 ? 'clock' : 'monotonic';
  }

  /** Attaches to the state in `buffer` (one {@link holds} accepts), reading time with `now` (its time base). */
  constructor(buffer: SharedArrayBuffer, now: () => number) {
    this.buffer = buffer;
    this.#word = new BigInt64Array(buffer, 0, 1);
    this.#ints = new Int32Array(buffer);
    const floats = new Float64Array(buffer);
    this.#origin = floats[ORIGIN]!;
    this.limitRefreshPeriod = floats[PERIOD]!;
    this.timeBase = SharedPermitState.timeBaseOf(buffer);
    this.#now = now;
  }

  get limitForPeriod(): number {
    return Atomics.load(this.#ints, LIMIT);
  }

  now(): number {
    return this.#now();
  }

  current(): RateLimiterState {
    const seen = Atomics.load(this.#word, 0);
    const now = this.#now();
    return refresh(this.#unpack(seen, now), now);
  }

  reserve(permits: number, timeout: number): number {
    const word = this.#word;
    for (;;) {
      const seen = Atomics.load(word, 0);
      const now = this.#now();
      const state = this.#unpack(seen, now);
      const next = nextState(state, permits, timeout, now);
      this.lastWaitMs = next.waitMs;
      this.reservedAt = now;
      // Refused (or so deep a reservation that the permissions would leave 32 bits): only a new cycle is written, as the in-process state would keep it.
      if (timeout < next.waitMs || next.permissions < MIN_PERMISSIONS) {
        if (next.cycle === state.cycle) return this.#unchanged(-1);
        if (this.#swap(seen, refresh(state, now))) return -1;
      } else if (this.#swap(seen, next)) return next.waitMs;
    }
  }

  drain(): number {
    for (;;) {
      const seen = Atomics.load(this.#word, 0);
      const now = this.#now();
      const state = this.#unpack(seen, now);
      const current = refresh(state, now);
      if (current.permissions <= 0 && current.cycle === state.cycle) return this.#unchanged(current.permissions);
      if (this.#swap(seen, drain(current, now))) return current.permissions;
    }
  }

  changeLimit(limitForPeriod: number): void {
    Atomics.store(this.#ints, LIMIT, limitForPeriod);
  }

  giveBack(permits: number, now: number): boolean {
    const seen = Atomics.load(this.#word, 0);
    if (seen !== this.#mine) return false;
    return this.#swap(seen, giveBack(this.#unpack(seen, now), permits, now));
  }

  /** Nothing written: `result`, and nothing interleaved. */
  #unchanged(result: number): number {
    this.interleaved = false;
    return result;
  }

  /** Writes `next` if the word still is `seen`; records whether another thread had written since this one last did. */
  #swap(seen: bigint, next: RateLimiterState): boolean {
    halves[0] = next.permissions;
    halves[1] = next.cycle | 0;
    const value = scratch[0]!;
    if (Atomics.compareExchange(this.#word, 0, seen, value) !== seen) return false;
    this.interleaved = seen !== this.#mine;
    this.#mine = value;
    return true;
  }

  /**
   * The state a word holds, read at `now`. The word keeps the cycle modulo 2^32: the full cycle is
   * the one of `now` minus how far the word's is behind it, taken in [-1, 2^32 − 1) (a cycle one
   * ahead is another thread's clock a hair ahead of this one's; nextState then counts `now` in it).
   */
  #unpack(word: bigint, now: number): RateLimiterState {
    scratch[0] = word;
    const permissions = halves[0]!;
    const period = this.limitRefreshPeriod;
    const origin = this.#origin;
    const cycle = Math.floor((now - origin) / period);
    let behind = ((cycle | 0) - halves[1]!) | 0;
    if (behind < -1) behind += TWO_32;
    return { limitForPeriod: Atomics.load(this.#ints, LIMIT), limitRefreshPeriod: period, origin, cycle: cycle - behind, permissions, waitMs: 0 };
  }
}
