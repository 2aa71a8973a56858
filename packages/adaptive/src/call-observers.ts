import { callbackThrew } from '@breakwater/core/internal';

/**
 * How an adaptive limiter's finished call fed its algorithm: a sample with its round-trip time
 * (`successful`), a drop (`dropped`), or nothing (`ignored`).
 *
 * @example
 * ```ts
 * const counted = (kind: AdaptiveCallKind) => kind !== 'ignored';
 * ```
 */
export type AdaptiveCallKind = 'successful' | 'dropped' | 'ignored';

/**
 * An observer of `AdaptiveLimiter.observeCalls`: called once per finished call, with no event
 * object built (what exporters bind to for a round-trip-time histogram).
 *
 * @example
 * ```ts
 * const observer: AdaptiveCallObserver = (kind, rttMs) => { if (kind !== 'ignored') rtts.observe(rttMs / 1000); };
 * limiter.observeCalls(observer);
 * ```
 */
export type AdaptiveCallObserver = (kind: AdaptiveCallKind, rttMs: number) => void;

/** The kinds by a call's outcome code (0 a success, 1 a drop, 2 ignored). */
export const CALL_KINDS: readonly AdaptiveCallKind[] = ['successful', 'dropped', 'ignored'];

/**
 * The observers of `observeCalls`. A call's end reads one field, {@link notify}: `undefined` with
 * no observer, else one function (the only observer, or a loop over a snapshot of them), rebuilt
 * on each subscribe and unsubscribe. An observer that throws is reported once and changes nothing.
 */
export class CallObservers {
  #observers: readonly AdaptiveCallObserver[] = [];
  /** What a call's end calls, if anything. */
  notify: AdaptiveCallObserver | undefined = undefined;

  constructor(readonly source: string) {}

  /** Adds `observer` (contained); returns the function that removes it (a second call does nothing). */
  add(observer: AdaptiveCallObserver): () => void {
    const source = this.source;
    const contained: AdaptiveCallObserver = (kind, rttMs) => {
      try {
        observer(kind, rttMs);
      } catch (thrown) {
        callbackThrew(source, 'an observer of observeCalls', observer, thrown, 'the call ends all the same');
      }
    };
    this.#set([...this.#observers, contained]);
    return () => this.#set(this.#observers.filter((o) => o !== contained));
  }

  #set(observers: readonly AdaptiveCallObserver[]): void {
    this.#observers = observers;
    this.notify =
      observers.length === 0
        ? undefined
        : observers.length === 1
          ? observers[0]
          : (kind, rttMs) => {
              for (const observe of observers) observe(kind, rttMs);
            };
  }
}
