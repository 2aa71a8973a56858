import { systemClock, type Clock } from '@breakwater/core';
import { Deadlines, type InFlight } from './deadlines.js';
import { isNoScript, RATE_LIMITER_SCRIPT, RATE_LIMITER_SCRIPT_SHA, type ScriptClient } from './script.js';

/** What checks a round trip's reply (its batch: see `checkReply`): the reply as numbers, or a throw (a store error). */
export interface ReplyCheck {
  check(raw: unknown): number[];
}

/** What {@link Store} tells its limiter. */
export interface StoreListener {
  /** Redis stopped answering (once per outage). */
  readonly down: (error: unknown) => void;
  /** Redis answers again after `downtimeMs` (once per outage). */
  readonly up: (downtimeMs: number) => void;
}

/**
 * During an outage, how often (real time, ms) a call of the call path gives the event loop a turn
 * before it decides, so that the client can reconnect even under a caller that never yields.
 */
export const RETRY_INTERVAL_MS = 50;

/** The error a call gets when the client is not connected: no command is queued for later. */
export class ClientNotReadyError extends Error {
  constructor() {
    super('the redis client is not ready (closed, disconnected or reconnecting)');
    this.name = 'ClientNotReadyError';
  }
}

/**
 * The limiter's one key on Redis, and whether Redis answers. Every round trip ends within
 * `commandTimeout` of real time ({@link Deadlines}), so a dead or hung Redis is an error within
 * it, never a hang; a client that is not connected is an error at once (node-redis would queue the command
 * until it reconnects). While Redis is down ("an outage") only one call at a time probes it, and
 * only once the client says it is connected again; the others go to the fallback at once.
 */
export class Store {
  readonly #client: ScriptClient;
  readonly #keys: string[];
  readonly #deadlines: Deadlines;
  readonly #clock: Clock;
  readonly #listener: StoreListener;
  /** When the outage began (clock time), or undefined while Redis answers. */
  #downSince: number | undefined = undefined;
  /** The error that began the outage. */
  #lastError: unknown = undefined;
  /** Whether a probe is in flight during an outage. */
  #probing = false;
  /** During an outage: when (the round trips' clock) a call next gives the event loop a turn ({@link retryDue}). */
  #nextRetryAt = 0;

  constructor(client: ScriptClient, key: string, commandTimeout: number, clock: Clock, listener: StoreListener) {
    this.#client = client;
    this.#keys = [key];
    this.#deadlines = new Deadlines(commandTimeout, systemClock); // I/O takes real time, whatever clock the cycles count on
    this.#clock = clock;
    this.#listener = listener;
  }

  /** The time a round trip begins at, as {@link send} takes it (the round trips' clock: real time for a real Redis). */
  roundTripStart(): number {
    return this.#deadlines.now();
  }

  /** Whether an outage is going on. */
  get down(): boolean {
    return this.#downSince !== undefined;
  }

  /** The error that began the current (or last) outage. */
  get lastError(): unknown {
    return this.#lastError;
  }

  /**
   * Whether a round trip may begin now. False — the caller's fallback decides — during an outage
   * while another round trip probes or the client is not connected, and when the client is not
   * connected (that begins an outage, unless `quiet`: a give-back only loses permits). During an
   * outage a round trip that may begin is the probe.
   */
  open(quiet: boolean): boolean {
    if (this.#downSince !== undefined) {
      if (quiet || this.#probing || this.#client.isReady === false) return false;
      this.#probing = true;
      return true;
    }
    if (this.#client.isReady !== false) return true;
    if (!quiet) this.#failed(new ClientNotReadyError());
    return false;
  }

  /**
   * During an outage, when no round trip could begin ({@link open} was false) and none is probing:
   * whether this call should give the event loop a turn and ask {@link open} again — true once per
   * {@link RETRY_INTERVAL_MS} of real time. A caller that awaits its calls in a loop gets only
   * resolved promises from a fallback, which never let the client's reconnection (timers, socket
   * events) run; this lets it run from the call path, on time.
   */
  retryDue(): boolean {
    if (this.#downSince === undefined || this.#probing) return false;
    const now = this.#deadlines.now();
    if (now < this.#nextRetryAt) return false;
    this.#nextRetryAt = now + RETRY_INTERVAL_MS;
    return true;
  }

  /**
   * Runs the script with `argv` (a batch of operations) in a round trip {@link open}ed at
   * `startedAt` ({@link roundTripStart}); calls `resolve` once, with its reply (as `batch` checked
   * it), or with `undefined` when Redis did not answer within `commandTimeout` of `startedAt`,
   * answered an error or a reply the script never gives (the outage has been reported). `EVALSHA`, and `EVAL` on `NOSCRIPT`, which loads the script again.
   * No promise of its own: an answer reaches the callers in as few hops as it can.
   */
  send(argv: string[], batch: ReplyCheck, startedAt: number, resolve: (reply: number[] | undefined) => void): void {
    // No named closures here: a function expression bound to a name costs a defineProperty per
    // call when the source runs through esbuild's keepNames (tsx, vitest).
    const probe = this.#downSince !== undefined;
    const client = this.#client;
    const options = { keys: this.#keys, arguments: argv };
    const entry = this.#deadlines.start((error) => this.#fail(probe, resolve, error), startedAt);
    let sent: Promise<unknown>;
    try {
      sent = client.evalSha(RATE_LIMITER_SCRIPT_SHA, options);
    } catch (error) {
      return this.#refused(entry, probe, resolve, error);
    }
    sent.then(
      (raw) => this.#answered(entry, probe, batch, resolve, raw),
      (error: unknown) => {
        if (!isNoScript(error) || !entry.linked) return this.#refused(entry, probe, resolve, error);
        client.eval(RATE_LIMITER_SCRIPT, options).then(
          (raw) => this.#answered(entry, probe, batch, resolve, raw),
          (error2: unknown) => this.#refused(entry, probe, resolve, error2),
        );
      },
    );
  }

  #answered(entry: InFlight, probe: boolean, batch: ReplyCheck, resolve: (reply: number[] | undefined) => void, raw: unknown): void {
    if (!this.#deadlines.end(entry)) return;
    let reply: number[];
    try {
      reply = batch.check(raw);
    } catch (error) {
      return this.#fail(probe, resolve, error);
    }
    if (probe) this.#probing = false;
    if (this.#downSince !== undefined) this.#recovered();
    resolve(reply);
  }

  #refused(entry: InFlight, probe: boolean, resolve: (reply: number[] | undefined) => void, error: unknown): void {
    if (this.#deadlines.end(entry)) this.#fail(probe, resolve, error);
  }

  #fail(probe: boolean, resolve: (reply: number[] | undefined) => void, error: unknown): void {
    if (probe) this.#probing = false;
    this.#failed(error);
    resolve(undefined);
  }

  #failed(error: unknown): void {
    if (this.#downSince !== undefined) return;
    this.#downSince = this.#clock.now();
    this.#lastError = error;
    this.#listener.down(error);
  }

  #recovered(): void {
    const downtime = this.#clock.now() - (this.#downSince ?? 0);
    this.#downSince = undefined;
    this.#listener.up(downtime);
  }
}
