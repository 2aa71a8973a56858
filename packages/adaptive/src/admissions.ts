import type { EventPublisher, RequestNotPermittedError } from '@breakwater/core';
import type { AdaptiveLimiterEvents } from './events.js';
import { refusal } from './refusal.js';
import type { Slots } from './slots.js';

/** What {@link Admissions} works on: the limiter's parts and options. */
export interface AdmissionsParts {
  readonly source: string;
  readonly name: string;
  /** The partitions' names by lane (a lane past the last: no partition). */
  readonly names: readonly string[];
  readonly slots: Slots;
  readonly events: EventPublisher<AdaptiveLimiterEvents>;
  readonly maxWaitDuration: number;
  readonly maxQueue: number;
  readonly writableStackTraceEnabled: boolean;
}

/**
 * An adaptive limiter's answers to a call: `callPermitted`, and the refusals — counted, published
 * (`callRejected`) and, when the caller gets an error, a `RequestNotPermittedError` whose message
 * says why and names the partition, the limit and the calls in flight.
 */
export class Admissions {
  readonly #parts: AdmissionsParts;
  /** Calls refused since the limiter was made. */
  rejected = 0;

  constructor(parts: AdmissionsParts) {
    this.#parts = parts;
  }

  /** A call of `lane` got a slot after `waitMs`. */
  permitted(lane: number, waitMs: number): void {
    const { events, names } = this.#parts;
    if (events.wants('callPermitted')) events.emit('callPermitted', { partition: names[lane], waitMs });
  }

  /** The refusal of a call that cannot wait (`maxWaitDuration` 0, or the queue full), or `undefined`: it may wait. */
  cannotWait(lane: number): RequestNotPermittedError | undefined {
    const { maxWaitDuration, maxQueue, slots } = this.#parts;
    if (maxWaitDuration === 0) return this.refuse(lane, 'does not permit further calls');
    if (slots.waiting >= maxQueue) return this.refuse(lane, `does not permit further calls: its queue is full (${maxQueue} waiting)`);
    return undefined;
  }

  /** Counts and publishes a refusal (no error: `tryAcquire`'s `null`). */
  rejectedNow(lane: number): void {
    this.rejected++;
    const { events, names, slots } = this.#parts;
    if (events.wants('callRejected')) events.emit('callRejected', { partition: names[lane], limit: slots.limit, inFlight: slots.inFlight });
  }

  /** Counts and publishes a refusal, and builds its error (`detail` says why). */
  refuse(lane: number, detail: string): RequestNotPermittedError {
    this.rejectedNow(lane);
    const { source, name, names, slots, writableStackTraceEnabled } = this.#parts;
    const where = lane < names.length ? ` in partition '${names[lane]}'` : '';
    return refusal(source, name, `${detail}${where} (limit ${slots.limit}, ${slots.inFlight} in flight)`, writableStackTraceEnabled);
  }
}
