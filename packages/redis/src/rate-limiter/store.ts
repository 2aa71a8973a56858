import type { Clock } from '@breakwater/core';
import { Deadlines } from './deadlines.js';
import { isNoScript, parseReply, RATE_LIMITER_SCRIPT, RATE_LIMITER_SCRIPT_SHA, runScript, type ScriptClient, type ScriptReply } from './script.js';

/** What {@link Store} tells its limiter. */
export interface StoreListener {
  /** Redis stopped answering (once per outage). */
  readonly down: (error: unknown) => void;
  /** Redis answers again after `downtimeMs` (once per outage). */
  readonly up: (downtimeMs: number) => void;
}

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

  constructor(client: ScriptClient, key: string, commandTimeout: number, clock: Clock, listener: StoreListener) {
    this.#client = client;
    this.#keys = [key];
    this.#deadlines = new Deadlines(commandTimeout);
    this.#clock = clock;
    this.#listener = listener;
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
   * Runs the script with `argv`; resolves its reply, or `undefined` when Redis is unavailable
   * (the caller's fallback decides; the outage has been reported). Returns `undefined` at once,
   * without a round trip, during an outage when another call probes or the client is not connected.
   */
  run(argv: string[]): Promise<ScriptReply | undefined> | undefined {
    const probe = this.#downSince !== undefined;
    if (probe && (this.#probing || this.#client.isReady === false)) return undefined;
    if (!probe && this.#client.isReady === false) {
      this.#failed(new ClientNotReadyError());
      return undefined;
    }
    if (probe) this.#probing = true;
    // One promise for the round trip, its deadline and the parse (EVALSHA, and EVAL on NOSCRIPT:
    // see runScript), so an answer reaches the caller in as few hops as it can.
    return new Promise<ScriptReply | undefined>((resolve) => {
      const client = this.#client;
      const options = { keys: this.#keys, arguments: argv };
      const fail = (error: unknown): void => {
        if (probe) this.#probing = false;
        this.#failed(error);
        resolve(undefined);
      };
      const entry = this.#deadlines.start(fail);
      const answered = (raw: unknown): void => {
        if (!this.#deadlines.end(entry)) return;
        let reply: ScriptReply;
        try {
          reply = parseReply(raw, argv);
        } catch (error) {
          return fail(error);
        }
        if (probe) this.#probing = false;
        if (this.#downSince !== undefined) this.#recovered();
        resolve(reply);
      };
      const refused = (error: unknown): void => {
        if (this.#deadlines.end(entry)) fail(error);
      };
      client.evalSha(RATE_LIMITER_SCRIPT_SHA, options).then(answered, (error: unknown) => {
        if (isNoScript(error) && entry.linked) client.eval(RATE_LIMITER_SCRIPT, options).then(answered, refused);
        else refused(error);
      });
    });
  }

  /** Runs the script and ignores any failure (a give-back: losing it only loses permits). */
  runQuietly(argv: string[]): void {
    if (this.#downSince !== undefined || this.#client.isReady === false) return;
    runScript(this.#client, this.#keys, argv).then(undefined, () => {});
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
