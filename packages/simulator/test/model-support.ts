// For the model tests: a simulator pipeline run by the library itself (decorate()).
import { BulkheadFullError, RequestNotPermittedError } from '@breakwater/core';
import { CallNotPermittedError } from '@breakwater/circuit-breaker';
import { decorate, type Pipeline } from '@breakwater/decorators';
import type { BuiltLayer } from '../src/pipeline.js';
import type { StateChange } from '../src/report.js';

/** The layers as decorate() composes them, outermost first, and the breakers' state changes as they happen. */
export function libraryPipeline(layers: readonly BuiltLayer[]): { pipeline: Pipeline; transitions: StateChange[] } {
  let pipeline: Pipeline = decorate();
  for (const l of layers) {
    if (l.kind === 'retry') pipeline = pipeline.withRetry(l.retry);
    else if (l.kind === 'circuitBreaker') pipeline = pipeline.withCircuitBreaker(l.breaker);
    else if (l.kind === 'rateLimiter') pipeline = pipeline.withRateLimiter(l.rateLimiter);
    else if (l.kind === 'bulkhead') pipeline = pipeline.withBulkhead(l.bulkhead);
    else if (l.kind === 'adaptiveLimiter') pipeline = pipeline.with(l.limiter);
    else if (l.kind === 'throttle') pipeline = pipeline.with(l.throttle);
    else if (l.kind === 'hedge') pipeline = pipeline.withHedge(l.hedge);
    else if (l.kind === 'chaos') pipeline = pipeline.withChaos(l.chaos);
    else pipeline = pipeline.withTimeLimiter(l.timeLimiter);
  }
  const transitions: StateChange[] = [];
  for (const l of layers)
    if (l.kind === 'circuitBreaker') l.breaker.on('stateTransition', (e) => transitions.push({ atMs: e.at, from: e.from, to: e.to, cause: e.cause }));
  return { pipeline, transitions };
}

/** Whether a call's error is a refusal (the report's `rejected`): by a breaker, a rate limiter or a bulkhead. */
export const isRefusal = (e: unknown): boolean => e instanceof CallNotPermittedError || e instanceof RequestNotPermittedError || e instanceof BulkheadFullError;
