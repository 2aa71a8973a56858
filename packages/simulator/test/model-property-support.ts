// For the engine-vs-decorate() properties: random layers and traffic as a scenario, and the same
// traffic run by the library itself (decorate() on a VirtualClock), fed the same arrivals and the
// same backend draws as the engine.
import { VirtualClock } from '@breakwater/core';
import { setMaxListeners } from 'node:events';
import fc from 'fast-check';
import { Arrivals } from '../src/arrivals.js';
import { BackendDraw, HANG, OK } from '../src/backend.js';
import { type BuiltLayer, buildPipeline } from '../src/pipeline.js';
import { seededRandom } from '../src/random.js';
import type { Scenario } from '../src/scenario.js';
import { isRefusal, libraryPipeline } from './model-support.js';

/** One layer of the kinds every pipeline of the first property may hold (at most one of each, in any order). */
export const layer = fc.oneof(
  fc.record({ kind: fc.constant('retry' as const), maxAttempts: fc.integer({ min: 1, max: 3 }), wait: fc.double({ min: 1, max: 300, noNaN: true }) }),
  fc.record({
    kind: fc.constant('circuitBreaker' as const),
    type: fc.constantFrom('COUNT_BASED', 'TIME_BASED'),
    size: fc.integer({ min: 2, max: 10 }),
    minimum: fc.integer({ min: 1, max: 10 }),
    failure: fc.integer({ min: 20, max: 100 }),
    slowMs: fc.double({ min: 10, max: 400, noNaN: true }),
    slow: fc.integer({ min: 20, max: 100 }),
    waitMs: fc.double({ min: 100, max: 3000, noNaN: true }),
    permitted: fc.integer({ min: 1, max: 4 }),
  }),
  fc.record({ kind: fc.constant('timeLimiter' as const), timeoutMs: fc.double({ min: 20, max: 500, noNaN: true }), cancel: fc.boolean() }),
  fc.record({
    kind: fc.constant('rateLimiter' as const),
    limit: fc.integer({ min: 1, max: 6 }),
    refreshMs: fc.double({ min: 50, max: 1000, noNaN: true }),
    timeoutMs: fc.oneof(fc.constant(0), fc.double({ min: 1, max: 600, noNaN: true })),
  }),
  fc.record({
    kind: fc.constant('bulkhead' as const),
    max: fc.integer({ min: 1, max: 4 }),
    waitMs: fc.oneof(fc.constant(0), fc.double({ min: 1, max: 300, noNaN: true })),
  }),
  fc.record({
    kind: fc.constant('adaptiveLimiter' as const),
    algorithm: fc.constantFrom('vegas', 'aimd', 'gradient2'),
    initial: fc.integer({ min: 1, max: 6 }),
    waitMs: fc.oneof(fc.constant(0), fc.double({ min: 1, max: 300, noNaN: true })),
    queue: fc.constantFrom('fifo', 'lifo'),
    maxQueue: fc.integer({ min: 0, max: 5 }),
    window: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('throttle' as const),
    k: fc.double({ min: 1, max: 3, noNaN: true }),
    maxRejectRatio: fc.double({ min: 0, max: 1, noNaN: true }),
    windowMs: fc.double({ min: 100, max: 5000, noNaN: true }),
  }),
);
/** One phase of traffic: fractional latencies, so no two events fall on the same instant. */
export const phase = fc.record({
  seconds: fc.integer({ min: 1, max: 4 }),
  rate: fc.integer({ min: 2, max: 30 }),
  errorRatio: fc.double({ min: 0, max: 0.6, noNaN: true }),
  hangRatio: fc.double({ min: 0, max: 0.3, noNaN: true }),
  low: fc.double({ min: 1, max: 100, noNaN: true }),
  spread: fc.double({ min: 1, max: 400, noNaN: true }),
});
/** Never a whole number of ms: a phase's latencies may be whole (uniform between whole bounds), and a tie is ordered apart by the two. */
const fractional = (min: number, max: number) => fc.double({ min, max, noNaN: true }).map((ms) => (Number.isInteger(ms) ? ms + 0.318 : ms));

/** A hedge: a fixed delay (fractional, 0: all at once, negative: only after a failure) or a percentile of recent calls. */
export const hedgeLayer = fc.record({
  kind: fc.constant('hedge' as const),
  max: fc.integer({ min: 1, max: 3 }),
  delay: fc.oneof(
    fractional(1, 300).map((ms) => `${ms}ms`),
    fc.constantFrom('0', '-1'),
    fc
      .record({
        percentile: fc.double({ min: 0.5, max: 0.99, noNaN: true }),
        minSamples: fc.integer({ min: 1, max: 5 }),
        windowMs: fractional(500, 5000),
        initialMs: fractional(1, 300),
      })
      .map((d) => `{ percentile: ${d.percentile}, minSamples: ${d.minSamples}, window: ${d.windowMs}ms, initial: ${d.initialMs}ms }`),
  ),
});

/** A chaos layer (innermost): a fault, a fractional latency or an outcome, enabled or not. */
export const chaosLayer = fc.record({
  kind: fc.constant('chaos' as const),
  strategy: fc.oneof(
    fc.constantFrom('fault: chaos', 'outcome: ok'),
    fractional(1, 300).map((ms) => `latency: ${ms}ms`),
  ),
  rate: fc.double({ min: 0, max: 1, noNaN: true }),
  enabled: fc.boolean(),
});

/** Any layer a scenario of these properties holds. */
export type Layer = Value<typeof layer> | Value<typeof hedgeLayer> | Value<typeof chaosLayer>;

const f = (x: number) => `${x}ms`;
export type Value<A> = A extends fc.Arbitrary<infer T> ? T : never;

/** A layer as a scenario writes it. */
function layerYaml(l: Layer): string {
  switch (l.kind) {
    case 'hedge':
      return `- hedge: { maxHedgedAttempts: ${l.max}, delay: ${l.delay} }`;
    case 'chaos':
      return `- chaos: { ${l.strategy}, rate: ${l.rate}, enabled: ${l.enabled} }`;
    case 'retry':
      return `- retry: { maxAttempts: ${l.maxAttempts}, waitDuration: ${f(l.wait)} }`;
    case 'timeLimiter':
      return `- timeLimiter: { timeoutDuration: ${f(l.timeoutMs)}, cancelRunningFuture: ${l.cancel} }`;
    case 'rateLimiter':
      return `- rateLimiter: { limitForPeriod: ${l.limit}, limitRefreshPeriod: ${f(l.refreshMs)}, timeoutDuration: ${f(l.timeoutMs)} }`;
    case 'bulkhead':
      return `- bulkhead: { maxConcurrentCalls: ${l.max}, maxWaitDuration: ${f(l.waitMs)} }`;
    case 'adaptiveLimiter': {
      const window = l.window ? '{ minWindowTime: 50ms, maxWindowTime: 200ms, windowSize: 3 }' : 'false';
      return `- adaptiveLimiter: { algorithm: ${l.algorithm}, initialLimit: ${l.initial}, minLimit: 1, maxLimit: 8, maxWaitDuration: ${f(l.waitMs)}, queue: ${l.queue}, maxQueue: ${l.maxQueue}, window: ${window} }`;
    }
    case 'throttle':
      return `- throttle: { k: ${l.k}, maxRejectRatio: ${l.maxRejectRatio}, window: ${f(l.windowMs)} }`;
    default:
      return `- circuitBreaker: { slidingWindowType: ${l.type}, slidingWindowSize: ${l.size}, minimumNumberOfCalls: ${l.minimum}, failureRateThreshold: ${l.failure}, slowCallDurationThreshold: ${f(l.slowMs)}, slowCallRateThreshold: ${l.slow}, waitDurationInOpenState: ${f(l.waitMs)}, permittedNumberOfCallsInHalfOpenState: ${l.permitted} }`;
  }
}

/** A scenario of one pipeline `p`. */
export function yamlOf(layers: Layer[], phases: Value<typeof phase>[], seed: number): string {
  const ls = layers.map(layerYaml);
  const ps = phases.map(
    (p) =>
      `- { duration: ${p.seconds}s, rate: ${p.rate}, errorRatio: ${p.errorRatio}, hangRatio: ${Math.min(p.hangRatio, 1 - p.errorRatio)}, latency: { uniform: [${f(p.low)}, ${f(p.low + p.spread)}] } }`,
  );
  return `seed: ${seed}\npipelines:\n  p:\n${ls.map((l) => `    ${l}`).join('\n')}\ntraffic:\n  phases:\n${ps.map((p) => `    ${p}`).join('\n')}\n`;
}

/** The scenario's traffic through decorate() on a VirtualClock, fed the arrivals and backend draws the engine gets; its components too. */
export async function library(scenario: Scenario, observe?: (layers: readonly BuiltLayer[]) => void) {
  const clock = new VirtualClock();
  const random = seededRandom(scenario.seed);
  const layers = buildPipeline(scenario.pipelines[0]!, clock, random);
  observe?.(layers);
  const { pipeline, transitions } = libraryPipeline(layers);
  if (scenario.traffic.kind !== 'phases') throw new Error('phases');
  const arrivals = new Arrivals(scenario.traffic, seededRandom(scenario.seed ^ 0x5bd1e995));
  const draws = scenario.traffic.phases.map((p) => new BackendDraw(p.backend));
  const counts = { succeeded: 0, failed: 0, rejected: 0, backendCalls: 0 };
  const call = (ctx: { signal: AbortSignal }) =>
    new Promise<string>((resolve, reject) => {
      counts.backendCalls++;
      const draw = draws[arrivals.phaseAt(clock.now(), 0)]!;
      const latency = draw.draw(random);
      const outcome = draw.outcome;
      // The listener goes when the call answers: without a time limiter every call may share one
      // never-aborted signal, which collects the listeners of the calls that hang (as many as they are).
      setMaxListeners(0, ctx.signal);
      const aborted = () => {
        if (timer !== undefined) clock.clearTimeout(timer);
        reject(ctx.signal.reason);
      };
      const answer = () => {
        ctx.signal.removeEventListener('abort', aborted);
        if (outcome === OK) resolve('ok');
        else reject(new Error('503'));
      };
      const timer = outcome === HANG ? undefined : clock.setTimeout(answer, latency);
      ctx.signal.addEventListener('abort', aborted, { once: true });
    });
  const calls: Promise<void>[] = [];
  /** How each request ended and when, in arrival order (to find where the engine parts from it). */
  const ended: string[] = [];
  for (let i = 0; arrivals.nextAt !== Infinity; arrivals.advance(), i++) {
    const index = i;
    clock.setTimeout(() => {
      calls.push(
        pipeline.execute(call).then(
          () => {
            counts.succeeded++;
            ended[index] = `succeeded ${clock.now()}`;
          },
          (e: unknown) => {
            const outcome = isRefusal(e) ? 'rejected' : 'failed';
            counts[outcome]++;
            ended[index] = `${outcome} ${clock.now()}`;
          },
        ),
      );
    }, arrivals.nextAt);
  }
  await clock.runAll(1_000_000);
  return { transitions, ...counts, settled: calls.length, layers, ended };
}
