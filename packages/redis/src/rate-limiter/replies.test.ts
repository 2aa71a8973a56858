import { VirtualClock } from '@breakwater/core';
import { redisSuite, type RedisServer } from '@breakwater/test-support/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnStoreError } from './config.js';
import { StoreUnavailableError } from './errors.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { checkReply } from './reply.js';
import type { ScriptClient } from '../script-runner.js';
import { startWithClient, stopWithClient, type TestClient, uniqueName, until } from '../../test/rate-limiter/test-redis.js';

// Every reply is validated: only what the script can answer is read as an answer; anything else
// (strings, nulls, fractions, a wait no caller of the batch would accept) is a store error, and the
// onStoreError mode decides — never a grant in 'fail-closed', never a caller left pending.

const ONE = [{ code: '1' }];
/** A genuine reply to one reservation of 1 permit granted at once, at 1,000,000 ms with a period of 1000 ms (generation 7, reserved through cycle 1000, not lost). */
const GRANTED = [1000, 1_000_000_000, 4, 7, 1000, 0, 0, 1];

describe('checkReply', () => {
  it('passes what the script answers', () => {
    expect(checkReply(GRANTED, ONE, 0, 1000)).toBe(GRANTED);
    expect(checkReply([1000, 1_000_250_000, 4, 7, 1000, 0, 750_000, -1], ONE, 1000, 1000)).toEqual([1000, 1_000_250_000, 4, 7, 1000, 0, 750_000, -1]); // waits 750 ms
    expect(checkReply([1000, 1_000_250_000, 4, 7, 1000, 0, -750_000, -1], ONE, 0, 1000)).toHaveLength(8); // refused
    const mixed = [{ code: 'm' }, { code: 'd' }, { code: 'g' }, { code: '3' }];
    expect(checkReply([1000, 1_000_000_000, 4, 7, 1000, 0, 0, 5, 5, 0, 1, 1, -1_000_000, 1], mixed, 500, 1000)).toHaveLength(14);
  });

  it.each([
    ['a right-length reply of strings', ['1000', '1000000000', '4', '7', '1000', '0', '0', '1'], 0, /\[0\] is '1000', not an integer/],
    ['a right-length reply of nulls', [null, null, null, null, null, null, null, null], 0, /\[0\] is null, not an integer/],
    ['a null in the operation', [1000, 1_000_000_000, 4, 7, 1000, 0, null, 1], 0, /\[6\] is null/],
    ['a fraction', [1000, 1_000_000_000, 4, 7, 1000, 0, 0.5, 1], 0, /\[6\] is 0.5/],
    ['NaN', [1000, 1_000_000_000, 4, 7, 1000, 0, Number.NaN, 1], 0, /\[6\] is NaN/],
    ['Infinity', [1000, 1_000_000_000, 4, 7, 1000, 0, Infinity, 1], 0, /\[6\] is Infinity/],
    ['an unsafe integer', [1000, 1_000_000_000, 4, 7, 1000, 0, 2 ** 60, 1], 0, /\[6\] is 1152921504606847000/],
    ['a nested array', [1000, 1_000_000_000, 4, 7, 1000, 0, [0], 1], 0, /\[6\] is a non-number object/],
    ['a bigint', [1000, 1_000_000_000, 4, 7, 1000, 0, 0n, 1], 0, /\[6\] is a bigint/],
    ['too short', [1000, 1_000_000_000, 4, 7, 1000, 0, 0], 0, /has 7 elements for 1 operations \(8 expected\)/],
    ['not an array', 'OK', 0, /is 'OK', not an array/],
    ['null', null, 0, /is null, not an array/],
    ['a negative cycle', [-1, 1_000_000_000, 4, 7, 1000, 0, 0, 1], 0, /a cycle, a time, a sequence number and a generation are >= 0/],
    ['a negative sequence number', [1000, 1_000_000_000, -4, 7, 1000, 0, 0, 1], 0, /are >= 0/],
    ['a negative generation', [1000, 1_000_000_000, 4, -7, 1000, 0, 0, 1], 0, /and a generation are >= 0/],
    ['a lost flag of 2', [1000, 1_000_000_000, 4, 7, 1000, 2, 0, 1], 0, /says 1000 for the last cycle reserved \(>= -1\) and 2 for lost \(0 or 1\)/],
    ['a last cycle reserved of -2', [1000, 1_000_000_000, 4, 7, -2, 0, 0, 1], 0, /says -2 for the last cycle reserved/],
    ["a cycle that is not the time's", [7, 1_000_000_000, 4, 7, 1000, 0, 0, 1], 0, /says cycle 7 at 1000000000 µs/],
    [
      'a wait of 3.6e9 µs granted with a timeout of 0',
      [1000, 1_000_000_000, 4, 7, 1000, 0, 3.6e9, -1],
      0,
      /answers 3600000000, -1 to operation 0 \('1', timeout 0 ms\)/,
    ],
    ['a wait beyond the timeout', [1000, 1_000_000_000, 4, 7, 1000, 0, 5_000_001, -4], 5000, /timeout 5000 ms/],
    ['a grant at once that leaves a deficit', [1000, 1_000_000_000, 4, 7, 1000, 0, 0, -1], 0, /answers 0, -1 to operation 0/],
    ['a grant with a wait that leaves permits', [1000, 1_000_000_000, 4, 7, 1000, 0, 500_000, 2], 5000, /answers 500000, 2/],
  ] as [string, unknown, number, RegExp][])('refuses %s (timeout %d ms)', (_, reply, timeout, message) => {
    expect(() => checkReply(reply, ONE, timeout, 1000)).toThrow(message);
  });

  it('refuses answers no look, drain or give-back gets', () => {
    expect(() => checkReply([1000, 1_000_000_000, 4, 7, 1000, 0, 1, 5], [{ code: 'm' }], 0, 1000)).toThrow("to operation 0 ('m')");
    expect(() => checkReply([1000, 1_000_000_000, 4, 7, 1000, 0, 2, 5], [{ code: 'g' }], 0, 1000)).toThrow("to operation 0 ('g')");
    expect(() => checkReply([1000, 1_000_000_000, 4, 7, 1000, 0, 5, 5], [{ code: 'd' }], 0, 1000)).toThrow("to operation 0 ('d')");
    expect(() => checkReply([1000, 1_000_000_000, 4, 7, 1000, 0, -3, -2], [{ code: 'd' }], 0, 1000)).toThrow("to operation 0 ('d')");
  });
});

redisSuite('RedisRateLimiter when the reply is not one the script gives', () => {
  let redis: RedisServer;
  let client: TestClient;
  beforeAll(async () => ({ redis, client } = await startWithClient()));
  afterAll(() => stopWithClient(redis, client));

  /** The real client, whose script replies pass through `tamper` (the round trip to Redis is real). */
  function hostile(tamper: (reply: number[]) => unknown): ScriptClient {
    return {
      get isReady() {
        return client.isReady;
      },
      evalSha: (sha1, options) => client.evalSha(sha1, options).then((r) => tamper(r as number[])),
      eval: (script, options) => client.eval(script, options).then((r) => tamper(r as number[])),
    };
  }

  function limiter(over: ScriptClient, onStoreError: OnStoreError, clock: VirtualClock): RedisRateLimiter {
    return new RedisRateLimiter(uniqueName('hostile'), {
      client: over,
      onStoreError,
      limitForPeriod: 5,
      limitRefreshPeriod: 1000,
      timeoutDuration: 0,
      localLimitForPeriod: 1,
      clock,
      time: () => clock.now(),
    });
  }

  it.each([
    ['strings', (r: number[]) => r.map(String)],
    ['nulls', (r: number[]) => r.map(() => null)],
  ])("'fail-closed': a reply of %s of the right length is a store error, never a grant", async (_, tamper) => {
    const clock = new VirtualClock(1_000_000);
    const rl = limiter(hostile(tamper), 'fail-closed', clock);
    const events: string[] = [];
    rl.on('*', (e) => events.push(e.type));
    const error = await rl.acquirePermission().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(String((error as StoreUnavailableError).cause)).toMatch(/unexpected script reply: it \[0\] is (null|'1000'), not an integer/);
    expect(await rl.reservePermission()).toBe(-1);
    expect(events).toEqual(['storeError', 'failedAcquire', 'failedAcquire']);
    expect(rl.metrics.store).toBe('fail-closed');
  });

  it.each(['fail-closed', 'local'] as const)(
    "%s: a reply 'wait 3.6e9 µs' with timeoutDuration 0 leaves no caller pending: a store error, decided at once",
    async (mode) => {
      const clock = new VirtualClock(1_000_000);
      const rl = limiter(
        hostile((r) => r.map((v, i) => (i < 6 ? v : i % 2 === 0 ? 3.6e9 : -1))),
        mode,
        clock,
      );
      const outcomes: string[] = [];
      const calls = [rl.acquirePermission(), rl.acquirePermission()].map((p) =>
        p.then(
          () => outcomes.push('granted'),
          (e: Error) => outcomes.push(e.name),
        ),
      );
      await until(() => outcomes.length === 2, 2000);
      await Promise.all(calls);
      expect(outcomes).toEqual(mode === 'fail-closed' ? ['StoreUnavailableError', 'StoreUnavailableError'] : ['granted', 'RequestNotPermittedError']); // localLimitForPeriod 1
      expect(rl.metrics).toMatchObject({ store: mode, numberOfWaitingCalls: 0 });
      expect(clock.pendingTimers).toBe(0);
    },
  );
});
