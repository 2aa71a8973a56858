import type { Clock } from '@breakwater/core';
import { between } from './random.js';

/** How the simulated payment gateway behaves. */
export type GatewayMode =
  /** The documents' PG: 40% of calls fail at once, the rest answer in 100–500 ms. */
  | 'normal'
  /** No errors, 150–300 ms. */
  | 'slow'
  /** Never answers (until the caller's signal aborts). */
  | 'hang';

/**
 * What each mode does, in figures: the share of calls that fail at once with a 503, and the
 * latency of the others, [min, max] ms (uniform, whole ms). The report prints these.
 */
export const GATEWAY_MODES = {
  normal: { errorRate: 0.4, latency: [100, 500] },
  slow: { errorRate: 0, latency: [150, 300] },
} as const satisfies Record<Exclude<GatewayMode, 'hang'>, { errorRate: number; latency: readonly [number, number] }>;

export interface PaymentRequest {
  readonly orderId: string;
  readonly amount: number;
}

export interface Receipt {
  readonly orderId: string;
  readonly approvedAt: number;
}

/** The error the gateway fails with. */
export class GatewayError extends Error {
  override name = 'GatewayError';
  constructor(readonly status: number) {
    super(`payment gateway answered ${status}`);
  }
}

export interface GatewayOptions {
  readonly clock: Clock;
  readonly random: () => number;
  readonly mode?: GatewayMode;
  /**
   * Time added to every call on the client's side, [min, max] ms: the queueing of a client under
   * load (the documents' k6 runs put their calls well above the PG's own latency).
   */
  readonly overhead?: readonly [number, number];
}

/**
 * A payment-gateway simulator on a clock. `requestPayment` honours `signal`: an abort rejects
 * at once with the signal's reason and clears the call's timer.
 */
export class PaymentGateway {
  mode: GatewayMode;
  calls = 0;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #overhead: readonly [number, number];

  constructor(options: GatewayOptions) {
    this.#clock = options.clock;
    this.#random = options.random;
    this.mode = options.mode ?? 'normal';
    this.#overhead = options.overhead ?? [0, 0];
  }

  requestPayment(req: PaymentRequest, { signal }: { signal?: AbortSignal } = {}): Promise<Receipt> {
    this.calls++;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const overhead = between(this.#random, this.#overhead[0], this.#overhead[1]);
    let outcome: { fail: boolean; latency: number } | undefined;
    if (this.mode === 'normal') {
      const { errorRate, latency } = GATEWAY_MODES.normal;
      const fail = this.#random() < errorRate;
      outcome = { fail, latency: overhead + (fail ? 0 : between(this.#random, latency[0], latency[1])) };
    } else if (this.mode === 'slow') {
      const { latency } = GATEWAY_MODES.slow;
      outcome = { fail: false, latency: overhead + between(this.#random, latency[0], latency[1]) };
    }
    return new Promise<Receipt>((resolve, reject) => {
      const onAbort = () => {
        if (timer !== undefined) this.#clock.clearTimeout(timer);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer =
        outcome === undefined
          ? undefined
          : this.#clock.setTimeout(() => {
              signal?.removeEventListener('abort', onAbort);
              if (outcome.fail) reject(new GatewayError(503));
              else resolve({ orderId: req.orderId, approvedAt: this.#clock.now() });
            }, outcome.latency);
      // Like the socket of a real call, a pending gateway call keeps the process alive
      // (the system clock's timers are unref'd; a VirtualClock's have no ref).
      (timer as { ref?: () => void } | undefined)?.ref?.();
    });
  }
}
