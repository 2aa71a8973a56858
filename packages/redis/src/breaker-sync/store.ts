import { systemClock, type EventPublisher } from '@breakwater/core';
import { CommandTimeoutError, Deadlines } from '../rate-limiter/deadlines.js';
import type { BreakerSyncClient, BreakerSyncSubscriber } from './config.js';
import type { RedisBreakerSyncEvents } from './events.js';
import type { BreakerKeys } from './keys.js';
import type { Script } from './scripts.js';

// The sync's one door to Redis: runs the scripts (EVALSHA, and EVAL when Redis answers NOSCRIPT:
// a restarted Redis has no scripts), and keeps the store's health. A command is sent only while
// the client is ready: node-redis would otherwise queue it offline and replay it on reconnection,
// and the fleet state is re-read after an outage, never replayed. Every round trip (a script, a
// subscription) ends within `commandTimeout` of real time — the limiter's Deadlines, on
// systemClock: I/O takes real time whatever clock the breakers run on — so a Redis that hangs is
// an outage within it, never a hang. An outage is told once (`storeError`), its end once both
// connections are ready and Redis answers again (`storeRecovered`): an answer that comes after
// its deadline is dropped, but it still says that Redis answers.

export interface StoreHooks {
  /** Redis went away (or hangs): breakers go on alone. */
  down(): void;
  /** Both connections are ready again: re-read the fleet state. */
  recovered(): void;
}

export class Store {
  #down = false;
  readonly #off: (() => void)[] = [];
  readonly #deadlines: Deadlines;

  constructor(
    readonly client: BreakerSyncClient,
    readonly subscriber: BreakerSyncSubscriber,
    readonly events: EventPublisher<RedisBreakerSyncEvents>,
    readonly hooks: StoreHooks,
    commandTimeout: number,
  ) {
    this.#deadlines = new Deadlines(commandTimeout, systemClock);
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
    return this.#down;
  }

  /** Runs `script` for one name's keys; `undefined` when Redis cannot answer within `commandTimeout` (reported). */
  async run(script: Script, keys: BreakerKeys, args: readonly (string | number)[]): Promise<unknown[] | undefined> {
    if (!this.client.isReady) {
      this.#fail(new Error('the Redis client is not ready'), script.name);
      return undefined;
    }
    try {
      return await this.#deadlines.bound(this.#send(script, keys, args));
    } catch (error) {
      this.#fail(error, script.name);
      return undefined;
    }
  }

  /** Like {@link run}, but a failure throws (an operator's command must say it did not happen, or may not have). */
  async command(script: Script, keys: BreakerKeys, args: readonly (string | number)[]): Promise<unknown[]> {
    if (!this.client.isReady) throw new Error(`RedisBreakerSync: ${script.name} needs Redis, and the client is not ready`);
    try {
      return await this.#deadlines.bound(this.#send(script, keys, args));
    } catch (error) {
      this.#fail(error, script.name);
      const late = error instanceof CommandTimeoutError ? ': Redis may still apply it once it answers' : '';
      throw new Error(`RedisBreakerSync: ${script.name} failed (${String((error as { message?: unknown })?.message ?? error)})${late}`, { cause: error });
    }
  }

  /** A round trip of the subscriber (subscribe, unsubscribe) within `commandTimeout`; false when it failed (reported as `operation`). */
  async subscription(work: Promise<unknown>, operation: string): Promise<boolean> {
    try {
      await this.#deadlines.bound(work);
      return true;
    } catch (error) {
      this.#fail(error, operation);
      return false;
    }
  }

  /** `work` (a round trip), or a rejection with CommandTimeoutError past `commandTimeout`; nothing reported. */
  bounded<T>(work: Promise<T>): Promise<T> {
    return this.#deadlines.bound(work);
  }

  async #send(script: Script, keys: BreakerKeys, args: readonly (string | number)[]): Promise<unknown[]> {
    const keyList = script.keys(keys);
    const tail = [String(keyList.length), ...keyList, ...args.map(String)];
    let reply: unknown;
    try {
      reply = await this.client.sendCommand(['EVALSHA', script.sha, ...tail]);
    } catch (error) {
      if (!String((error as { message?: unknown })?.message).startsWith('NOSCRIPT')) throw error;
      reply = await this.client.sendCommand(['EVAL', script.source, ...tail]);
    }
    this.#ready(); // an answer, even one past its deadline, ends an outage whose `ready` came before we noticed
    return Array.isArray(reply) ? reply : [reply];
  }

  #fail(error: unknown, operation: string): void {
    // A connection's error always means a lost connection (node-redis reconnects, then says `ready`);
    // a round trip past its deadline means a Redis that hangs (it ends when Redis answers again).
    const outage = operation === 'connection' || error instanceof CommandTimeoutError || !this.client.isReady || !this.subscriber.isReady;
    if (outage && this.#down) return; // once per outage
    if (this.events.wants('storeError')) this.events.emit('storeError', { error, operation });
    if (outage) {
      this.#down = true;
      this.hooks.down();
    }
  }

  #ready(): void {
    if (!this.#down || !this.client.isReady || !this.subscriber.isReady) return;
    this.#down = false;
    if (this.events.wants('storeRecovered')) this.events.emit('storeRecovered', {});
    this.hooks.recovered();
  }

  /** Stops listening to the connections (they stay the caller's). */
  close(): void {
    for (const off of this.#off.splice(0)) off();
  }
}
