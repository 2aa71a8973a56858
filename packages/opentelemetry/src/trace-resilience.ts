import { describeValue, didYouMean, isPlainObject } from '@breakwater/core/internal';
import { context, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { errorType, isTraced, subscribe, type TracedComponent } from './trace-events.js';

/**
 * What {@link traceResilience} traces: a `Pipeline` of `decorate()` (its `policies` are read), or
 * any one policy (a `Retry`, a `CircuitBreaker`, …).
 *
 * @example
 * ```ts
 * const traceable: TraceablePipeline = decorate('pay').withRetry(retry).withCircuitBreaker(breaker);
 * ```
 */
export interface TraceablePipeline {
  /** Its name: the name of the spans started for calls with no active span. */
  readonly name: string;
  /** Its kind (`'pipeline'`, or a policy's own: `'retry'`, `'circuitBreaker'`, …). */
  readonly kind: string;
  /** A pipeline's policies, outermost first; absent for a single policy, which is traced itself. */
  readonly policies?: readonly unknown[];
  /** Runs a call through it (a `Policy`'s `execute`). */
  execute(fn: never, options?: never): Promise<unknown>;
}

/**
 * Options of {@link traceResilience}.
 *
 * @example
 * ```ts
 * const options: TraceResilienceOptions = { tracer: trace.getTracer('payments') };
 * ```
 */
export interface TraceResilienceOptions {
  /**
   * The tracer of the spans started for calls with no active span. Without it, nothing is
   * traced: no listener is subscribed, no span is started, and the traced pipeline's calls are
   * the pipeline's own.
   */
  readonly tracer?: Tracer | undefined;
}

/**
 * A pipeline whose calls are traced, from {@link traceResilience}: `execute` and `wrap` are the
 * pipeline's, run so that a call with no active span gets one of its own (named after the
 * pipeline) when a tracer was given.
 *
 * @example
 * ```ts
 * const pay = traceResilience(pipeline, { tracer });
 * await pay.execute((ctx) => pg.requestPayment(req, { signal: ctx.signal }));
 * pay.close(); // no more span events from its components
 * ```
 */
export interface TracedPipeline<P extends TraceablePipeline> {
  /** The pipeline's name: the name of the spans started for calls with no active span. */
  readonly name: string;
  /** The pipeline's kind (`'pipeline'` for a `Pipeline`). */
  readonly kind: P['kind'];
  /** The pipeline traced. */
  readonly pipeline: P;
  /** The pipeline's `execute`, traced. */
  readonly execute: P['execute'];
  /** The pipeline's `wrap` (when it has one), each call of the wrapped function traced. */
  readonly wrap: P extends { readonly wrap: infer W } ? W : undefined;
  /** Stops tracing: the listeners go (a component other traced pipelines hold keeps theirs), calls run as the pipeline's own. Idempotent. */
  close(): void;
}

const OPTIONS = ['tracer'];

/**
 * Puts a pipeline's resilience decisions into the caller's traces (contract:
 * docs/observability.md): while a call runs, the ACTIVE span gets a span event for each retry
 * (`retry`, with the attempt and its wait), each hedge (`hedge`, `hedgeRefused`), a refusal by a
 * breaker, a rate limiter, a bulkhead, an adaptive limiter or throttle (`notPermitted`), a rate
 * limiter's, a bulkhead's or an adaptive limiter's wait (`wait`, on the waiting call's span), a
 * time-out (`timeout`), a chaos injection (`injected`); each with the attributes `breakwater.policy` (the component's kind), `breakwater.name` and, when known,
 * `breakwater.attempt`. A call with no active span gets a span of its own, named after the
 * pipeline, ended when the call settles (status ERROR when it rejects).
 *
 * Without `tracer`, nothing is traced and nothing is subscribed: the components build no event
 * object, and the traced pipeline's `execute` is the pipeline's own.
 *
 * @throws TypeError when `pipeline` is not a policy, an option is unknown, or `tracer` has no `startSpan`
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * import { traceResilience } from '@breakwater/opentelemetry';
 *
 * const pay = traceResilience(decorate('pay').withRetry(retry).withCircuitBreaker(breaker), { tracer: trace.getTracer('payments') });
 * await pay.execute((ctx) => pg.requestPayment(req, { signal: ctx.signal }));
 * // the active span: retry {breakwater.policy: 'retry', breakwater.name: 'pg', breakwater.attempt: 1, breakwater.wait_ms: 500} …
 * ```
 */
export function traceResilience<P extends TraceablePipeline>(pipeline: P, options?: TraceResilienceOptions): TracedPipeline<P> {
  const p = pipeline as TraceablePipeline & { readonly wrap?: unknown };
  if (typeof p !== 'object' || p === null || typeof p.execute !== 'function' || typeof p.name !== 'string' || typeof p.kind !== 'string') {
    throw new TypeError(`traceResilience: pipeline must be a Policy (a Pipeline of decorate(), or one policy), got ${describeValue(pipeline)}`);
  }
  const tracer = readTracer(options);
  const execute = p.execute.bind(p) as (fn: unknown, options?: unknown) => Promise<unknown>;
  const wrap = typeof p.wrap === 'function' ? (p.wrap.bind(p) as (fn: unknown, options?: unknown) => (...args: unknown[]) => Promise<unknown>) : undefined;
  if (tracer === undefined) {
    return Object.freeze({ name: p.name, kind: p.kind, pipeline, execute, wrap, close: () => {} }) as unknown as TracedPipeline<P>;
  }
  const offs = componentsOf(p).map(subscribe);
  let closed = false;
  const name = p.name;
  const kind = p.kind;
  const run = <T>(call: () => Promise<T>): Promise<T> => (closed ? call() : inSpan(tracer, name, kind, call));
  return Object.freeze({
    name,
    kind,
    pipeline,
    execute: (fn: unknown, o?: unknown) => run(() => execute(fn, o)),
    wrap:
      wrap === undefined
        ? undefined
        : (fn: unknown, o?: unknown) => {
            const wrapped = wrap(fn, o);
            return (...args: unknown[]) => run(() => wrapped(...args));
          },
    close: () => {
      if (closed) return;
      closed = true;
      for (const off of offs) off();
    },
  }) as unknown as TracedPipeline<P>;
}

function readTracer(options: unknown): Tracer | undefined {
  if (options === undefined) return undefined;
  if (!isPlainObject(options)) throw new TypeError(`traceResilience: options must be a plain object ({ tracer }), got ${describeValue(options)}`);
  for (const key of Object.keys(options)) {
    if (!OPTIONS.includes(key))
      throw new TypeError(`traceResilience: unknown option '${key}'${didYouMean(key, OPTIONS)} (known options: ${OPTIONS.join(', ')})`);
  }
  const tracer = options.tracer;
  if (tracer === undefined) return undefined;
  if (typeof tracer !== 'object' || tracer === null || typeof (tracer as { startSpan?: unknown }).startSpan !== 'function') {
    throw new TypeError(`traceResilience: option tracer must be an OpenTelemetry Tracer (trace.getTracer(name)) or undefined, got ${describeValue(tracer)}`);
  }
  return tracer as Tracer;
}

/** The components whose events are traced: the pipeline's policies (a nested pipeline's too), or the policy itself. */
function componentsOf(pipeline: TraceablePipeline): TracedComponent[] {
  return collect(pipeline, new Set());
}

function collect(policy: unknown, seen: Set<unknown>): TracedComponent[] {
  if (seen.has(policy)) return [];
  seen.add(policy);
  const policies = (policy as { policies?: unknown }).policies;
  if (Array.isArray(policies)) return policies.flatMap((inner: unknown) => (typeof inner === 'object' && inner !== null ? collect(inner, seen) : []));
  return isTraced(policy) ? [policy] : [];
}

/** Runs `call` in the active span, or in a span of its own when none is active. */
function inSpan<T>(tracer: Tracer, name: string, kind: string, call: () => Promise<T>): Promise<T> {
  const active = context.active();
  if (trace.getSpan(active) !== undefined) return call();
  const span = tracer.startSpan(name, { attributes: { 'breakwater.policy': kind, 'breakwater.name': name } }, active);
  let outcome: Promise<T>;
  try {
    outcome = context.with(trace.setSpan(active, span), call);
  } catch (error) {
    outcome = Promise.reject(error);
  }
  return outcome.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      failed(span, error);
      throw error;
    },
  );
}

function failed(span: Span, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.setAttribute('error.type', errorType(error));
  span.end();
}
