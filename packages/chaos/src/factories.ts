import { BehaviorInjection } from './behavior-injection.js';
import type { BehaviorInjectionConfig, FaultInjectionConfig, LatencyInjectionConfig, OutcomeInjectionConfig } from './config.js';
import { FaultInjection } from './fault-injection.js';
import { LatencyInjection } from './latency-injection.js';
import { OutcomeInjection } from './outcome-injection.js';

/**
 * A name for a chaos strategy made by a factory; default: the strategy's (`'fault'`, `'latency'`, …).
 *
 * @example
 * ```ts
 * const named: ChaosName = { name: 'pg-faults' };
 * ```
 */
export interface ChaosName {
  /** The strategy's name; default: the strategy's own (`'fault'`, `'latency'`, `'outcome'`, `'behavior'`). */
  readonly name?: string | undefined;
}

function split<C extends object>(options: (C & ChaosName) | undefined, fallback: string): [string, C] {
  if (options === undefined || options === null || typeof options !== 'object') return [fallback, options as unknown as C];
  const { name, ...config } = options;
  return [name ?? fallback, config as unknown as C];
}

/**
 * Same as `new FaultInjection(name ?? 'fault', config)`.
 *
 * @example
 * ```ts
 * const faults = faultInjection({ enabled: true, rate: 0.1, fault: new Error('chaos') });
 * ```
 */
export function faultInjection(options: FaultInjectionConfig & ChaosName): FaultInjection {
  const [name, config] = split<FaultInjectionConfig>(options, 'fault');
  return new FaultInjection(name, config);
}

/**
 * Same as `new LatencyInjection(name ?? 'latency', config)`.
 *
 * @example
 * ```ts
 * const slow = latencyInjection({ enabled: true, rate: 0.05, latency: '2s' });
 * ```
 */
export function latencyInjection(options?: LatencyInjectionConfig & ChaosName): LatencyInjection {
  const [name, config] = split<LatencyInjectionConfig>(options, 'latency');
  return new LatencyInjection(name, config);
}

/**
 * Same as `new OutcomeInjection(name ?? 'outcome', config)`.
 *
 * @example
 * ```ts
 * const fakes = outcomeInjection({ enabled: true, rate: 0.1, outcome: { status: 503 } });
 * ```
 */
export function outcomeInjection(options: OutcomeInjectionConfig & ChaosName): OutcomeInjection {
  const [name, config] = split<OutcomeInjectionConfig>(options, 'outcome');
  return new OutcomeInjection(name, config);
}

/**
 * Same as `new BehaviorInjection(name ?? 'behavior', config)`.
 *
 * @example
 * ```ts
 * const monkey = behaviorInjection({ enabled: true, rate: 0.01, behavior: () => cache.clear() });
 * ```
 */
export function behaviorInjection(options: BehaviorInjectionConfig & ChaosName): BehaviorInjection {
  const [name, config] = split<BehaviorInjectionConfig>(options, 'behavior');
  return new BehaviorInjection(name, config);
}
