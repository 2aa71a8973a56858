import { expect, it } from 'vitest';
import { createClient } from 'redis';
import { CircuitBreaker, CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import { VirtualClock } from '@breakwater/core';
import { redisSuite } from '@breakwater/test-support/redis';
import { breakerKeys } from './keys.js';
import { fail, FAST, fleetOnRedis, nextEvent, reaches, uniqueName } from '../../test/breaker-sync/test-support.js';

// Several instances in one process, each with its own connections, against a real redis-server.
redisSuite('RedisBreakerSync in one process', () => {
  const fleet = fleetOnRedis();
  const make = fleet.make;

  it('counts distinct instances toward the quorum; below it the others go on', async () => {
    const name = uniqueName('quorum');
    const [a, b, c] = await Promise.all([make({ quorum: 2 }), make({ quorum: 2 }), make({ quorum: 2 })]);
    const [ba, bb, bc] = [a, b, c].map(() => new CircuitBreaker(name, FAST));
    await a!.sync.attach(ba!);
    await b!.sync.attach(bb!);
    await c!.sync.attach(bc!);

    const seen = nextEvent(c!.sync, 'peerOpened', (e) => e.breakerName === name);
    await fail(ba!);
    expect(ba!.state).toBe('OPEN');
    expect(await seen).toMatchObject({ instanceId: a!.sync.instanceId, count: 1, quorum: 2 });
    // The same instance opening again is still one instance.
    ba!.transitionToClosedState();
    const again = nextEvent(c!.sync, 'peerOpened', (e) => e.breakerName === name);
    await fail(ba!);
    expect(await again).toMatchObject({ count: 1 });
    expect([bb!.state, bc!.state]).toEqual(['CLOSED', 'CLOSED']);

    const cFollows = reaches(bc!, 'OPEN');
    await fail(bb!);
    expect(await cFollows).toBe('fleet');
    expect(bc!.tryAcquirePermission()).toBe(false);
  });

  it('quorum 1: one opening holds every instance OPEN, and exactly one runs the trial that closes the fleet', async () => {
    const name = uniqueName('trial');
    const all = await Promise.all([make(), make(), make()]);
    const breakers = all.map(() => new CircuitBreaker(name, FAST));
    await Promise.all(all.map((i, k) => i.sync.attach(breakers[k]!)));
    const trials: string[] = [];
    for (const i of all) i.sync.on('trialStarted', (e) => e.breakerName === name && trials.push(i.sync.instanceId));

    const others = [reaches(breakers[1]!, 'OPEN'), reaches(breakers[2]!, 'OPEN')];
    await fail(breakers[0]!);
    expect(await Promise.all(others)).toEqual(['fleet', 'fleet']);

    // After the fleet's wait (300 ms) one instance takes the lease and goes HALF_OPEN; the others stay OPEN.
    const halfOpen = await Promise.race(breakers.map((b, k) => reaches(b, 'HALF_OPEN', 3000).then(() => k)));
    expect(trials).toHaveLength(1);
    expect(breakers.filter((b) => b.state === 'HALF_OPEN')).toHaveLength(1);
    const closedEverywhere = breakers.map((b, k) => (k === halfOpen ? Promise.resolve('x') : reaches(b, 'CLOSED')));
    await breakers[halfOpen]!.execute(() => 'ok');
    expect(breakers[halfOpen]!.state).toBe('CLOSED');
    await Promise.all(closedEverywhere);
    expect(breakers.map((b) => b.state)).toEqual(['CLOSED', 'CLOSED', 'CLOSED']);
    expect(trials).toHaveLength(1);
  });

  it("opens the fleet for the opening breaker's own wait: a failed fleet trial waits its wait function's second wait", async () => {
    const name = uniqueName('backoff');
    const [a, b] = await Promise.all([make(), make()]);
    const { waitDurationInOpenState: _fixed, ...rest } = FAST;
    const growing = { ...rest, waitIntervalFunctionInOpenState: (attempt: number) => 300 * attempt };
    const breakers = [new CircuitBreaker(name, growing), new CircuitBreaker(name, growing)];
    await a!.sync.attach(breakers[0]!);
    await b!.sync.attach(breakers[1]!);
    const firstOpening = nextEvent(b!.sync, 'fleetOpened', (e) => e.breakerName === name);
    await fail(breakers[0]!);
    expect((await firstOpening).remainingMs).toBeLessThanOrEqual(300);
    expect((await firstOpening).remainingMs).toBeGreaterThan(200);

    // The trial falls to the instance whose own breaker never opened (attempt 0): a lets go of the
    // fleet by a manual transition, so b takes the lease. b's trial fails: the fleet opens again at
    // its second attempt, for 600 ms — the fleet's attempt, not b's breaker's own.
    breakers[0]!.transitionToClosedState();
    await reaches(breakers[1]!, 'HALF_OPEN', 3000);
    const reopened = nextEvent(a!.sync, 'fleetOpened', (e) => e.breakerName === name);
    await fail(breakers[1]!, 1);
    expect(breakers[1]!.state).toBe('OPEN');
    const again = await reopened;
    expect(again.remainingMs).toBeGreaterThan(500);
    expect(again.remainingMs).toBeLessThanOrEqual(600);
  });

  it('a held breaker draws its jitter from the random option: the lease is tried at the wait plus random() × 20 ms', async () => {
    const name = uniqueName('jitter');
    const draws: number[] = [];
    const a = await make();
    const b = await make({ random: () => (draws.push(0.5), 0.5) });
    const [ba, bb] = [new CircuitBreaker(name, FAST), new CircuitBreaker(name, FAST)];
    await a.sync.attach(ba);
    await b.sync.attach(bb);
    const held = reaches(bb, 'OPEN');
    await fail(ba);
    expect(await held).toBe('fleet');
    expect(draws).toEqual([0.5]); // one draw per hold, from the option (not Math.random)
  });

  it('forceOpen, disable and release reach every attached instance, by name, with cause fleet', async () => {
    const name = uniqueName('override');
    const [a, b, operator] = await Promise.all([make(), make(), make()]);
    const ba = new CircuitBreaker(name, FAST);
    const bb = new CircuitBreaker(name, FAST);
    await a!.sync.attach(ba);
    await b!.sync.attach(bb);
    const causes: string[] = [];
    bb.on('stateTransition', (e) => causes.push(`${e.to}:${e.cause}`));

    let both = Promise.all([reaches(ba, 'FORCED_OPEN'), reaches(bb, 'FORCED_OPEN')]);
    await operator!.sync.forceOpen(name);
    await both;
    both = Promise.all([reaches(ba, 'DISABLED'), reaches(bb, 'DISABLED')]);
    await operator!.sync.disable(name);
    await both;
    both = Promise.all([reaches(ba, 'CLOSED'), reaches(bb, 'CLOSED')]);
    await operator!.sync.release(name);
    await both;
    expect(causes).toEqual(['FORCED_OPEN:fleet', 'DISABLED:fleet', 'CLOSED:fleet']);

    // An instance that attaches later reads the override from its key.
    await operator!.sync.forceOpen(name);
    const late = new CircuitBreaker(name, FAST);
    const c = await make();
    await c.sync.attach(late);
    expect(late.state).toBe('FORCED_OPEN');
    await operator!.sync.release(name);
    await expect(operator!.sync.forceOpen('')).rejects.toThrow(TypeError);
  });

  it('attaches a whole registry, breakers added later too, and lets removed ones go', async () => {
    const [a, operator] = await Promise.all([make(), make()]);
    const registry = new CircuitBreakerRegistry({ defaultConfig: FAST });
    const first = uniqueName('reg-first');
    const later = uniqueName('reg-later');
    registry.get(first);
    await a!.sync.attach(registry);
    expect(a!.sync.names).toEqual([first]);
    const pg = registry.get(later);
    expect(a!.sync.names).toEqual([first, later]); // attached as it is added (subscribe and read follow: an override published meanwhile is read)
    const forced = reaches(pg, 'FORCED_OPEN');
    await operator!.sync.forceOpen(later);
    expect(await forced).toBe('fleet');
    registry.remove(later);
    expect(a!.sync.names).toEqual([first]);
    await a!.sync.detach(registry);
    expect(a!.sync.names).toEqual([]);
  });

  it('detach clears its timer, its listener and its subscription', async () => {
    const name = uniqueName('detach');
    const [a, b] = await Promise.all([make(), make()]);
    const clock = new VirtualClock();
    const held = new CircuitBreaker(name, { ...FAST, clock });
    await a!.sync.attach(held);
    const opener = new CircuitBreaker(name, FAST);
    await b!.sync.attach(opener);
    const follows = reaches(held, 'OPEN');
    await fail(opener);
    await follows;
    expect(clock.pendingTimers).toBe(1); // the lease attempt at the fleet's deadline

    await a!.sync.detach(held);
    expect(clock.pendingTimers).toBe(0);
    const probe = createClient({ url: fleet.redis().url });
    probe.on('error', () => {});
    await probe.connect();
    const subscribers = (await probe.sendCommand(['PUBSUB', 'NUMSUB', breakerKeys('breakwater:cb:', name).channel])) as [string, number];
    expect(subscribers[1]).toBe(1); // b's only
    probe.destroy();
    await b!.sync.forceOpen(name);
    await reaches(opener, 'FORCED_OPEN');
    expect(held.state).toBe('OPEN');
    await b!.sync.release(name);
  });
});
