// What the @resilient tests share, for the standard and the legacy fixtures alike: a scripted
// payment backend, a breaker that opens after two calls, an order.
import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { onAbort, type Clock } from '@breakwater/core';

/** The fixtures' payment backend (test/tc39/ and test/legacy/ declare the same `PaymentClient`). */
export interface PaymentClient {
  charge(req: { readonly orderId: string; readonly amount: number }, options: { signal: AbortSignal }): Promise<void>;
}

/** A backend client answering each charge as scripted ('ok' once the script runs out); 'hang' waits for the signal. */
export function scripted(script: ReadonlyArray<'ok' | 'fail' | 'hang'>): { client: PaymentClient; seen: { orderId: string; signal: AbortSignal }[] } {
  const queue = [...script];
  const seen: { orderId: string; signal: AbortSignal }[] = [];
  const client: PaymentClient = {
    charge(req, { signal }) {
      seen.push({ orderId: req.orderId, signal });
      const next = queue.shift() ?? 'ok';
      if (next === 'fail') return Promise.reject(new Error(`502 for ${req.orderId}`));
      if (next === 'ok') return Promise.resolve();
      return new Promise<void>((_resolve, reject) => {
        onAbort(signal, () => reject(signal.reason));
      });
    },
  };
  return { client, seen };
}

/** A breaker on `clock` that opens at 50 % failures of 2 calls, for 1 s. */
export const breakerOn = (clock: Clock, name: string): CircuitBreaker =>
  new CircuitBreaker(name, { clock, slidingWindowSize: 2, minimumNumberOfCalls: 2, failureRateThreshold: 50, waitDurationInOpenState: 1000 });

/** An order of 10. */
export const order = (orderId: string): { orderId: string; amount: number } => ({ orderId, amount: 10 });
