import { expect, it } from 'vitest';
import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { redisSuite } from '@breakwater/test-support/redis';
import { fail, FAST, fleetOnRedis, reaches, uniqueName } from '../../test/breaker-sync/test-support.js';

// A trial call longer than the lease, on real time (the lease is Redis's, in real ms): the holder
// keeps the lease while the call runs, so no other instance starts a trial meanwhile.
redisSuite('RedisBreakerSync: a trial call longer than its lease', () => {
  const fleet = fleetOnRedis();
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('the holder renews its lease while its trial call runs: never two trials at once, and the fleet closes', async () => {
    const LEASE = 400;
    const CALL = 1000; // the backend answers, slowly: well beyond the lease
    const name = uniqueName('slow-trial');
    const [a, b] = await Promise.all([fleet.make({ trialLease: LEASE }), fleet.make({ trialLease: LEASE })]);
    const breakers = [new CircuitBreaker(name, FAST), new CircuitBreaker(name, FAST)] as const;
    await a.sync.attach(breakers[0]);
    await b.sync.attach(breakers[1]);
    const trials: string[] = [];
    for (const i of [a, b]) i.sync.on('*', (e) => (e.type === 'trialStarted' || e.type === 'trialAbandoned') && trials.push(`${e.type}:${i.sync.instanceId}`));

    // A trial call is one that runs while no breaker of the fleet is CLOSED yet.
    let inFlight = 0;
    let most = 0;
    let started = 0;
    const backend = async () => {
      const trial = breakers.every((x) => x.state !== 'CLOSED');
      if (trial) {
        started++;
        most = Math.max(most, ++inFlight);
      }
      await sleep(CALL);
      if (trial) inFlight--;
      return 'ok';
    };
    const held = reaches(breakers[1], 'OPEN');
    await fail(breakers[0]);
    await held;

    // Traffic on both instances every 50 ms until the fleet closes: every call is refused but the trial's.
    const closed = Promise.all(breakers.map((x) => reaches(x, 'CLOSED', 6000)));
    let stop = false;
    const traffic = (async () => {
      while (!stop) {
        for (const x of breakers) void x.execute(backend).catch(() => {});
        await sleep(50);
      }
    })();
    try {
      await closed;
    } finally {
      stop = true;
      await traffic;
    }
    expect(most).toBe(1);
    expect(started).toBe(1);
    expect(trials).toHaveLength(1);
    expect(trials[0]).toMatch(/^trialStarted:/);
  });
});
