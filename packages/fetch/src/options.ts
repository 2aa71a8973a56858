import { ConfigReader, type Clock, type Policy } from '@breakwater/core';
import { describeValue } from '@breakwater/core/internal';

/**
 * A `fetch`: what {@link resilientFetch} takes (its `fetch` option) and returns.
 *
 * @example
 * ```ts
 * const plain: FetchFunction = globalThis.fetch;
 * ```
 */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * A circuit breaker as the per-origin calls use it: its permission API (Resilience4j's
 * `tryAcquirePermission` / `onResult` / `onError` / `releasePermission`, for calls the breaker
 * does not run itself) and the clock it measures durations with. A `CircuitBreaker` of
 * `@breakwater/circuit-breaker` is one.
 *
 * @example
 * ```ts
 * const breaker: OriginBreaker = CircuitBreaker.of('https://api.example.com');
 * ```
 */
export interface OriginBreaker {
  /** The breaker's name: the origin it guards. */
  readonly name: string;
  /** The clock the call's duration is measured on. */
  readonly config: { readonly clock: Clock };
  /** Takes a permission, or throws `CallNotPermittedError`: the attempt is then refused, never sent. */
  acquirePermission(): void;
  /** Gives the permission back without recording the call (a 4xx but 429; the caller's abort). */
  releasePermission(): void;
  /** Records a response that came back (the breaker's `recordResult` may count it as a failure). */
  onResult(durationMs: number, value: unknown): void;
  /** Records a failed attempt (the breaker's `recordExceptions` / `ignoreExceptions` apply). */
  onError(durationMs: number, error: unknown): void;
}

/**
 * Where the per-origin breakers come from: a `CircuitBreakerRegistry` of
 * `@breakwater/circuit-breaker` (get-or-create by name; each breaker named by its origin, e.g.
 * `https://api.example.com`, and configured by the registry's configs).
 *
 * @example
 * ```ts
 * const perOrigin: OriginBreakers = new CircuitBreakerRegistry({ defaultConfig: { slidingWindowSize: 20 } });
 * ```
 */
export interface OriginBreakers {
  /** The breaker of an origin (`https://api.example.com`), created on first use. */
  get(name: string): OriginBreaker;
}

/**
 * Options of {@link resilientFetch} (contract: docs/fetch.md).
 *
 * @example
 * ```ts
 * const options: ResilientFetchOptions = { perOrigin: new CircuitBreakerRegistry(), retryOn: (req) => req.url.includes('/search') };
 * ```
 */
export interface ResilientFetchOptions {
  /** The fetch that sends each attempt. Default `globalThis.fetch`, read when `resilientFetch` is called. */
  readonly fetch?: FetchFunction | undefined;
  /**
   * Which requests the pipeline may send again after a failure, instead of the idempotent ones
   * (GET, HEAD, OPTIONS, PUT, DELETE, TRACE, or an `Idempotency-Key` header). A predicate that
   * throws is reported once and the request is not retried.
   */
  readonly retryOn?: ((request: Request) => boolean) | undefined;
  /** Retry every request, idempotent or not. Default false; give this or `retryOn`, not both. */
  readonly retryNonIdempotent?: boolean | undefined;
  /** Put the server's `Retry-After` on the error (`retryAfterMs`), for the retry's next wait. Default true. */
  readonly respectRetryAfter?: boolean | undefined;
  /** One circuit breaker per origin, got from this registry by the origin's name, inside the pipeline. */
  readonly perOrigin?: OriginBreakers | undefined;
}

const KEYS = ['fetch', 'retryOn', 'retryNonIdempotent', 'respectRetryAfter', 'perOrigin'] as const;

/**
 * Every option of {@link resilientFetch}, by name.
 *
 * @example
 * ```ts
 * RESILIENT_FETCH_OPTIONS.includes('perOrigin'); // true
 * ```
 */
export const RESILIENT_FETCH_OPTIONS = KEYS;

/** The options with defaults applied, checked once. */
export interface ResolvedFetchOptions {
  readonly fetch: FetchFunction;
  readonly retryOn: ((request: Request) => boolean) | undefined;
  readonly retryNonIdempotent: boolean;
  readonly respectRetryAfter: boolean;
  readonly perOrigin: OriginBreakers | undefined;
}

/** Checks `resilientFetch`'s arguments: a clear error naming the option, the value and what it must be. */
export function resolveFetchOptions(pipeline: unknown, options: ResilientFetchOptions | undefined): ResolvedFetchOptions {
  if (typeof pipeline !== 'object' || pipeline === null || typeof (pipeline as Partial<Policy>).execute !== 'function') {
    throw new TypeError(
      `resilientFetch: pipeline must be a Policy (a decorate() pipeline, a Retry, a CircuitBreaker, …: an object with execute(fn, options)), got ${describeValue(pipeline)}`,
    );
  }
  const read: ConfigReader<ResilientFetchOptions> = ConfigReader.unnamed<ResilientFetchOptions>('resilientFetch', options, [...KEYS]);
  read.exclusive('retryOn', 'retryNonIdempotent');
  const fetch = read.fn<FetchFunction>('fetch') ?? (globalThis.fetch as FetchFunction | undefined);
  if (fetch === undefined) read.fail('fetch', 'a fetch function (this runtime has no globalThis.fetch)', undefined, 'type');
  const perOrigin = read.instance<OriginBreakers>(
    'perOrigin',
    'a CircuitBreakerRegistry (an object with get(name))',
    (v) => typeof v === 'object' && v !== null && typeof (v as Partial<OriginBreakers>).get === 'function',
  );
  return Object.freeze({
    fetch,
    retryOn: read.fn<(request: Request) => boolean>('retryOn'),
    retryNonIdempotent: read.boolean('retryNonIdempotent', false),
    respectRetryAfter: read.boolean('respectRetryAfter', true),
    perOrigin,
  });
}
