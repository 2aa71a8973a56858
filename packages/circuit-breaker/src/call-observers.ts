import { callbackThrew } from '@breakwater/core/internal';
import type { CallObserver } from './events.js';

// The observers of `observeCalls`. The recording path (recording.ts) checks one field of the
// state machine, `observer`: `undefined` when nobody observes, else one function — the only
// observer, contained, or a fan-out over several. This list rebuilds that function on each
// subscribe and unsubscribe, so a call pays nothing for the bookkeeping.

/** One subscription (its own identity: the same function subscribed twice is observed twice). */
interface Subscription {
  readonly observer: CallObserver;
}

export class CallObservers {
  readonly #subscriptions: Subscription[] = [];

  constructor(
    /** `CircuitBreaker '<name>'`: how a warning names the breaker. */
    readonly source: string,
    /** Receives the function the recording path calls (or `undefined`) after every change. */
    readonly publish: (observer: CallObserver | undefined) => void,
  ) {}

  /** Adds `observer`; returns the function that removes it (idempotent). */
  add(observer: CallObserver): () => void {
    const subscription: Subscription = { observer };
    this.#subscriptions.push(subscription);
    this.#rebuild();
    return () => {
      const at = this.#subscriptions.indexOf(subscription);
      if (at < 0) return;
      this.#subscriptions.splice(at, 1);
      this.#rebuild();
    };
  }

  /** The function to call: `undefined`, the only observer, or a fan-out over a snapshot of them. */
  #rebuild(): void {
    const observers = this.#subscriptions.map((s) => this.#contained(s.observer));
    if (observers.length === 0) this.publish(undefined);
    else if (observers.length === 1) this.publish(observers[0]);
    else
      this.publish((kind, elapsed) => {
        for (const observe of observers) observe(kind, elapsed);
      });
  }

  /** `observer` with its throw reported once (a `BreakwaterCallbackWarning`); the call's outcome and recording are unchanged. */
  #contained(observer: CallObserver): CallObserver {
    const source = this.source;
    return (kind, elapsed) => {
      try {
        observer(kind, elapsed);
      } catch (thrown) {
        callbackThrew(source, 'an observer of observeCalls', observer, thrown, 'the call is recorded all the same');
      }
    };
  }
}
