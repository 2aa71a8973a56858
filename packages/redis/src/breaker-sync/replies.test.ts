import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { redisSuite } from '@breakwater/test-support/redis';
import { decodeAbandon, decodeDecide, decodeOpened, decodeOverride, decodeRead, decodeRenew, decodeTryLease } from './replies.js';
import { RedisBreakerSync } from './redis-breaker-sync.js';
import { connections, fail, FAST, fleetOnRedis, nextEvent, uniqueName } from '../../test/breaker-sync/test-support.js';

// Each script's reply decoded into what it means (a discriminated union); a reply the script never
// gives is a store error, never a state.
describe('the scripts’ replies, decoded', () => {
  it('each reply a script gives is one kind', () => {
    expect(decodeOpened([0, 1, 0, 7, '', 1, '', ''])).toEqual({ kind: 'recorded', count: 1, ver: 7, ignoredOverride: '' });
    expect(decodeOpened([1, 2, 300, 8, 'x', 3, '', ''])).toEqual({ kind: 'fleetOpened', count: 2, waitMs: 300, ver: 8, ignoredOverride: 'x', attempt: 3 });
    expect(decodeOpened([2, 2, 120, 8, '', 2, '123', ''])).toMatchObject({ kind: 'alreadyOpen', remainingMs: 120, attempt: 2, until: '123', untilIgnored: '' });
    expect(decodeOpened([3, 0, 0, 9, '', 1, '', ''])).toEqual({ kind: 'overridden', ver: 9, ignoredOverride: '' });
    expect(decodeTryLease([0, 0, 4, 1, '', '']).kind).toBe('closed');
    expect(decodeTryLease([1, 400, 4, 2, '', 'soon'])).toEqual({
      kind: 'granted',
      leaseMs: 400,
      attempt: 2,
      untilIgnored: 'soon',
      ver: 4,
      ignoredOverride: '',
    });
    expect(decodeTryLease([2, 50, 4, 1, '', ''])).toMatchObject({ kind: 'waiting', remainingMs: 50 });
    expect(decodeTryLease([3, 0, 4, 1, 'OPEN', '']).kind).toBe('overridden');
    expect(decodeTryLease([4, 200, 4, 1, '', ''])).toMatchObject({ kind: 'leaseHeld', ttlMs: 200 });
    expect(decodeTryLease([5, 0, 5, 1, '', '']).kind).toBe('stale');
    expect(decodeDecide([0, 0, 0])).toEqual({ kind: 'lost' });
    expect(decodeDecide([1, 600, 11])).toEqual({ kind: 'published', waitMs: 600, ver: 11 });
    expect(decodeRenew([1])).toEqual({ kind: 'renewed' });
    expect(decodeRenew([0])).toEqual({ kind: 'lost' });
    expect(decodeAbandon(1)).toEqual({ kind: 'released' });
    expect(decodeAbandon(0)).toEqual({ kind: 'notHeld' });
    expect(decodeRead(['FORCED_OPEN', -1, 3, '', 1, '', ''])).toEqual({ kind: 'overridden', override: 'FORCED_OPEN', ver: 3, ignoredOverride: '' });
    expect(decodeRead(['', 250, 3, '', 2, '99', ''])).toEqual({
      kind: 'open',
      remainingMs: 250,
      attempt: 2,
      until: '99',
      untilIgnored: '',
      ver: 3,
      ignoredOverride: '',
    });
    expect(decodeRead(['', -1, 3, 'forced', 1, '', ''])).toEqual({ kind: 'closed', ver: 3, ignoredOverride: 'forced' });
    expect(decodeOverride(12)).toEqual({ kind: 'written', ver: 12 });
  });

  it('a reply a script never gives throws, naming the script and what is wrong', () => {
    expect(() => decodeOpened([4, 0, 0, 7, '', 1, '', ''])).toThrow(
      'RedisBreakerSync: unexpected reply to opened: it [0] is 4, not an integer in [0, 3], which the script never answers',
    );
    expect(() => decodeOpened(['0', 1, 0, 7, '', 1, '', ''])).toThrow(/opened: it \[0\] is '0'/);
    expect(() => decodeOpened([0, 1, 0, 7, '', 1, ''])).toThrow(/has 7 elements, not 8/);
    expect(() => decodeTryLease([1, 1.5, 4, 1, '', ''])).toThrow(/tryLease: it \[1\] is 1.5/);
    expect(() => decodeTryLease([1, 400, 4, 0, '', ''])).toThrow(/\[3\] is 0, not an integer in \[1,/);
    expect(() => decodeTryLease([1, 400, 4, 1, 7, ''])).toThrow(/\[4\] is 7, not a string/);
    expect(() => decodeDecide(null)).toThrow(/decide: it is null, not an array/);
    expect(() => decodeRenew([2])).toThrow(/renew/);
    expect(() => decodeAbandon('1')).toThrow(/abandon: it is '1', not 0 or 1/);
    expect(() => decodeRead(['OPEN', -1, 3, '', 1, '', ''])).toThrow(/read: it says override 'OPEN'/);
    expect(() => decodeRead(['', -2, 3, '', 1, '', ''])).toThrow(/read/);
    expect(() => decodeRead(['', 5, -1, '', 1, '', ''])).toThrow(/\[2\] is -1/);
    expect(() => decodeOverride([1])).toThrow(/override: it is a array/);
  });
});

redisSuite('RedisBreakerSync on a reply the script never gives', () => {
  const fleet = fleetOnRedis();

  it('is a storeError naming the script; nothing is applied and the sync goes on', async () => {
    const name = uniqueName('hostile');
    const { client, subscriber } = await connections(fleet.redis().url);
    let tamper = true;
    const hostile = Object.assign(Object.create(client) as typeof client, {
      evalSha: (sha: string, options: { keys: string[]; arguments: string[] }) => client.evalSha(sha, options).then((r) => (tamper ? ['FORCED_OPEN', 'x'] : r)),
      eval: (script: string, options: { keys: string[]; arguments: string[] }) => client.eval(script, options).then((r) => (tamper ? ['FORCED_OPEN', 'x'] : r)),
    });
    const sync = new RedisBreakerSync({ client: hostile, subscriber });
    const breaker = new CircuitBreaker(name, FAST);
    const error = nextEvent(sync, 'storeError');
    await sync.attach(breaker);
    expect(await error).toMatchObject({ operation: 'read' });
    expect(String(((await error).error as Error).message)).toMatch(/^RedisBreakerSync: unexpected reply to read: it has 2 elements, not 7/);
    expect(breaker.state).toBe('CLOSED'); // not FORCED_OPEN
    expect(sync.names).toEqual([name]);
    // A later reply the script gives is applied as ever.
    tamper = false;
    const opened = nextEvent(sync, 'fleetOpened', (e) => e.breakerName === name);
    await fail(breaker);
    await opened;
    await sync.close();
    client.destroy();
    subscriber.destroy();
  });
});
