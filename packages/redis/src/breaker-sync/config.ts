import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ConfigReader, type Clock, type Duration } from '@breakwater/core';
import type { ScriptClient } from '../script-runner.js';
import { MAX_MS } from './bounds.js';

/**
 * What the sync needs of a node-redis client (`createClient()` of `redis` 6): the package's
 * {@link ScriptClient} — scripts go through `evalSha` / `eval`, `isReady` tells a connection that
 * can answer now (no command is ever left in node-redis' offline queue to be replayed later) — and
 * `error` / `ready` events, which tell an outage and its end: the sync adds one listener of each to
 * both connections while it runs (`close()` removes them). Add your own `error` listener too: an
 * `error` with none crashes the process.
 *
 * @example
 * ```ts
 * const client: BreakerSyncClient = await createClient({ url }).on('error', (e) => log.warn(e)).connect();
 * ```
 */
export interface BreakerSyncClient extends ScriptClient {
  // biome-ignore lint/suspicious/noExplicitAny: node-redis's listeners (an EventEmitter's) take any[]; the shape must accept its client
  on(event: 'error' | 'ready', listener: (...args: any[]) => void): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: node-redis's listeners (an EventEmitter's) take any[]; the shape must accept its client
  off(event: 'error' | 'ready', listener: (...args: any[]) => void): unknown;
}

/**
 * A node-redis connection in subscriber mode (`client.duplicate()`, connected): it receives the
 * state changes of every attached name. node-redis resubscribes by itself after a reconnection.
 *
 * @example
 * ```ts
 * const subscriber: BreakerSyncSubscriber = await client.duplicate().on('error', (e) => log.warn(e)).connect();
 * ```
 */
export interface BreakerSyncSubscriber {
  readonly isReady: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: node-redis's listeners (an EventEmitter's) take any[]; the shape must accept its client
  on(event: 'error' | 'ready', listener: (...args: any[]) => void): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: node-redis's listeners (an EventEmitter's) take any[]; the shape must accept its client
  off(event: 'error' | 'ready', listener: (...args: any[]) => void): unknown;
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  unsubscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
}

/**
 * The options of a {@link RedisBreakerSync}.
 *
 * @example
 * ```ts
 * const options: RedisBreakerSyncOptions = { client, subscriber, quorum: 2, quorumWindow: '30s', trialLease: '20s' };
 * ```
 */
export interface RedisBreakerSyncOptions {
  /** A connected node-redis client for commands (scripts, reads). */
  readonly client: BreakerSyncClient;
  /** A second connected client, used only to subscribe (`client.duplicate()`). */
  readonly subscriber: BreakerSyncSubscriber;
  /** How many distinct instances must open within `quorumWindow` for the fleet to open. Default 1: any instance opens all. */
  readonly quorum?: number | undefined;
  /** How far back openings count toward the quorum (Redis time). Default `'60s'`. */
  readonly quorumWindow?: Duration | undefined;
  /**
   * How long the half-open trial lease lasts. Default, per breaker: twice its
   * `maxWaitDurationInHalfOpenState`, or twice its first `waitDurationInOpenState` when that is off.
   */
  readonly trialLease?: Duration | undefined;
  /** The prefix of every key and channel. Default `'breakwater:cb:'`. */
  readonly keyPrefix?: string | undefined;
  /** This instance's id in the fleet (unique per process). Default `<hostname>:<pid>:<random>`. */
  readonly instanceId?: string | undefined;
  /** The clock of the sync's own events (`at`). Breaker timers run on each breaker's own clock. Default `systemClock`. */
  readonly clock?: Clock | undefined;
  /**
   * The longest one round trip to Redis may take (real time) before it counts as a store error: a
   * Redis that hangs never holds up a transition, an `attach` or an override. Default `'250ms'`.
   */
  readonly commandTimeout?: Duration | undefined;
  /**
   * The random source of the sync's jitter (a number in [0, 1), as `Math.random`): a held breaker
   * tries the trial lease up to 20 ms after the fleet's wait, so a fleet does not ask at once.
   * Default `Math.random`; a seeded one makes a test or a simulation repeatable.
   */
  readonly random?: (() => number) | undefined;
}

/** The options as resolved at construction. */
export interface ResolvedSyncOptions {
  readonly client: BreakerSyncClient;
  readonly subscriber: BreakerSyncSubscriber;
  readonly quorum: number;
  readonly quorumWindow: number;
  readonly trialLease: number | undefined;
  readonly keyPrefix: string;
  readonly instanceId: string;
  readonly clock: Clock;
  readonly commandTimeout: number;
  readonly random: () => number;
}

const KEYS = ['client', 'subscriber', 'quorum', 'quorumWindow', 'trialLease', 'keyPrefix', 'instanceId', 'clock', 'commandTimeout', 'random'] as const;

function isClient(value: unknown, subscriber: boolean): boolean {
  const c = value as Record<string, unknown> | null;
  if (typeof c !== 'object' || c === null) return false;
  const methods = subscriber ? ['on', 'off', 'subscribe', 'unsubscribe'] : ['evalSha', 'eval', 'on', 'off'];
  return methods.every((m) => typeof c[m] === 'function') && typeof c['isReady'] === 'boolean';
}

/** Reads and checks the options once; a bad one throws naming the option, the value and what is valid. */
export function resolveSyncOptions(options: RedisBreakerSyncOptions | undefined): ResolvedSyncOptions {
  const read: ConfigReader<RedisBreakerSyncOptions> = ConfigReader.unnamed<RedisBreakerSyncOptions>('RedisBreakerSync', options, KEYS);
  const client = read.instance<BreakerSyncClient>('client', 'a connected node-redis client (createClient())', (v) => isClient(v, false));
  const subscriber = read.instance<BreakerSyncSubscriber>('subscriber', 'a connected node-redis client for pub/sub (client.duplicate())', (v) =>
    isClient(v, true),
  );
  if (client === undefined) read.fail('client', 'a connected node-redis client (createClient())', client, 'type');
  if (subscriber === undefined) read.fail('subscriber', 'a connected node-redis client for pub/sub (client.duplicate())', subscriber, 'type');
  if ((subscriber as unknown) === client)
    read.fail('subscriber', 'a second connection (client.duplicate()): a subscribed connection runs no commands', 'the client itself', 'type');
  const quorum = read.number('quorum', 1, { integer: true, gte: 1, lte: 1000 });
  const quorumWindow = read.duration('quorumWindow', 60_000, { gt: 0, lte: MAX_MS });
  const trialLease = read.has('trialLease') ? read.duration('trialLease', 0, { gte: 1, lte: MAX_MS }) : undefined;
  const keyPrefix = (options?.keyPrefix ?? 'breakwater:cb:') as unknown;
  if (typeof keyPrefix !== 'string' || /[{}]/.test(keyPrefix))
    read.fail('keyPrefix', 'a string without braces (the hash tag is added per name)', keyPrefix, 'type');
  const instanceId = (options?.instanceId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`) as unknown;
  if (typeof instanceId !== 'string' || instanceId.length === 0) read.fail('instanceId', 'a non-empty string', instanceId, 'type');
  const commandTimeout = read.duration('commandTimeout', 250, { gt: 0, lte: MAX_MS });
  const random = read.fn<() => number>('random') ?? Math.random;
  return { client, subscriber, quorum, quorumWindow, trialLease, keyPrefix, instanceId, clock: read.clock(), commandTimeout, random };
}
