import { VirtualClock } from '@breakwater/core';
import { setMaxListeners } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { libraryPipeline, isRefusal } from '../test/model-support.js';
import { Arrivals } from './arrivals.js';
import { BackendDraw, HANG, OK } from './backend.js';
import { parseScenario } from './parse-scenario.js';
import { buildPipeline } from './pipeline.js';
import { seededRandom } from './random.js';
import type { Scenario } from './scenario.js';
import { runConfiguration } from './simulate.js';

// A property: for random pipelines (retry, breaker, time limiter, rate limiter, bulkhead, adaptive limiter and throttle, at most one of each, in any order) and random
// traffic, the engine and decorate() on a VirtualClock — fed the same arrivals and the same
// backend draws — agree on every state change and every count. Latencies and waits are
// fractional, so no two events fall on the same instant (where the two may order them apart).

const layer = fc.oneof(
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
const phase = fc.record({
  seconds: fc.integer({ min: 1, max: 4 }),
  rate: fc.integer({ min: 2, max: 30 }),
  errorRatio: fc.double({ min: 0, max: 0.6, noNaN: true }),
  hangRatio: fc.double({ min: 0, max: 0.3, noNaN: true }),
  low: fc.double({ min: 1, max: 100, noNaN: true }),
  spread: fc.double({ min: 1, max: 400, noNaN: true }),
});
const f = (x: number) => `${x}ms`;
type Value<A> = A extends fc.Arbitrary<infer T> ? T : never;

function layerYaml(l: Value<typeof layer>): string {
  switch (l.kind) {
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

function yamlOf(layers: Value<typeof layer>[], phases: Value<typeof phase>[], seed: number): string {
  const ls = layers.map(layerYaml);
  const ps = phases.map(
    (p) =>
      `- { duration: ${p.seconds}s, rate: ${p.rate}, errorRatio: ${p.errorRatio}, hangRatio: ${Math.min(p.hangRatio, 1 - p.errorRatio)}, latency: { uniform: [${f(p.low)}, ${f(p.low + p.spread)}] } }`,
  );
  return `seed: ${seed}\npipelines:\n  p:\n${ls.map((l) => `    ${l}`).join('\n')}\ntraffic:\n  phases:\n${ps.map((p) => `    ${p}`).join('\n')}\n`;
}

async function library(scenario: Scenario) {
  const clock = new VirtualClock();
  const random = seededRandom(scenario.seed);
  const layers = buildPipeline(scenario.pipelines[0]!, clock, random);
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
  for (; arrivals.nextAt !== Infinity; arrivals.advance()) {
    clock.setTimeout(() => {
      calls.push(
        pipeline.execute(call).then(
          () => void counts.succeeded++,
          (e: unknown) => void (isRefusal(e) ? counts.rejected++ : counts.failed++),
        ),
      );
    }, arrivals.nextAt);
  }
  await clock.runAll(1_000_000);
  return { transitions, ...counts, settled: calls.length };
}

describe('the engine and decorate() agree (property)', () => {
  it('on random pipelines and traffic: every state change, every count', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(layer, { minLength: 1, maxLength: 5, selector: (l) => l.kind }),
        fc.array(phase, { minLength: 1, maxLength: 3 }),
        fc.nat(),
        async (layers, phases, seed) => {
          // An adaptive limiter and a bulkhead in one pipeline hand slots over at the same instant a
          // time-out frees the inner one: the engine frees the inner slot first, the library a few
          // microtasks after the outer one's next call reached it (refused). Left out here; see the README.
          const kinds = new Set(layers.map((l) => l.kind));
          fc.pre(!(kinds.has('adaptiveLimiter') && kinds.has('bulkhead')));
          const scenario = parseScenario(yamlOf(layers, phases, seed));
          let backendCalls = 0;
          const engine = runConfiguration(scenario, scenario.pipelines[0]!, { observer: () => ({ finished: (v) => void (backendCalls = v.backendCalls) }) });
          const real = await library(scenario);
          expect(engine.transitions).toEqual(real.transitions);
          expect([engine.totals.succeeded, engine.totals.failed, engine.totals.rejected]).toEqual([real.succeeded, real.failed, real.rejected]);
          expect(backendCalls).toBe(real.backendCalls);
        },
      ),
      { numRuns: Number(process.env['SIMULATOR_PROPERTY_RUNS'] ?? 40), endOnFailure: process.env['SIMULATOR_PROPERTY_END'] === '1' },
    );
  }, 60_000);
});
