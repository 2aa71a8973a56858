import type { CircuitBreaker } from '@breakwater/circuit-breaker';
import { BulkheadFullError, RequestNotPermittedError, TimeoutError } from '@breakwater/core';
import { CallNotPermittedError } from '@breakwater/circuit-breaker';
import type { Retry } from '@breakwater/retry';
import { SimulatedBackendError } from './engine-types.js';
import { BulkheadGate, LimiterGate } from './gates.js';
import type { BuiltLayer } from './pipeline.js';

const KIND = { retry: 0, circuitBreaker: 1, timeLimiter: 2, rateLimiter: 3, bulkhead: 4 } as const;

/**
 * A pipeline's layers as the engine reads them, one array per property indexed by layer (no
 * lookup by kind per event). `errors[code]` is the error an outcome code stands for (the C_*
 * codes of frame.ts), and `retryable[layer][code]` whether that layer's retry retries it.
 */
export class LayerTable {
  readonly kinds: number[] = []; // 0 retry, 1 breaker, 2 time limiter, 3 rate limiter, 4 bulkhead
  readonly retries: (Retry | undefined)[] = [];
  readonly retryable: boolean[][] = [];
  readonly breakers: (CircuitBreaker | undefined)[] = [];
  readonly timeouts: number[] = [];
  readonly cancels: boolean[] = [];
  readonly limiters: (LimiterGate | undefined)[] = [];
  readonly gates: (BulkheadGate | undefined)[] = [];
  readonly errors: readonly unknown[] = [
    undefined,
    new SimulatedBackendError('the simulated backend failed'),
    new TimeoutError('simulated', 0),
    new CallNotPermittedError('simulated', 'OPEN'),
    new RequestNotPermittedError('simulated', 0),
    new BulkheadFullError('simulated'),
  ];

  constructor(layers: readonly BuiltLayer[]) {
    for (const layer of layers) {
      this.kinds.push(KIND[layer.kind]);
      const retry = layer.kind === 'retry' ? layer.retry : undefined;
      this.retries.push(retry);
      this.retryable.push(this.errors.map((e) => e !== undefined && retry !== undefined && retry.config.isRetryable(e)));
      this.breakers.push(layer.kind === 'circuitBreaker' ? layer.breaker : undefined);
      this.timeouts.push(layer.kind === 'timeLimiter' ? layer.timeLimiter.config.timeoutDuration : 0);
      this.cancels.push(layer.kind === 'timeLimiter' ? layer.timeLimiter.config.cancelRunningFuture : true);
      this.limiters.push(layer.kind === 'rateLimiter' ? new LimiterGate(layer.rateLimiter) : undefined);
      this.gates.push(layer.kind === 'bulkhead' ? new BulkheadGate(layer.bulkhead) : undefined);
    }
  }
}
