/**
 * A slot of an {@link AdaptiveLimiter} taken by `tryAcquire` or `acquire`: call exactly one of its
 * methods, once, when the work it guards ends. The round-trip time is measured on the limiter's
 * clock from the moment the slot was taken. A second call of any method is ignored.
 *
 * - `onSuccess()`: the backend answered; the call is a sample with its round-trip time.
 * - `onDropped()`: the backend was overloaded (a time-out, a 429/503); the sample is a drop.
 * - `onIgnore()`: the call tells nothing of the backend (it never reached it, or failed on its own);
 *   no sample.
 *
 * @example
 * ```ts
 * const token = limiter.tryAcquire();
 * if (token === null) return res.status(503).end();
 * try {
 *   res.json(await backend.get(id));
 *   token.onSuccess();
 * } catch (error) {
 *   if (isOverload(error)) token.onDropped();
 *   else token.onIgnore();
 *   throw error;
 * }
 * ```
 */
export interface AdaptiveToken {
  /** The partition the slot was taken in (`undefined`: none). */
  readonly partition: string | undefined;
  onSuccess(): void;
  onDropped(): void;
  onIgnore(): void;
}

/** How a token ended: 0 a success, 1 a drop, 2 ignored. */
export type TokenOutcome = 0 | 1 | 2;

/** What a {@link LimiterToken} reports to its limiter (bound once per limiter: no closure per token). */
export type TokenSettler = (token: LimiterToken, outcome: TokenOutcome) => void;

/** The limiter's token: the lane and the moment of its slot, settled once. */
export class LimiterToken implements AdaptiveToken {
  #done = false;

  constructor(
    readonly partition: string | undefined,
    /** The slot's lane (its partition's index; the partition count: none). */
    readonly lane: number,
    /** `clock.now()` when the slot was taken. */
    readonly start: number,
    /** Calls in flight once the slot was taken, this one included. */
    readonly inFlight: number,
    readonly settle: TokenSettler,
  ) {}

  onSuccess(): void {
    this.#end(0);
  }

  onDropped(): void {
    this.#end(1);
  }

  onIgnore(): void {
    this.#end(2);
  }

  #end(outcome: TokenOutcome): void {
    if (this.#done) return;
    this.#done = true;
    this.settle(this, outcome);
  }
}
