import { AdaptiveLimiter, AdaptiveThrottle } from '@breakwater/adaptive';
import { Bulkhead } from '@breakwater/bulkhead';
import { FaultInjection, LatencyInjection, OutcomeInjection } from '@breakwater/chaos';
import { CircuitBreaker } from '@breakwater/circuit-breaker';
import type { Clock, Policy } from '@breakwater/core';
import { RateLimiter } from '@breakwater/rate-limiter';
import { Hedge, Retry } from '@breakwater/retry';
import { fromConfig } from '@breakwater/spring-config';
import { TimeLimiter } from '@breakwater/time-limiter';
import { scenarioAlgorithm } from './adaptive-algorithm.js';
import { SimulatedFaultError, SimulatedOverloadError } from './engine-types.js';
import type { SimulatedChaos } from './layers/chaos.js';
import type { LayerSpec, PipelineSpec } from './scenario.js';

/**
 * A pipeline's layers made of real Breakwater components on the run's clock, outermost first
 * (an observer gets them, e.g. to listen to the breaker's events).
 *
 * @example
 * ```ts
 * const observer = (_spec: PipelineSpec, layers: readonly BuiltLayer[]) => {
 *   const layer = layers.find((l) => l.kind === 'circuitBreaker');
 *   if (layer?.kind === 'circuitBreaker') layer.breaker.on('slowCallRateExceeded', (e) => console.log(e.slowCallRate));
 *   return undefined;
 * };
 * ```
 */
export type BuiltLayer =
  | { readonly kind: 'retry'; readonly retry: Retry }
  | { readonly kind: 'circuitBreaker'; readonly breaker: CircuitBreaker }
  | { readonly kind: 'timeLimiter'; readonly timeLimiter: TimeLimiter }
  | { readonly kind: 'rateLimiter'; readonly rateLimiter: RateLimiter }
  | { readonly kind: 'bulkhead'; readonly bulkhead: Bulkhead }
  | { readonly kind: 'adaptiveLimiter'; readonly limiter: AdaptiveLimiter }
  | { readonly kind: 'throttle'; readonly throttle: AdaptiveThrottle }
  | { readonly kind: 'hedge'; readonly hedge: Hedge }
  | { readonly kind: 'chaos'; readonly chaos: FaultInjection | LatencyInjection | OutcomeInjection };

/**
 * What an adaptive limiter in a scenario counts as a drop besides a time-out: the backend's 503
 * when it is at its capacity with its queue full (as a real limiter's `isDrop` for a 503 would).
 */
const isOverload = (error: unknown): boolean => error instanceof SimulatedOverloadError;

/** Spring's relaxed form of a key: `circuit-breaker`, `circuitBreaker` and `circuitbreaker` are one. */
export const relaxed = (key: string): string => key.replace(/[-_]/g, '').toLowerCase();

/**
 * The bulkhead, if it hands a freed slot to the oldest waiter (`fairCallHandlingEnabled`, the
 * default): the unfair hand-over wakes waiters on a microtask, which a run has no equivalent of.
 */
function fair(bulkhead: Bulkhead, where: string): Bulkhead {
  if (bulkhead.config.fairCallHandlingEnabled) return bulkhead;
  throw new RangeError(
    `${where}fairCallHandlingEnabled: false is not simulated (the simulator hands a freed slot to the oldest waiter, as the default true does)`,
  );
}

/** One layer written as options. */
export function buildLayer(spec: LayerSpec, name: string, clock: Clock, random: () => number): BuiltLayer {
  switch (spec.kind) {
    case 'retry':
      return { kind: 'retry', retry: new Retry(name, { ...spec.options, clock, random }) };
    case 'circuitBreaker':
      return { kind: 'circuitBreaker', breaker: new CircuitBreaker(name, { ...spec.options, clock }) };
    case 'timeLimiter':
      return { kind: 'timeLimiter', timeLimiter: new TimeLimiter(name, { ...spec.options, clock }) };
    case 'rateLimiter':
      return { kind: 'rateLimiter', rateLimiter: new RateLimiter(name, { ...spec.options, clock }) };
    case 'bulkhead':
      return { kind: 'bulkhead', bulkhead: fair(new Bulkhead(name, { ...spec.options, clock }), '') };
    case 'adaptiveLimiter': {
      const { algorithm, rest } = scenarioAlgorithm(name, spec.options, random);
      return { kind: 'adaptiveLimiter', limiter: new AdaptiveLimiter(name, { ...rest, algorithm, isDrop: isOverload, clock }) };
    }
    case 'throttle':
      return { kind: 'throttle', throttle: new AdaptiveThrottle(name, { ...spec.options, random, clock }) };
    case 'hedge':
      return { kind: 'hedge', hedge: new Hedge(name, { ...spec.options, clock }) };
    case 'chaos':
      return { kind: 'chaos', chaos: chaosOf(name, spec.options, clock, random) };
  }
}

/** The strategies of a `chaos:` layer, one of which it names (a behaviour is code: refused when the scenario is read). */
export const CHAOS_STRATEGIES = ['fault', 'latency', 'outcome'] as const;

/**
 * A `chaos:` layer's component: the strategy its options name, drawing from the run's `random`.
 * A fault is a SimulatedFaultError whose message is the `fault` given when it is text.
 */
function chaosOf(name: string, options: Readonly<Record<string, unknown>>, clock: Clock, random: () => number): SimulatedChaos {
  const named = CHAOS_STRATEGIES.filter((k) => k in options);
  if (named.length !== 1) {
    const got = named.length === 0 ? 'none' : named.join(' and ');
    throw new RangeError(`chaos: give exactly one of fault, latency or outcome (the strategy), got ${got}`);
  }
  const common = { ...options, clock, random };
  if (named[0] === 'latency') return new LatencyInjection(name, common);
  if (named[0] === 'outcome') return new OutcomeInjection(name, { ...common, outcome: options['outcome'] });
  const message = typeof options['fault'] === 'string' ? options['fault'] : 'a fault injected by a chaos layer';
  return new FaultInjection(name, { ...common, fault: new SimulatedFaultError(message) });
}

/**
 * Builds a pipeline's components on `clock`. A Spring block goes through the config loader's
 * `fromConfig(…).pipeline(instance)`, the pipeline Resilience4j's Spring aspects would build:
 * the instance of that name of each section that names it, in the aspects' order (Retry →
 * CircuitBreaker → RateLimiter → TimeLimiter → Bulkhead, with the block's `*-aspect-order`
 * values applied); a name no section has is its error.
 */
export function buildPipeline(spec: PipelineSpec, clock: Clock, random: () => number): BuiltLayer[] {
  if (spec.kind === 'layers') return spec.layers.map((layer) => buildLayer(layer, spec.name, clock, random));
  const pipeline = fromConfig({ resilience4j: spec.resilience4j }, { clock }).pipeline(spec.instance);
  return pipeline.policies.map((policy) => springLayer(policy, spec.instance));
}

/** One layer of a Spring block's pipeline, by its kind (the kinds of `fromConfig(…).pipeline`). */
function springLayer(policy: Policy, instance: string): BuiltLayer {
  if (policy instanceof Retry) return { kind: 'retry', retry: policy };
  if (policy instanceof CircuitBreaker) return { kind: 'circuitBreaker', breaker: policy };
  if (policy instanceof RateLimiter) return { kind: 'rateLimiter', rateLimiter: policy };
  if (policy instanceof TimeLimiter) return { kind: 'timeLimiter', timeLimiter: policy };
  if (policy instanceof Bulkhead) return { kind: 'bulkhead', bulkhead: fair(policy, `resilience4j.bulkhead.instances.${instance}: `) };
  throw new RangeError(
    `resilience4j: a ${policy.kind} layer is not simulated yet (the simulator runs retry, circuitbreaker, ratelimiter, timelimiter and bulkhead)`,
  );
}

/** The pipeline's adaptive limiter (the outermost one, when there are several). */
export function adaptiveLimiterOf(layers: readonly BuiltLayer[]): AdaptiveLimiter | undefined {
  for (const layer of layers) if (layer.kind === 'adaptiveLimiter') return layer.limiter;
  return undefined;
}

/** The pipeline's circuit breaker (the outermost one, when there are several). */
export function breakerOf(layers: readonly BuiltLayer[]): CircuitBreaker | undefined {
  for (const layer of layers) if (layer.kind === 'circuitBreaker') return layer.breaker;
  return undefined;
}
