import { randomInt } from 'node:crypto';

/**
 * What one RedisRateLimiter instance last saw of its key, sent with every batch so the script can
 * tell a key lost mid-use (evicted, deleted, flushed) from one that expired: the key's generation
 * (a random number a key gets when it is created; 0: none seen) and the last cycle it held
 * reservations for. By its TTL the key exists at least two cycles past that one, so if it is
 * absent — or there under another generation — before then, it was lost. Also the generation a
 * key this instance creates gets (drawn again once used, so a key it creates again differs).
 */
export class StateView {
  /** The generation a key this instance's next batch creates gets (ARGV). */
  generationArg: string;
  /** The generation last seen (ARGV; `'0'`: none). */
  seenArg = '0';
  /** The last cycle the key was seen to hold reservations for (ARGV). */
  untilArg = '-1';
  #generation: number;
  #seen = 0;
  #until = -1;
  /** The generation of the last loss reported (one report per loss). */
  #reported = 0;

  constructor() {
    this.#generation = freshGeneration();
    this.generationArg = String(this.#generation);
  }

  /**
   * Takes in a batch's reply header: the key's `generation` and last cycle reserved `until` after
   * it, and whether the script found the key `lost`. True when this is the first time this
   * instance hears of that loss (the caller reports it once).
   */
  observe(generation: number, until: number, lost: boolean): boolean {
    if (generation !== this.#seen) {
      this.#seen = generation;
      this.seenArg = String(generation);
    }
    if (until !== this.#until) {
      this.#until = until;
      this.untilArg = String(until);
    }
    if (generation !== 0 && generation === this.#generation) {
      // This instance's batch created the key: its next creation gets another generation.
      this.#generation = freshGeneration();
      this.generationArg = String(this.#generation);
    }
    if (!lost || generation === this.#reported) return false;
    this.#reported = generation;
    return true;
  }
}

/** A generation: a random integer in [1, 2^48), exact in a double and in Lua. */
function freshGeneration(): number {
  return randomInt(1, 2 ** 48);
}
