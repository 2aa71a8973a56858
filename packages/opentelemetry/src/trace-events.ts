// Which events of which component become span events, and what each carries (contract:
// docs/observability.md, "Tracing"). Read by the component's kind; the listeners are subscribed
// once per component however many traced pipelines share it, and only when a tracer is given.
import { trace, type Attributes, type AttributeValue } from '@opentelemetry/api';

/** A component as tracing reads it: `kind`, `name`, and the typed `on` every Breakwater component has. */
export interface TracedComponent {
  readonly kind: string;
  readonly name: string;
  on(type: string, listener: (event: never) => void): () => void;
}

/** An event's fields as a listener gets them (read by name, never trusted to be there). */
type Fields = Readonly<Record<string, unknown>>;

/** The span event an event becomes: its name and its own attributes, or `undefined` for none. */
type ToSpanEvent = (e: Fields) => readonly [string, Attributes] | undefined;

/** `error.type` (OpenTelemetry's semantic convention): the class name of what was thrown. */
export function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string' && name.length > 0) return name;
    return error.constructor?.name ?? 'Object';
  }
  return typeof error;
}

/** A number, or the attribute left out. */
const num = (value: unknown): AttributeValue | undefined => (typeof value === 'number' ? value : undefined);

/** A breaker's, a bulkhead's or a limiter's refusal: `notPermitted`. */
const refused =
  (more: (e: Fields) => Attributes = () => ({})): ToSpanEvent =>
  (e) => ['notPermitted', more(e)];

/** An adaptive limiter's partition, when the call has one. */
const partition = (e: Fields): Attributes => (typeof e.partition === 'string' ? { 'breakwater.partition': e.partition } : {});

/** A bulkhead's or a limiter's `callPermitted` after a wait (`waitMs` > 0): `wait`; at once: no event. */
const waited =
  (more: (e: Fields) => Attributes = () => ({})): ToSpanEvent =>
  (e) =>
    typeof e.waitMs === 'number' && e.waitMs > 0 ? ['wait', { 'breakwater.wait_ms': e.waitMs, ...more(e) }] : undefined;

/**
 * The events traced, by component kind, then event type. A kind missing here (a fallback, a
 * user's own policy) is not traced; an event type missing is not listened to.
 */
export const TRACED_EVENTS: Readonly<Record<string, Readonly<Record<string, ToSpanEvent>>>> = {
  retry: {
    // Attempt `attempt` failed; the next starts after `waitMs`.
    retry: (e) => [
      'retry',
      { 'breakwater.attempt': num(e.attempt), 'breakwater.wait_ms': num(e.waitMs), ...('error' in e ? { 'error.type': errorType(e.error) } : {}) },
    ],
  },
  hedge: {
    hedge: (e) => ['hedge', { 'breakwater.attempt': num(e.attempt), 'breakwater.delay_ms': num(e.delayMs), 'breakwater.reason': String(e.reason) }],
    hedgeRefused: (e) => ['hedgeRefused', { 'breakwater.attempt': num(e.attempt) }],
  },
  circuitBreaker: { callNotPermitted: refused((e) => ({ 'breakwater.state': String(e.state) })) },
  timeLimiter: {
    timeout: (e) => ['timeout', { 'breakwater.timeout_ms': num(e.timeoutMs), 'breakwater.elapsed_ms': num(e.elapsed) }],
  },
  rateLimiter: {
    // A permit given at once is no event; a wait is, when it ends (the permits are there), with its length.
    successfulAcquire: (e) =>
      typeof e.waitMs === 'number' && e.waitMs > 0 ? ['wait', { 'breakwater.wait_ms': e.waitMs, 'breakwater.permits': num(e.permits) }] : undefined,
    failedAcquire: refused((e) => ({ 'breakwater.permits': num(e.permits), 'breakwater.wait_ms': num(e.waitMs) })),
  },
  // A slot taken at once is no event; a wait is, when it ends, with its length. The waiter
  // publishes `callPermitted` itself, in its own continuation: the event lands on its own span.
  bulkhead: { callPermitted: waited(), callRejected: refused() },
  poolBulkhead: { callPermitted: waited(), callRejected: refused() },
  adaptiveLimiter: {
    callPermitted: waited(partition),
    callRejected: refused((e) => ({
      'breakwater.limit': num(e.limit),
      'breakwater.in_flight': num(e.inFlight),
      ...partition(e),
    })),
  },
  throttle: { callRejected: refused((e) => ({ 'breakwater.reject_ratio': num(e.rejectRatio) })) },
  chaos: {
    injected: (e) => [
      'injected',
      {
        'breakwater.attempt': num(e.attempt),
        'breakwater.strategy': String(e.strategy),
        ...(typeof e.latencyMs === 'number' ? { 'breakwater.latency_ms': e.latencyMs } : {}),
      },
    ],
  },
};

/** Adds the span event of `e` to the active span, if one records; nothing is built otherwise. */
function listener(kind: string, name: string, toSpanEvent: ToSpanEvent): (event: never) => void {
  return (event: never) => {
    const span = trace.getActiveSpan();
    if (span === undefined || !span.isRecording()) return;
    const spanEvent = toSpanEvent(event as Fields);
    if (spanEvent === undefined) return;
    const attributes: Attributes = { 'breakwater.policy': kind, 'breakwater.name': name };
    for (const [key, value] of Object.entries(spanEvent[1])) if (value !== undefined) attributes[key] = value;
    span.addEvent(spanEvent[0], attributes);
  };
}

/** One component's subscriptions, shared by every traced pipeline that holds it. */
interface Subscriptions {
  count: number;
  readonly offs: readonly (() => void)[];
}

const subscribed = new WeakMap<TracedComponent, Subscriptions>();

/** Whether `component` is of a kind whose events are traced and has an `on` to listen with. */
export function isTraced(component: unknown): component is TracedComponent {
  if (typeof component !== 'object' || component === null) return false;
  const { kind, on } = component as { kind?: unknown; on?: unknown };
  return typeof kind === 'string' && Object.hasOwn(TRACED_EVENTS, kind) && typeof on === 'function';
}

/**
 * Listens to `component`'s traced events (once, however many callers), and returns the function
 * that stops (once): the listeners go with the last caller's stop.
 */
export function subscribe(component: TracedComponent): () => void {
  let subs = subscribed.get(component);
  if (subs === undefined) {
    const kind = component.kind;
    const name = component.name;
    const events = TRACED_EVENTS[kind] ?? {};
    const offs: (() => void)[] = [];
    try {
      for (const [type, toSpanEvent] of Object.entries(events)) offs.push(component.on(type, listener(kind, name, toSpanEvent)));
    } catch (error) {
      for (const off of offs) off();
      throw error;
    }
    subs = { count: 0, offs };
    subscribed.set(component, subs);
  }
  subs.count++;
  const mine = subs;
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    if (--mine.count > 0) return;
    for (const off of mine.offs) off();
    subscribed.delete(component);
  };
}
