import type { EventPublisher } from '@breakwater/core';
import type { BreakerSyncClient, BreakerSyncSubscriber } from './config.js';
import type { RedisBreakerSyncEvents } from './events.js';
import type { BreakerKeys } from './keys.js';
import type { Script } from './scripts.js';

// The sync's one door to Redis: runs the scripts (EVALSHA, and EVAL when Redis answers NOSCRIPT:
// a restarted Redis has no scripts), and keeps the store's health. A command is sent only while
// the client is ready: node-redis would otherwise queue it offline and replay it on reconnection,
// and the fleet state is re-read after an outage, never replayed. An outage is told once
// (`storeError`), its end once both connections are ready again (`storeRecovered`).

export interface StoreHooks {
  /** Redis went away: breakers go on alone. */
  down(): void;
  /** Both connections are ready again: re-read the fleet state. */
  recovered(): void;
}

export class Store {
  #down = false;
  readonly #off: (() => void)[] = [];

  constructor(
    readonly client: BreakerSyncClient,
    readonly subscriber: BreakerSyncSubscriber,
    readonly events: EventPublisher<RedisBreakerSyncEvents>,
    readonly hooks: StoreHooks,
  ) {
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

  /** Whether the store is known to be unreachable. */
  get down(): boolean {
    return this.#down;
  }

  /** Runs `script` for one name's keys; `undefined` when Redis cannot answer (reported). */
  async run(script: Script, keys: BreakerKeys, args: readonly (string | number)[]): Promise<unknown[] | undefined> {
    if (!this.client.isReady) {
      this.#fail(new Error('the Redis client is not ready'), script.name);
      return undefined;
    }
    const keyList = script.keys(keys);
    const tail = [String(keyList.length), ...keyList, ...args.map(String)];
    try {
      let reply: unknown;
      try {
        reply = await this.client.sendCommand(['EVALSHA', script.sha, ...tail]);
      } catch (error) {
        if (!String((error as { message?: unknown })?.message).startsWith('NOSCRIPT')) throw error;
        reply = await this.client.sendCommand(['EVAL', script.source, ...tail]);
      }
      this.#ready(); // an answer ends an outage whose `ready` came before we noticed
      return reply as unknown[];
    } catch (error) {
      this.#fail(error, script.name);
      return undefined;
    }
  }

  /** Like {@link run}, but a failure throws (an operator's command must say it did not happen). */
  async command(script: Script, keys: BreakerKeys, args: readonly (string | number)[]): Promise<unknown[]> {
    if (!this.client.isReady) throw new Error(`RedisBreakerSync: ${script.name} needs Redis, and the client is not ready`);
    const reply = await this.run(script, keys, args);
    if (reply === undefined) throw new Error(`RedisBreakerSync: ${script.name} failed (see the storeError event)`);
    return reply;
  }

  #fail(error: unknown, operation: string): void {
    // A connection's error always means a lost connection (node-redis reconnects, then says `ready`).
    const outage = operation === 'connection' || !this.client.isReady || !this.subscriber.isReady;
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
