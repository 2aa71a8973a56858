import { ConfigReader, systemClock, type Clock, type Duration, type Outcome } from '@breakwater/core';
import { describeValue, isPlainObject } from '@breakwater/core/internal';
import { resolveRateLimiterConfig, type RateLimiterConfig } from './config.js';
import { MAX_SHARED_LIMIT, monotonicNow, SHARED_STATE_BYTES, SharedPermitState } from './shared-state.js';
import type { PermitState } from './permit-state.js';

/** The `type` of every {@link SharedRateLimiterHandle}. */
const HANDLE_TYPE = 'breakwater.sharedRateLimiter';

/**
 * What passes a shared rate limiter to another worker thread: a plain, structured-cloneable object
 * (`postMessage`, `workerData`, a `PoolBulkhead.workers` payload) holding the `SharedArrayBuffer`
 * of the limit's state, the limiter's name, and the per-thread options a thread attaching takes by
 * default. Get one from `limiter.handle`; attach with `RateLimiter.shared(handle)`.
 *
 * @example
 * ```ts
 * const limiter = RateLimiter.shared('pg', { limitForPeriod: 100, limitRefreshPeriod: '1s' });
 * const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: { pg: limiter.handle } });
 * ```
 */
export interface SharedRateLimiterHandle {
  readonly type: 'breakwater.sharedRateLimiter';
  /** The limiter's name (every thread's limiter has it). */
  readonly name: string;
  /** The state every thread reserves from: `SHARED_STATE_BYTES` bytes, laid out in shared-state.ts. */
  readonly buffer: SharedArrayBuffer;
  /** The default `timeoutDuration` of a thread attaching, ms (the sharing thread's, when it took the handle). */
  readonly timeoutDuration: number;
  /** The default `writableStackTraceEnabled` of a thread attaching. */
  readonly writableStackTraceEnabled: boolean;
}

/**
 * The options of a thread attaching to a shared limiter with `RateLimiter.shared(handle, options)`:
 * the ones that stay per thread. `limitForPeriod` and `limitRefreshPeriod` come from the shared
 * state. `clock` must be given exactly when the sharing limiter was given one (an injected clock
 * cannot cross threads: such a state is for one thread's tests).
 *
 * @example
 * ```ts
 * const limiter = RateLimiter.shared(workerData.pg, { timeoutDuration: '2s', drainPermissionsOnResult: tooMany });
 * ```
 */
export interface SharedRateLimiterOptions {
  /** This thread's longest wait; default: the handle's. */
  readonly timeoutDuration?: Duration | undefined;
  /** Runs after each of this thread's decorated calls; `true` drains the shared cycle. */
  readonly drainPermissionsOnResult?: ((outcome: Outcome) => boolean) | undefined;
  /** Default: the handle's. */
  readonly writableStackTraceEnabled?: boolean | undefined;
  /** Only when the sharing limiter was given a clock: the same clock (its waits and its time). */
  readonly clock?: Clock | undefined;
}

const ATTACH_KEYS = ['timeoutDuration', 'drainPermissionsOnResult', 'writableStackTraceEnabled', 'clock'] as const;

/**
 * `RateLimiter.shared`'s two forms, building limiters of type `L` with `build` (the RateLimiter
 * constructor, given a state). Generic so that this module needs nothing of `rate-limiter.ts`
 * (which uses it): `RateLimiter.shared` is `sharedFactory<SharedRateLimiter>(…)`, typed there as a
 * `SharedRateLimiterFactory`.
 */
export function sharedFactory<L>(build: (name: string, config: RateLimiterConfig, state: PermitState) => L): {
  (name: string, config?: RateLimiterConfig): L;
  (handle: SharedRateLimiterHandle, options?: SharedRateLimiterOptions): L;
} {
  return ((nameOrHandle: unknown, config?: unknown) => {
    const { name, config: c, state } = openShared(nameOrHandle, config);
    return build(name, c, state);
  }) as ReturnType<typeof sharedFactory<L>>;
}

/** A limiter to build over a shared state: its name, its config, and the state. */
interface SharedOpening {
  readonly name: string;
  readonly config: RateLimiterConfig;
  readonly state: SharedPermitState;
}

/**
 * `RateLimiter.shared(name, config)` (a new shared state) or `RateLimiter.shared(handle, options)`
 * (attach to one): checks the arguments and returns what to build the limiter from.
 */
function openShared(nameOrHandle: unknown, config: unknown): SharedOpening {
  if (typeof nameOrHandle === 'string') return create(nameOrHandle, config as RateLimiterConfig | undefined);
  if (!isPlainObject(nameOrHandle) || nameOrHandle['type'] !== HANDLE_TYPE || typeof nameOrHandle['name'] !== 'string') {
    throw new TypeError(
      `RateLimiter.shared: expected a name and a config, or a handle from limiter.handle ({ type: '${HANDLE_TYPE}', name, buffer, … }), got ${describeValue(nameOrHandle)}`,
    );
  }
  return attach(nameOrHandle as unknown as SharedRateLimiterHandle, config as SharedRateLimiterOptions | undefined);
}

function create(name: string, config: RateLimiterConfig | undefined): SharedOpening {
  const c = resolveRateLimiterConfig(name, config);
  if (c.limitForPeriod > MAX_SHARED_LIMIT) {
    throw new RangeError(`RateLimiter '${name}': limitForPeriod of a shared limiter must be an integer in [1, ${MAX_SHARED_LIMIT}], got ${c.limitForPeriod}`);
  }
  const clock = c.clock;
  const monotonic = clock === systemClock;
  const state = SharedPermitState.create(
    c.limitForPeriod,
    c.limitRefreshPeriod,
    monotonic ? 'monotonic' : 'clock',
    monotonic ? monotonicNow : () => clock.now(),
  );
  return { name, config: config ?? {}, state };
}

function attach(handle: SharedRateLimiterHandle, options: SharedRateLimiterOptions | undefined): SharedOpening {
  const { name, buffer } = handle;
  const read = new ConfigReader<SharedRateLimiterOptions>('RateLimiter', name, options, ATTACH_KEYS);
  if (!(buffer instanceof SharedArrayBuffer) || !SharedPermitState.holds(buffer)) {
    const what = buffer instanceof SharedArrayBuffer ? `a SharedArrayBuffer of ${buffer.byteLength} bytes without a limiter's state` : describeValue(buffer);
    throw new TypeError(
      `RateLimiter '${name}': handle.buffer must be the SharedArrayBuffer of a shared limiter's state (${SHARED_STATE_BYTES} bytes, from limiter.handle), got ${what}`,
    );
  }
  const injected = read.has('clock');
  const clock = read.clock();
  const base = SharedPermitState.timeBaseOf(buffer);
  if (injected !== (base === 'clock') || (injected && clock === systemClock)) {
    throw new TypeError(
      base === 'clock'
        ? `RateLimiter '${name}': clock must be given: this shared state counts time on the clock its limiter was given (one thread's, e.g. a VirtualClock), got ${describeValue(options?.clock)}`
        : `RateLimiter '${name}': clock must not be given: this shared state counts time on the process's monotonic clock, got ${describeValue(options?.clock)}`,
    );
  }
  const state = new SharedPermitState(buffer, injected ? () => clock.now() : monotonicNow);
  const config: RateLimiterConfig = {
    limitForPeriod: state.limitForPeriod,
    limitRefreshPeriod: state.limitRefreshPeriod,
    timeoutDuration: options?.timeoutDuration ?? handle.timeoutDuration,
    writableStackTraceEnabled: options?.writableStackTraceEnabled ?? handle.writableStackTraceEnabled,
    drainPermissionsOnResult: options?.drainPermissionsOnResult,
    clock,
  };
  return { name, config, state };
}

/** The handle of a limiter over `state` (undefined when its state is not shared). */
export function handleOf(state: PermitState, name: string, timeoutDuration: number, writableStackTraceEnabled: boolean): SharedRateLimiterHandle | undefined {
  if (!(state instanceof SharedPermitState)) return undefined;
  return { type: HANDLE_TYPE, name, buffer: state.buffer, timeoutDuration, writableStackTraceEnabled };
}
