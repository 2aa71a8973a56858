import type { Clock } from '@breakwater/core';
import { ScriptRunner, type LuaScript, type ScriptClient } from '../script-runner.js';
import { RATE_LIMITER_SCRIPT, RATE_LIMITER_SCRIPT_SHA } from './script.js';

/** The limiter's one script, as the runner sends it. */
const SCRIPT: LuaScript = { source: RATE_LIMITER_SCRIPT, sha: RATE_LIMITER_SCRIPT_SHA };

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
 * `commandTimeout` of real time (its {@link ScriptRunner}), so a dead or hung Redis is an error within
 * it, never a hang; a client that is not connected is an error at once (node-redis would queue the command
 * until it reconnects). While Redis is down ("an outage") only one call at a time probes it, and
 * only once the client says it is connected again; the others go to the fallback at once.
 */
export class Store {
  readonly #runner: ScriptRunner;
  readonly #keys: string[];
  /** Whether a probe is in flight during an outage. */
  #probing = false;
  /** During an outage: when (the round trips' clock) a call next gives the event loop a turn ({@link retryDue}). */
  #nextRetryAt = 0;

  constructor(client: ScriptClient, key: string, commandTimeout: number, clock: Clock, listener: StoreListener) {
    this.#keys = [key];
    // Round trips take real time (the runner's deadlines); outages are measured on the limiter's clock.
    this.#runner = new ScriptRunner(client, commandTimeout, listener, clock);
  }

  /** The time a round trip begins at, as {@link send} takes it (the round trips' clock: real time for a real Redis). */
  roundTripStart(): number {
    return this.#runner.now();
  }

  /** Whether an outage is going on. */
  get down(): boolean {
    return this.#runner.down;
  }

  /** The error that began the current (or last) outage. */
  get lastError(): unknown {
    return this.#runner.lastError;
  }

  /**
   * Whether a round trip may begin now. False — the caller's fallback decides — during an outage
   * while another round trip probes or the client is not connected, and when the client is not
   * connected (that begins an outage, unless `quiet`: a give-back only loses permits). During an
   * outage a round trip that may begin is the probe.
   */
  open(quiet: boolean): boolean {
    const ready = this.#runner.client.isReady !== false;
    if (this.#runner.down) {
      if (quiet || this.#probing || !ready) return false;
      this.#probing = true;
      return true;
    }
    if (ready) return true;
    if (!quiet) this.#runner.failed(new ClientNotReadyError());
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
    if (!this.#runner.down || this.#probing) return false;
    const now = this.#runner.now();
    if (now < this.#nextRetryAt) return false;
    this.#nextRetryAt = now + RETRY_INTERVAL_MS;
    return true;
  }

  /**
   * Runs the script with `argv` (a batch of operations) in a round trip {@link open}ed at
   * `startedAt` ({@link roundTripStart}); calls `resolve` once, with its reply (as `batch` checked
   * it), or with `undefined` when Redis did not answer within `commandTimeout` of `startedAt`,
   * answered an error or a reply the script never gives (the outage has been reported). The
   * {@link ScriptRunner} sends it (`EVALSHA`, and `EVAL` on `NOSCRIPT`). No promise of its own: an
   * answer reaches the callers in as few hops as it can.
   */
  send(argv: string[], batch: ReplyCheck, startedAt: number, resolve: (reply: number[] | undefined) => void): void {
    const probe = this.#runner.down;
    this.#runner.send(
      SCRIPT,
      { keys: this.#keys, arguments: argv },
      startedAt,
      (raw) => this.#answered(probe, batch, resolve, raw),
      (error) => this.#fail(probe, resolve, error),
    );
  }

  #answered(probe: boolean, batch: ReplyCheck, resolve: (reply: number[] | undefined) => void, raw: unknown): void {
    let reply: number[];
    try {
      reply = batch.check(raw);
    } catch (error) {
      return this.#fail(probe, resolve, error);
    }
    if (probe) this.#probing = false;
    this.#runner.recovered();
    resolve(reply);
  }

  #fail(probe: boolean, resolve: (reply: number[] | undefined) => void, error: unknown): void {
    if (probe) this.#probing = false;
    this.#runner.failed(error);
    resolve(undefined);
  }
}
