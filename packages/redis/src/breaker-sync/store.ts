import { systemClock, type EventPublisher } from '@breakwater/core';
import { CommandTimeoutError } from '../rate-limiter/deadlines.js';
import { ScriptRunner, type ScriptCall } from '../script-runner.js';
import type { BreakerSyncClient, BreakerSyncSubscriber } from './config.js';
import type { RedisBreakerSyncEvents } from './events.js';
import type { BreakerKeys } from './keys.js';
import type { Script } from './scripts.js';

// The sync's one door to Redis: runs the scripts through the package's ScriptRunner (EVALSHA, and
// EVAL on NOSCRIPT; every round trip within `commandTimeout` of real time, so a Redis that hangs is
// an outage within it, never a hang; the outage state), decodes each reply (replies.ts: a reply a
// script never gives is a store error), and decides what is an outage. A command is sent only
// while the client is ready: node-redis would otherwise queue it offline and replay it on
// reconnection, and the fleet state is re-read after an outage, never replayed. An outage is told
// once (`storeError`), its end once both connections are ready and Redis answers again
// (`storeRecovered`): an answer that comes after its deadline is dropped, but it still says that
// Redis answers.

export interface StoreHooks {
  /** Redis went away (or hangs): breakers go on alone. */
  down(): void;
  /** Both connections are ready again: re-read the fleet state. */
  recovered(): void;
}

export class Store {
  readonly #off: (() => void)[] = [];
  readonly #runner: ScriptRunner;

  constructor(
    readonly client: BreakerSyncClient,
    readonly subscriber: BreakerSyncSubscriber,
    readonly events: EventPublisher<RedisBreakerSyncEvents>,
    readonly hooks: StoreHooks,
    commandTimeout: number,
  ) {
    const outage = {
      down: (): void => hooks.down(),
      up: (): void => {
        if (events.wants('storeRecovered')) events.emit('storeRecovered', {});
        hooks.recovered();
      },
    };
    // Every answer, even one past its deadline, may end an outage whose `ready` came before we noticed.
    this.#runner = new ScriptRunner(client, commandTimeout, outage, systemClock, () => this.#ready());
    for (const connection of [client, subscriber]) {
      const onError = (error: unknown): void => this.#fail(error, 'connection');
      const onReady = (): void => this.#ready();
      connection.on('error', onError);
      connection.on('ready', onReady);
      this.#off.push(() => {
        connection.off('error', onError);
        connection.off('ready', onReady);
      });
    }
    if (!client.isReady || !subscriber.isReady) this.#fail(new Error('the Redis client is not connected (call connect())'), 'attach');
  }

  /** Whether the store is known to be unreachable (or hung). */
  get down(): boolean {
    return this.#runner.down;
  }

  /** Runs `script` for one name's keys: its decoded reply; `undefined` when Redis cannot answer within `commandTimeout`, or answers what the script never does (reported). */
  async run<R>(script: Script<R>, keys: BreakerKeys, args: readonly (string | number)[]): Promise<R | undefined> {
    if (!this.client.isReady) {
      this.#fail(new Error('the Redis client is not ready'), script.name);
      return undefined;
    }
    try {
      return script.decode(await this.#runner.run(script, call(script, keys, args)));
    } catch (error) {
      this.#fail(error, script.name);
      return undefined;
    }
  }

  /** Like {@link run}, but a failure throws (an operator's command must say it did not happen, or may not have). */
  async command<R>(script: Script<R>, keys: BreakerKeys, args: readonly (string | number)[]): Promise<R> {
    if (!this.client.isReady) throw new Error(`RedisBreakerSync: ${script.name} needs Redis, and the client is not ready`);
    try {
      return script.decode(await this.#runner.run(script, call(script, keys, args)));
    } catch (error) {
      this.#fail(error, script.name);
      const late = error instanceof CommandTimeoutError ? ': Redis may still apply it once it answers' : '';
      throw new Error(`RedisBreakerSync: ${script.name} failed (${String((error as { message?: unknown })?.message ?? error)})${late}`, { cause: error });
    }
  }

  /** A round trip of the subscriber (subscribe, unsubscribe) within `commandTimeout`; false when it failed (reported as `operation`). */
  async subscription(work: Promise<unknown>, operation: string): Promise<boolean> {
    try {
      await this.#runner.bound(work);
      return true;
    } catch (error) {
      this.#fail(error, operation);
      return false;
    }
  }

  /** `work` (a round trip), or a rejection with CommandTimeoutError past `commandTimeout`; nothing reported. */
  bounded<T>(work: Promise<T>): Promise<T> {
    return this.#runner.bound(work);
  }

  #fail(error: unknown, operation: string): void {
    // A connection's error always means a lost connection (node-redis reconnects, then says `ready`);
    // a round trip past its deadline means a Redis that hangs (it ends when Redis answers again).
    // Any other failure (an error reply, a reply the script never gives) is reported and is no outage.
    const outage = operation === 'connection' || error instanceof CommandTimeoutError || !this.client.isReady || !this.subscriber.isReady;
    if (outage && this.#runner.down) return; // once per outage
    if (this.events.wants('storeError')) this.events.emit('storeError', { error, operation });
    if (outage) this.#runner.failed(error);
  }

  #ready(): void {
    if (this.client.isReady && this.subscriber.isReady) this.#runner.recovered();
  }

  /** Stops listening to the connections (they stay the caller's). */
  close(): void {
    for (const off of this.#off.splice(0)) off();
  }
}

/** A script's KEYS and ARGV for one name, as strings. */
function call(script: Script<unknown>, keys: BreakerKeys, args: readonly (string | number)[]): ScriptCall {
  return { keys: script.keys(keys), arguments: args.map(String) };
}
