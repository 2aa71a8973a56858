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
    // Told once by each instance that read it (the holder did, taking the lease).
    const holderId = (holder === breakers[0] ? a : b).sync.instanceId;
    expect(reports.map((r) => r.from)).toContain(holderId);
    expect(new Set(reports.map((r) => r.from)).size).toBe(reports.length);
    for (const r of reports) expect(r).toMatchObject({ breakerName: name, field: 'override', value: 'forced_open' });

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
});
