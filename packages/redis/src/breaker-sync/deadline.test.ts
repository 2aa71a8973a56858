import { expect, it } from 'vitest';
import { createClient } from 'redis';
import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { redisSuite } from '@breakwater/test-support/redis';
import { fail, FAST, fleetOnRedis, nextEvent, reaches, uniqueName } from '../../test/breaker-sync/test-support.js';

// A Redis that hangs (CLIENT PAUSE on the suite's own redis-server: connections stay up, nothing
// answers), on real time: every round trip of the sync ends within commandTimeout, the instance
// goes on alone and says so, and it is back once Redis answers again.
const TIMEOUT = 250;
/** Slack for a loaded 2-core machine (as the limiter's fault tests): the claim is "within the deadline, not a hang". */
const SLACK = 600;
/** Longer than anything measured below, so a round trip that waited for Redis would show. */
const PAUSE = 2500;

redisSuite('RedisBreakerSync: a hung Redis', () => {
  const fleet = fleetOnRedis();

  it('attach, an override and a held breaker are not held up past commandTimeout; storeError, then storeRecovered', async () => {
    const name = uniqueName('hung');
    const later = uniqueName('hung-later');
    // A long lease: a held breaker would otherwise stay OPEN for the fleet's wait plus this grace.
    const options = { commandTimeout: TIMEOUT, trialLease: 5000 };
    const [a, b] = await Promise.all([fleet.make(options), fleet.make(options)]);
    const [ba, bb] = [new CircuitBreaker(name, FAST), new CircuitBreaker(name, FAST)];
    await a.sync.attach(ba);
    await b.sync.attach(bb);
    const held = reaches(bb, 'OPEN');
    await fail(ba);
    await held;
    const openedAt = performance.now();

    const pauser = createClient({ url: fleet.redis().url });
    pauser.on('error', () => {});
    await pauser.connect();
    const down = nextEvent(b.sync, 'storeError');
    await pauser.sendCommand(['CLIENT', 'PAUSE', String(PAUSE), 'ALL']);
    pauser.destroy();

    // attach resolves (the name goes on alone), an override rejects, each within the deadline.
    let t0 = performance.now();
    const alone = new CircuitBreaker(later, FAST);
    await b.sync.attach(alone);
    expect(performance.now() - t0).toBeLessThan(TIMEOUT + SLACK);
    expect(alone.state).toBe('CLOSED');
    const error = await down;
    expect(error.error).toMatchObject({ name: 'CommandTimeoutError', timeoutMs: TIMEOUT });
    t0 = performance.now();
    await expect(b.sync.forceOpen(uniqueName('hung-operator'))).rejects.toThrow(/did not answer within commandTimeout \(250 ms\)/);
    expect(performance.now() - t0).toBeLessThan(TIMEOUT + SLACK);

    // The held breaker is let go: OPEN until the fleet's wait (300 ms) is over, then its own trial.
    await expect.poll(() => bb.tryAcquirePermission(), { timeout: 300 + TIMEOUT + SLACK, interval: 10 }).toBe(true);
    expect(performance.now() - openedAt).toBeLessThan(300 + TIMEOUT + SLACK);
    expect(bb.state).toBe('HALF_OPEN');
    bb.releasePermission();

    // Redis answers again: the answers that came late end the outage, and the fleet works again.
    await nextEvent(b.sync, 'storeRecovered', () => true, PAUSE + 3000);
    const forced = reaches(alone, 'FORCED_OPEN');
    await a.sync.forceOpen(later);
    expect(await forced).toBe('fleet');
    await a.sync.release(later);
  });
});
