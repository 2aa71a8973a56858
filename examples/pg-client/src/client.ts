import { CircuitBreaker, type CircuitBreakerConfig } from '@breakwater/circuit-breaker';
import type { Clock } from '@breakwater/core';
import { decorate } from '@breakwater/decorators';
import { Retry } from '@breakwater/retry';
import { TimeLimiter } from '@breakwater/time-limiter';
import type { PaymentGateway, PaymentRequest, Receipt } from './gateway.js';

/**
 * The documents' settings: window 20, failure 60%, slow calls over 100 ms at 50%, 10 s in OPEN,
 * 5 half-open calls (minimumNumberOfCalls left at its default of 100, so 20 for a 20-call window).
 */
export const DOCUMENTS_BREAKER: CircuitBreakerConfig = {
  slidingWindowType: 'COUNT_BASED',
  slidingWindowSize: 20,
  failureRateThreshold: 60,
  slowCallDurationThreshold: 100,
  slowCallRateThreshold: 50,
  waitDurationInOpenState: '10s',
  permittedNumberOfCallsInHalfOpenState: 5,
};

/** The documents' retry and time-out: 3 attempts 500 ms apart, each cut at 600 ms. */
export const DOCUMENTS_CLIENT = { maxAttempts: 3, waitDuration: 500, timeout: 600 } as const;

export interface PgClientOptions {
  readonly clock: Clock;
  readonly gateway: PaymentGateway;
  /** Attempts per payment, the first included (the documents' "retry=3"). */
  readonly maxAttempts?: number;
  readonly timeout?: number;
  readonly breaker?: CircuitBreakerConfig;
}

/**
 * The payment client of the documents: Retry → CircuitBreaker → TimeLimiter around the gateway,
 * so each attempt is its own breaker call and a time-out is a failure the breaker records.
 */
export function pgClient(options: PgClientOptions) {
  const { clock, gateway } = options;
  const retry = new Retry('pg', { maxAttempts: options.maxAttempts ?? DOCUMENTS_CLIENT.maxAttempts, waitDuration: DOCUMENTS_CLIENT.waitDuration, clock });
  const breaker = new CircuitBreaker('pg', { ...DOCUMENTS_BREAKER, ...options.breaker, clock });
  const timeLimiter = new TimeLimiter('pg', { timeoutDuration: options.timeout ?? DOCUMENTS_CLIENT.timeout, clock });
  const pipeline = decorate().withRetry(retry).withCircuitBreaker(breaker).withTimeLimiter(timeLimiter);
  const requestPayment: (req: PaymentRequest) => Promise<Receipt> = pipeline.wrap((ctx, req: PaymentRequest) =>
    gateway.requestPayment(req, { signal: ctx.signal }),
  );
  return { requestPayment, retry, breaker, timeLimiter, pipeline };
}
