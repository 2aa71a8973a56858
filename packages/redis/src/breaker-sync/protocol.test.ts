import { describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { redisSuite } from '@breakwater/test-support/redis';
import { keySlot } from '../keys.js';
import { breakerKeys } from './keys.js';
import { RedisBreakerSync } from './redis-breaker-sync.js';
import { connections, fail, FAST, fleetOnRedis, nextEvent, reaches, uniqueName } from '../../test/breaker-sync/test-support.js';

describe('RedisBreakerSync configuration', () => {
  const client = { isReady: true, evalSha: async () => [], eval: async () => [], on: () => {}, off: () => {} };
  const subscriber = { ...client, subscribe: async () => {}, unsubscribe: async () => {} };
  const make = (options: Record<string, unknown>) => () => new RedisBreakerSync({ client, subscriber, ...options } as never);

  it('refuses bad options at construction, naming the option, the value and the range', () => {
    expect(make({ quorum: 0 })).toThrow(new RangeError('RedisBreakerSync: quorum must be an integer in [1, 1000], got 0'));
    expect(make({ quorum: 1.5 })).toThrow(RangeError);
    expect(make({ quorum: '2' })).toThrow(new TypeError("RedisBreakerSync: quorum must be a number, got '2'"));
    expect(make({ quorumWindow: '30x' })).toThrow(/RedisBreakerSync: quorumWindow must be a duration .* got '30x'/);
    expect(make({ quorumWindow: 0 })).toThrow(new RangeError('RedisBreakerSync: quorumWindow must be in (0, 2147483647], got 0'));
    expect(make({ trialLease: -1 })).toThrow(new RangeError('RedisBreakerSync: trialLease must be in [1, 2147483647], got -1'));
    expect(make({ commandTimeout: 0 })).toThrow(new RangeError('RedisBreakerSync: commandTimeout must be in (0, 2147483647], got 0'));
    expect(make({ commandTimeout: Infinity })).toThrow(RangeError);
    expect(make({ commandTimeout: '1x' })).toThrow(/RedisBreakerSync: commandTimeout must be a duration .* got '1x'/);
    expect(make({ keyPrefix: 'a{b}:' })).toThrow(/keyPrefix must be a string without braces/);
    expect(make({ instanceId: '' })).toThrow(/instanceId must be a non-empty string/);
    expect(make({ random: 0.5 })).toThrow(new TypeError('RedisBreakerSync: random must be a function, got 0.5'));
    expect(make({ quorom: 2 })).toThrow(/unknown option 'quorom' \(did you mean 'quorum'\?\)/);
    expect(make({ subscriber: client })).toThrow(/subscriber must be a connected node-redis client for pub\/sub/);
    expect(make({ subscriber: client, client })).toThrow(TypeError);
    expect(() => new RedisBreakerSync({ client, subscriber: client } as never)).toThrow(TypeError);
    expect(() => new RedisBreakerSync(undefined as never)).toThrow(/client must be a connected node-redis client/);
    const shared = { ...subscriber };
    expect(() => new RedisBreakerSync({ client: shared, subscriber: shared })).toThrow(/subscriber must be a second connection/);
  });

  it('keys: one slot per name, the name hex-encoded inside the tag, no collision', () => {
    const names = ['pg', 'p}g', '{pg}', 'pg ', 'é', '支付', 'a:b'];
    const all = names.map((n) => breakerKeys('breakwater:cb:', n));
    for (const k of all) {
      expect(new Set([k.state, k.opened, k.lease].map(keySlot)).size).toBe(1);
      expect(k.state).toMatch(/^breakwater:cb:\{[0-9a-f]+\}:state$/);
    }
    expect(new Set(all.map((k) => k.state)).size).toBe(names.length);
    expect(breakerKeys('breakwater:cb:', 'pg').channel).toBe('breakwater:cb:{7067}:events');
  });
});

redisSuite('RedisBreakerSync protocol', () => {
  const fleet = fleetOnRedis();
  const make = fleet.make;

  it('sends nothing to Redis per call: only a state change does', async () => {
    const name = uniqueName('quiet');
    const { client, subscriber } = await connections(fleet.redis().url);
    const sent: string[] = [];
    const counting = Object.assign(Object.create(client) as typeof client, {
      sendCommand: (args: string[]) => (sent.push(args[0]!), client.sendCommand(args)),
      evalSha: (sha: string, options: { keys: string[]; arguments: string[] }) => (sent.push('EVALSHA'), client.evalSha(sha, options)),
      eval: (script: string, options: { keys: string[]; arguments: string[] }) => (sent.push('EVAL'), client.eval(script, options)),
    });
    const sync = new RedisBreakerSync({ client: counting, subscriber });
    const breaker = new CircuitBreaker(name, { ...FAST, slidingWindowSize: 10, minimumNumberOfCalls: 10 });
    await sync.attach(breaker);
    sent.length = 0;
    for (let i = 0; i < 1000; i++) await breaker.execute(() => i);
    await breaker.execute(() => Promise.reject(new Error('one failure'))).catch(() => {});
    expect(sent).toEqual([]);
    await fail(breaker, 10); // opens: one script (EVALSHA; on a server that never ran it, NOSCRIPT then EVAL)
    await nextEvent(sync, 'fleetOpened');
    expect(sent.join()).toMatch(/^EVALSHA(,EVAL)?$/);
    await sync.close();
    client.destroy();
    subscriber.destroy();
  });

  it('a holder that does not decide within its lease gives the trial back', async () => {
    const name = uniqueName('abandon');
    const a = await make();
    const breaker = new CircuitBreaker(name, FAST);
    await a.sync.attach(breaker);
    await fail(breaker);
    await nextEvent(a.sync, 'trialStarted', () => true, 2000);
    expect(breaker.state).toBe('HALF_OPEN');
    await nextEvent(a.sync, 'trialAbandoned', () => true, 1000);
    expect(breaker.state).toBe('OPEN');
    await reaches(breaker, 'HALF_OPEN', 1000); // the lease is free again: a trial starts anew
    await breaker.execute(() => 'ok');
    expect(breaker.state).toBe('CLOSED');
  });

  it('a trial that fails opens the fleet again for another wait', async () => {
    const name = uniqueName('reopen');
    const [a, b] = await Promise.all([make(), make()]);
    const [ba, bb] = [new CircuitBreaker(name, FAST), new CircuitBreaker(name, FAST)];
    await a.sync.attach(ba);
    await b.sync.attach(bb);
    await fail(ba);
    const holder = await Promise.race([ba, bb].map((x) => reaches(x, 'HALF_OPEN', 2000).then(() => x)));
    const other = holder === ba ? bb : ba;
    const otherSync = holder === ba ? b.sync : a.sync;
    // The other re-reads the state on the message: the wait as Redis has it (300 ms, less the read's own time).
    const again = nextEvent(otherSync, 'fleetOpened', (e) => e.remainingMs > 250 && e.remainingMs <= 300);
    await holder.execute(() => Promise.reject(new Error('still down'))).catch(() => {});
    expect(holder.state).toBe('OPEN');
    await again;
    expect(other.state).toBe('OPEN');
  });

  it('Redis down: a held breaker is let go, attach does not hang; Redis back: subscriptions and state work again', async () => {
    if (!fleet.redis().owned) return;
    const name = uniqueName('down');
    const later = uniqueName('down-later');
    const [a, b] = await Promise.all([make(), make()]);
    const [ba, bb] = [new CircuitBreaker(name, FAST), new CircuitBreaker(name, FAST)];
    await a.sync.attach(ba);
    await b.sync.attach(bb);
    const held = reaches(bb, 'OPEN');
    await fail(ba);
    await held; // held by the fleet: it would wait for the lease
    const down = nextEvent(b.sync, 'storeError');
    await fleet.redis().kill();
    await down;
    // Let go: OPEN until the fleet's wait plus one lease would have ended, then its own trial.
    await expect.poll(() => bb.tryAcquirePermission(), { timeout: 2000, interval: 50 }).toBe(true);
    expect(bb.state).toBe('HALF_OPEN');
    const attachedLate = new CircuitBreaker(later, FAST);
    await b.sync.attach(attachedLate); // resolves while Redis is down
    expect(attachedLate.state).toBe('CLOSED');

    const back = Promise.all([nextEvent(a.sync, 'storeRecovered', () => true, 5000), nextEvent(b.sync, 'storeRecovered', () => true, 5000)]);
    await fleet.redis().restart();
    await back;
    const forced = reaches(attachedLate, 'FORCED_OPEN');
    await a.sync.forceOpen(later);
    expect(await forced).toBe('fleet');
  });

  it('adds one error and one ready listener to each connection (what the README says), and removes them on close', async () => {
    const { client, subscriber } = await connections(fleet.redis().url); // with the application's own error listeners
    const counts = () => [client, subscriber].map((c) => [c.listenerCount('error'), c.listenerCount('ready')]);
    const before = counts();
    const sync = new RedisBreakerSync({ client, subscriber });
    await sync.attach(new CircuitBreaker(uniqueName('listeners'), FAST));
    expect(counts()).toEqual(before.map(([error, ready]) => [error! + 1, ready! + 1]));
    await sync.close();
    expect(counts()).toEqual(before);
    client.destroy();
    subscriber.destroy();
  });

  it('ignores what it cannot read on its channel', async () => {
    const name = uniqueName('garbage');
    const a = await make();
    const breaker = new CircuitBreaker(name, FAST);
    await a.sync.attach(breaker);
    const probe = createClient({ url: fleet.redis().url });
    probe.on('error', () => {});
    await probe.connect();
    const channel = breakerKeys('breakwater:cb:', name).channel;
    for (const m of ['nonsense', '{"t":"open","from":"x"}', '{"t":"override","state":"CLOSED","ver":99}', 'null']) await probe.publish(channel, m);
    await a.sync.forceOpen(name); // a message that follows the garbage still works
    await reaches(breaker, 'FORCED_OPEN');
    await a.sync.release(name);
    probe.destroy();
  });
});
