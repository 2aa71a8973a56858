import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { decorate } from '@breakwater/decorators';
import { Retry } from '@breakwater/retry';
import { TimeLimiter } from '@breakwater/time-limiter';
import { circuitBreaker, ConstantBackoff, CountBreaker, handleAll, retry, timeout, TimeoutStrategy, wrap } from 'cockatiel';
import { bw, floor, peer, type Row } from '../harness.js';
import { work } from '../work.js';

/** Row 6: Retry → CircuitBreaker → TimeLimiter around a call that succeeds at once. */
export function pipelineRows(): Row[] {
  const pipeline = decorate()
    .withRetry(new Retry('bench', { maxAttempts: 3, waitDuration: 0 }))
    .withCircuitBreaker(new CircuitBreaker('bench', { slidingWindowSize: 100, minimumNumberOfCalls: 100 }))
    .withTimeLimiter(new TimeLimiter('bench', { timeoutDuration: 1000 }));
  const ck = wrap(
    retry(handleAll, { maxAttempts: 2, backoff: new ConstantBackoff(0) }),
    circuitBreaker(handleAll, { halfOpenAfter: 60_000, breaker: new CountBreaker({ threshold: 0.5, size: 100, minimumNumberOfCalls: 100 }) }),
    timeout(1000, TimeoutStrategy.Cooperative),
  );
  return [
    {
      id: '6',
      title: 'Pipeline Retry → CircuitBreaker → TimeLimiter, success path',
      floor: floor('await fn()', () => work()),
      cases: [bw('Breakwater decorate()…', () => pipeline.execute(work)), peer('cockatiel wrap(retry, breaker, timeout)', () => ck.execute(work))],
    },
  ];
}
