import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient } from 'redis';
import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { redisSuite } from '@breakwater/test-support/redis';
import { breakerKeys } from './keys.js';
import { fail, FAST, fleetOnRedis, reaches, uniqueName, type Instance } from './test-support.js';

// What an instance reads from Redis or from the channel is untrusted (SPEC §10): values an operator
// typed by hand, a forged PUBLISH, numbers no Lua script or timer can hold. Each test plants the
// value with a client of its own (`probe`), then counts the scripts the instances send and the
// events they publish: no storm, no instance pinned, one report.
redisSuite('RedisBreakerSync: what it reads is untrusted', () => {
  const fleet = fleetOnRedis();
  let probe: ReturnType<typeof createClient>;
  beforeAll(async () => {
    probe = createClient({ url: fleet.redis().url });
    probe.on('error', () => {});
    await probe.connect();
  });
  afterAll(() => probe.destroy());

  /** Every event of `type` the instances publish from now on. */
  const record = (instances: readonly Instance[], type: 'storeValueIgnored' | 'fleetOpened') => {
    const seen: { readonly from: string; readonly [field: string]: unknown }[] = [];
    for (const i of instances) i.sync.on(type, (e) => seen.push({ ...e, from: i.sync.instanceId }));
    return seen;
  };
  const scripts = (instances: readonly Instance[]) => instances.reduce((n, i) => n + i.scripts(), 0);

  it("an override it does not know ('forced_open' typed by hand) is ignored and reported once: no storm, no fleetOpened, the fleet goes on", async () => {
    const name = uniqueName('unknown-override');
    const keys = breakerKeys('breakwater:cb:', name);
    const [a, b] = await Promise.all([fleet.make(), fleet.make()]);
    const breakers = [new CircuitBreaker(name, FAST), new CircuitBreaker(name, FAST)] as const;
    await a.sync.attach(breakers[0]);
    await b.sync.attach(breakers[1]);
    const held = reaches(breakers[1], 'OPEN');
    await fail(breakers[0]);
    expect(await held).toBe('fleet'); // the fleet is OPEN for 300 ms: both held

    const reports = record([a, b], 'storeValueIgnored');
    const openings = record([a, b], 'fleetOpened');
    const before = scripts([a, b]);
    await probe.hSet(keys.state, 'override', 'forced_open');
    await probe.publish(keys.channel, JSON.stringify({ t: 'override', state: 'forced_open', ver: 99 }));

    // The fleet's wait ends as if nothing had been typed: one instance takes the lease and runs
    // the trial, which closes the fleet.
    const holder = await Promise.race(breakers.map((x) => reaches(x, 'HALF_OPEN', 3000).then(() => x)));
    const closed = breakers.map((x) => reaches(x, 'CLOSED'));
    await holder.execute(() => 'ok');
    await Promise.all(closed);
    expect(breakers.map((x) => x.state)).toEqual(['CLOSED', 'CLOSED']);
    expect(openings).toEqual([]);
    expect(scripts([a, b]) - before).toBeLessThanOrEqual(8); // tryLease by each, decide, a re-read or two: not hundreds
    // Told once by each instance (each re-read the state on the message), however often its scripts met it.
    expect(reports.map((r) => [r.from, r['breakerName'], r['field'], r['value']]).sort()).toEqual(
      [a, b].map((i) => [i.sync.instanceId, name, 'override', 'forced_open']).sort(),
    );

    // An instance attaching now reads the same value: ignored (CLOSED, not FORCED_OPEN), reported once.
    const c = await fleet.make();
    const late = record([c], 'storeValueIgnored');
    const third = new CircuitBreaker(name, FAST);
    await c.sync.attach(third);
    expect(third.state).toBe('CLOSED');
    expect(late).toMatchObject([{ breakerName: name, field: 'override', value: 'forced_open' }]);
    // A real override replaces it.
    const forced = reaches(third, 'FORCED_OPEN');
    await a.sync.forceOpen(name);
    expect(await forced).toBe('fleet');
    await a.sync.release(name);
    await reaches(third, 'CLOSED');
  });

  it('a forged PUBLISH cannot pin an instance: a version is believed only as far as the store confirms it', async () => {
    const name = uniqueName('forged');
    const keys = breakerKeys('breakwater:cb:', name);
    const [a, operator] = await Promise.all([fleet.make(), fleet.make()]);
    const breaker = new CircuitBreaker(name, FAST);
    await a.sync.attach(breaker);
    const moves: string[] = [];
    breaker.on('stateTransition', (e) => moves.push(`${e.to}:${e.cause}`));
    const forge = (m: Record<string, unknown>) => probe.publish(keys.channel, JSON.stringify(m));

    // Anyone can PUBLISH: a FORCED_OPEN or an OPEN "from the future" changes nothing, and the real
    // changes that follow take effect.
    await forge({ t: 'override', state: 'FORCED_OPEN', ver: 1e300 });
    await forge({ t: 'open', from: 'x', remaining: 1e9, ver: 1e300, count: 9 });
    const disabled = reaches(breaker, 'DISABLED');
    await operator.sync.disable(name);
    await disabled;
    // A forged release of a real override changes nothing either.
    await forge({ t: 'override', state: '', ver: 1e300 });
    await forge({ t: 'closed', from: 'x', ver: 1e300 });
    const forced = reaches(breaker, 'FORCED_OPEN');
    await operator.sync.forceOpen(name);
    await forced;
    const closed = reaches(breaker, 'CLOSED');
    await operator.sync.release(name);
    await closed;
    expect(moves).toEqual(['DISABLED:fleet', 'FORCED_OPEN:fleet', 'CLOSED:fleet']);
  });
});
