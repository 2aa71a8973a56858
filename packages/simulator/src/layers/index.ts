// The layer kinds the engine drives: one driver per kind, one line each. A new kind is a driver
// file in this folder and its line here (plus its place in BuiltLayer, pipeline.ts).
import type { BuiltLayer } from '../pipeline.js';
import { AdaptiveLimiterDriver } from './adaptive-limiter.js';
import { BreakerDriver } from './breaker.js';
import { BulkheadDriver } from './bulkhead.js';
import { ChaosDriver } from './chaos.js';
import type { LayerDriver, LayerHost } from './driver.js';
import { HedgeDriver } from './hedge.js';
import { RateLimiterDriver } from './rate-limiter.js';
import { RetryDriver } from './retry.js';
import { ThrottleDriver } from './throttle.js';
import { TimeLimiterDriver } from './time-limiter.js';

export type { LayerDriver, LayerHost } from './driver.js';

/** A layer kind's name (`'retry'`, `'circuitBreaker'`, …). */
export type LayerKind = BuiltLayer['kind'];

type LayerOf<K extends LayerKind> = Extract<BuiltLayer, { readonly kind: K }>;

const DRIVERS: { readonly [K in LayerKind]: (layer: LayerOf<K>, host: LayerHost) => LayerDriver } = {
  retry: (layer, host) => new RetryDriver(layer.retry, host),
  circuitBreaker: (layer, host) => new BreakerDriver(layer.breaker, host),
  timeLimiter: (layer, host) => new TimeLimiterDriver(layer.timeLimiter, host),
  rateLimiter: (layer, host) => new RateLimiterDriver(layer.rateLimiter, host),
  bulkhead: (layer, host) => new BulkheadDriver(layer.bulkhead, host),
  adaptiveLimiter: (layer, host) => new AdaptiveLimiterDriver(layer.limiter, host),
  throttle: (layer, host) => new ThrottleDriver(layer.throttle, host),
  hedge: (layer, host) => new HedgeDriver(layer.hedge, host),
  chaos: (layer, host) => new ChaosDriver(layer.chaos, host),
};

/** The driver of one built layer, for one run. */
export function driverOf(layer: BuiltLayer, host: LayerHost): LayerDriver {
  const make = DRIVERS[layer.kind] as (layer: BuiltLayer, host: LayerHost) => LayerDriver;
  return make(layer, host);
}
