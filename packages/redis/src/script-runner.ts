import { systemClock, type Clock } from '@breakwater/core';
import { Deadlines } from './rate-limiter/deadlines.js';

// The one way @breakwater/redis talks to Redis: both the RedisRateLimiter's store and the
// RedisBreakerSync's run their Lua scripts through a ScriptRunner. It sends EVALSHA, and EVAL when
// Redis answers NOSCRIPT (a restarted, failed-over or flushed Redis has no scripts); it bounds
// every round trip to `commandTimeout` of real time (Deadlines on systemClock: I/O takes real time,
// whatever clock the policies count on), so a Redis that hangs is an error within it, never a
// hang; and it keeps the outage state: an outage begins once (`down`) and ends once (`up`, with
// its length), however many round trips fail or succeed meanwhile. What counts as an outage, and
// when one ends, each store decides (the limiter on any failure and the next answer; the sync on
// lost connections and timeouts, and once both its connections are ready).

/**
 * The part of a node-redis client (or cluster) that @breakwater/redis runs its scripts with:
 * `createClient()` and `createCluster()` from `redis` 6 satisfy it once connected. `isReady` tells
 * a connection that can answer now: no command is ever left in node-redis' offline queue to be
 * replayed later.
 *
 * @example
 * ```ts
 * const client: ScriptClient = await createClient({ url: process.env.REDIS_URL }).on('error', log.warn).connect();
 * ```
 */
export interface ScriptClient {
  /** Whether the connection is up (node-redis `isReady`). */
  readonly isReady: boolean;
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** A Lua script as the runner sends it: its source (EVAL) and the SHA-1 of it (EVALSHA). */
export interface LuaScript {
  readonly source: string;
  readonly sha: string;
}

/** What a {@link ScriptRunner} tells its store of an outage. */
export interface OutageListener {
  /** An outage began with `error` (once per outage). */
  down(error: unknown): void;
  /** The outage ended after `downtimeMs` (the runner's clock; once per outage). */
  up(downtimeMs: number): void;
}

/** Whether Redis answered `NOSCRIPT` (its script cache does not hold the script: restarted, failed over, flushed). */
export function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/** A script's `keys` and `arguments`, as node-redis takes them. */
export interface ScriptCall {
  keys: string[];
  arguments: string[];
}

/**
 * Runs Lua scripts on one client within a deadline, and keeps the outage state (see the top of
 * this file). `send` is callback-based for the limiter's hot path (no promise of its own); `run` is
 * its promise.
 */
export class ScriptRunner {
  readonly client: ScriptClient;
  readonly #deadlines: Deadlines;
  readonly #clock: Clock;
  readonly #listener: OutageListener;
  readonly #answered: (() => void) | undefined;
  /** When the outage began (the runner's clock), or undefined while Redis answers. */
  #downSince: number | undefined = undefined;
  /** The error that began the current (or last) outage. */
  #lastError: unknown = undefined;

  /**
   * `clock` measures outages (`up`'s downtime); round trips are timed on real time. `answered`,
   * if given, runs on every answer of Redis, one past its deadline too (it still says that Redis
   * answers).
   */
  constructor(client: ScriptClient, commandTimeout: number, listener: OutageListener, clock: Clock = systemClock, answered?: () => void) {
    this.client = client;
    this.#deadlines = new Deadlines(commandTimeout, systemClock);
    this.#clock = clock;
    this.#listener = listener;
    this.#answered = answered;
  }

  /** Whether an outage is going on. */
  get down(): boolean {
    return this.#downSince !== undefined;
  }

  /** The error that began the current (or last) outage. */
  get lastError(): unknown {
    return this.#lastError;
  }

  /** The time a round trip begins at, as {@link send} takes it (real time). */
  now(): number {
    return this.#deadlines.now();
  }

  /**
   * Runs `script` (`EVALSHA`, and `EVAL` on `NOSCRIPT` while the round trip is within its
   * deadline) in a round trip that began at `startedAt` ({@link now}); calls `answered` with
   * Redis's reply, or `failed` with the error (a throw, an error reply, `CommandTimeoutError`
   * past `commandTimeout` of `startedAt`): one of them, once. Nothing is reported here: the caller
   * says whether a failure is an outage ({@link failed}).
   */
  send(script: LuaScript, call: ScriptCall, startedAt: number, answered: (raw: unknown) => void, failed: (error: unknown) => void): void {
    // No named closures here: a function expression bound to a name costs a defineProperty per
    // call when the source runs through esbuild's keepNames (tsx, vitest).
    const client = this.client;
    const deadlines = this.#deadlines;
    const entry = deadlines.start(failed, startedAt);
    let sent: Promise<unknown>;
    try {
      sent = client.evalSha(script.sha, call);
    } catch (error) {
      if (deadlines.end(entry)) failed(error);
      return;
    }
    sent.then(
      (raw) => this.#reply(deadlines.end(entry), answered, raw),
      (error: unknown) => {
        if (!isNoScript(error) || !entry.linked) {
          if (deadlines.end(entry)) failed(error);
          else if (isNoScript(error)) this.#answered?.();
          return;
        }
        client.eval(script.source, call).then(
          (raw) => this.#reply(deadlines.end(entry), answered, raw),
          (error2: unknown) => deadlines.end(entry) && failed(error2),
        );
      },
    );
  }

  /** {@link send} as a promise: the reply, or a rejection with the error. */
  run(script: LuaScript, call: ScriptCall): Promise<unknown> {
    return new Promise((resolve, reject) => this.send(script, call, this.now(), resolve, reject));
  }

  /** `work` (a round trip other than a script), or a rejection with `CommandTimeoutError` past `commandTimeout`; nothing reported. */
  bound<T>(work: Promise<T>): Promise<T> {
    return this.#deadlines.bound(work);
  }

  /** Begins an outage with `error`, unless one is going on: `down` once per outage. */
  failed(error: unknown): void {
    if (this.#downSince !== undefined) return;
    this.#downSince = this.#clock.now();
    this.#lastError = error;
    this.#listener.down(error);
  }

  /** Ends the outage, if one is going on: `up` once per outage. */
  recovered(): void {
    if (this.#downSince === undefined) return;
    const downtime = this.#clock.now() - this.#downSince;
    this.#downSince = undefined;
    this.#listener.up(downtime);
  }

  #reply(inTime: boolean, answered: (raw: unknown) => void, raw: unknown): void {
    this.#answered?.();
    if (inTime) answered(raw);
  }
}
