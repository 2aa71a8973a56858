import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient } from 'redis';
import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { redisSuite } from '@breakwater/test-support/redis';
import { breakerKeys } from './keys.js';
import { fail, FAST, fleetOnRedis, reaches, uniqueName, type Instance } from '../../test/breaker-sync/test-support.js';

// What an instance reads from Redis or from the channel is untrusted (contract: docs/scale-out.md): values an operator
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
    // A read each on the message, a tryLease each, decide, the other's read on its notice, a read
    // when a tryLease found the state moved on; each script's first run here is EVALSHA then EVAL.
    // Not the hundreds of a spin.
    expect(scripts([a, b]) - before).toBeLessThanOrEqual(12);
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

  // A value Redis holds that no Lua number or timer can (Redis turns a Lua number beyond 2^63 into
  // -2^63), or that is no number at all: planted in a name's state hash (and lease) before an
  // instance attaches. Its breaker (FAST: 300 ms in OPEN, a 300 ms lease) is OPEN no longer than its
  // own wait and one lease allow, then runs the trial, which closes the fleet; a handful of scripts in all.
  const OWN_LIMIT = 300 + 300;
  const SLACK = 300;
  it.each([
    { label: 'until 2^63', state: { until: '9223372036854775808' }, reported: true },
    { label: 'until inf', state: { until: 'inf' }, reported: true },
    { label: 'until nan', state: { until: 'nan' }, reported: true },
    { label: 'until 1e300, attempt -3', state: { until: '1e300', attempt: '-3' }, reported: true },
    { label: 'until not a number', state: { until: 'soon' }, reported: true },
    { label: 'until -inf, ver and attempt no numbers', state: { until: '-inf', ver: 'x', attempt: 'y' }, reported: false },
    { label: 'ver 1e300, attempt 1e300, until far past', state: { until: '-1e300', ver: '1e300', attempt: '1e300' }, reported: false },
    { label: 'a lease that never expires', state: { until: '-5' }, lease: 0, reported: false },
    { label: 'a lease for 30 years', state: { until: '0' }, lease: 1e12, reported: false },
  ])('$label: no spin, OPEN no longer than its own config allows', async ({ state, lease, reported }) => {
    const name = uniqueName('bounded');
    const keys = breakerKeys('breakwater:cb:', name);
    await probe.hSet(keys.state, { ver: '1', ...state });
    if (lease === 0) await probe.set(keys.lease, 'someone');
    else if (lease !== undefined) await probe.set(keys.lease, 'someone', { PX: lease });
    const i = await fleet.make();
    const reports = record([i], 'storeValueIgnored');
    const breaker = new CircuitBreaker(name, FAST);
    const t0 = performance.now();
    const trial = reaches(breaker, 'HALF_OPEN', 3000);
    await i.sync.attach(breaker);
    await trial;
    expect(performance.now() - t0).toBeLessThan(OWN_LIMIT + SLACK);
    await breaker.execute(() => 'ok');
    expect(breaker.state).toBe('CLOSED');
    expect(i.scripts()).toBeLessThanOrEqual(6); // read, tryLease (twice behind a planted lease), decide; EVAL once after NOSCRIPT
    expect(reports).toEqual(reported ? [expect.objectContaining({ breakerName: name, field: 'until', value: state.until })] : []);
    // The fleet is closed in Redis too: a second instance attaches CLOSED and stays so.
    const j = await fleet.make();
    const other = new CircuitBreaker(name, FAST);
    await j.sync.attach(other);
    expect(other.state).toBe('CLOSED');
  });

  it('a valid waitDurationInOpenState of 1e19: the fleet opens for at most 2^31-1 ms, and nothing spins', async () => {
    const name = uniqueName('huge-wait');
    const [a, b] = await Promise.all([fleet.make(), fleet.make()]);
    const config = { ...FAST, waitDurationInOpenState: 1e19 };
    const breakers = [new CircuitBreaker(name, config), new CircuitBreaker(name, config)] as const;
    await a.sync.attach(breakers[0]);
    await b.sync.attach(breakers[1]);
    const openings = record([a, b], 'fleetOpened');
    const before = scripts([a, b]);
    const held = reaches(breakers[1], 'OPEN');
    await fail(breakers[0]);
    expect(await held).toBe('fleet');
    // A window of real time on a real Redis: what is counted is what the instances sent in it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(scripts([a, b]) - before).toBeLessThanOrEqual(3); // a's opening, b's read on the notice (EVAL once after NOSCRIPT)
    const remaining = (i: Instance) => openings.filter((e) => e.from === i.sync.instanceId).map((e) => e['remainingMs'] as number);
    expect(remaining(a)).toEqual([2 ** 31 - 1]); // its own wait, bounded
    expect(remaining(b)).toHaveLength(1); // as read from Redis: a few ms less
    expect(remaining(b)[0]).toBeGreaterThan(2 ** 31 - 1 - 1000);
    expect(breakers.map((x) => x.state)).toEqual(['OPEN', 'OPEN']);
    expect(breakers.map((x) => x.tryAcquirePermission())).toEqual([false, false]);
    await a.sync.release(name);
  });
});
