import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient } from 'redis';
import { redisSuite, startRedis, type RedisServer } from '@breakwater/test-support/redis';
import { Child } from '../../test/breaker-sync/fixtures/fleet.js';
import { OPENED, READ } from './scripts.js';
import { instance, uniqueName, type Instance } from '../../test/breaker-sync/test-support.js';

// A fleet of real processes (fleet-child.ts) on a real redis-server of the test's own; this
// process is the fourth instance, the operator. Waits are the protocol's own (300 ms in OPEN,
// a 300 ms lease); every wait for a report is bounded.
redisSuite('RedisBreakerSync across processes', () => {
  let redis: RedisServer;
  let operator: Instance;
  const children: Child[] = [];
  const spawn = (id: string): Child => {
    const child = new Child(id, redis.url);
    children.push(child);
    return child;
  };
  let a: Child, b: Child, c: Child;

  beforeAll(async () => {
    redis = await startRedis();
    [a, b, c] = [spawn('a'), spawn('b'), spawn('c')];
    operator = await instance(redis.url);
    await Promise.all([a, b, c].map((child) => child.started()));
  }, 30_000);
  afterAll(async () => {
    for (const child of children) child.stop();
    await operator.close();
    await redis.stop();
  });
  const attachAll = (name: string, quorum: number, fleet = [a, b, c]) => Promise.all(fleet.map((child) => child.send('attach', name, { quorum })));

  it('quorum 1: one instance opens, the other two reject within 100 ms', async () => {
    const name = uniqueName('q1');
    await attachAll(name, 1);
    await a.send('fail', name);
    const opened = await a.transition(name, 'OPEN');
    expect(opened.cause).toBe('failure_rate');
    const [inB, inC] = await Promise.all([b.transition(name, 'OPEN'), c.transition(name, 'OPEN')]);
    expect([inB.cause, inC.cause]).toEqual(['fleet', 'fleet']);
    expect(inB.at - opened.at).toBeLessThanOrEqual(100);
    expect(inC.at - opened.at).toBeLessThanOrEqual(100);
    expect(await b.send('succeed', name)).toBe(false); // rejected: CallNotPermittedError
  }, 15_000);

  it('quorum 2: one opening is heard but moves nobody; the second opens the fleet', async () => {
    const name = uniqueName('q2');
    await attachAll(name, 2);
    await a.send('fail', name);
    // b and c heard it (peerOpened, 1 of 2) and go on CLOSED.
    await Promise.all([b.event(name, 'peerOpened'), c.event(name, 'peerOpened')]);
    expect(await b.send('state', name)).toBe('CLOSED');
    expect(await c.send('succeed', name)).toBe(true);
    await b.send('fail', name);
    const second = await b.transition(name, 'OPEN');
    const inC = await c.transition(name, 'OPEN');
    expect(inC.cause).toBe('fleet');
    expect(inC.at - second.at).toBeLessThanOrEqual(100);
    expect(await c.send('succeed', name)).toBe(false);
  }, 15_000);

  it('the lease holder dies during its trial: another takes it when the lease expires, one at a time', async () => {
    const name = uniqueName('lease');
    await attachAll(name, 1);
    await a.send('fail', name);
    await Promise.all([b.transition(name, 'OPEN'), c.transition(name, 'OPEN')]);
    // After 300 ms one takes the lease and goes HALF_OPEN; it is killed before any trial call.
    const first = await Promise.race([a, b, c].map((child) => child.event(name, 'trialStarted', 3000).then(() => child)));
    const started = first.reports.find((r) => r.event === 'trialStarted' && r.name === name)!;
    first.kill();
    const rest = [a, b, c].filter((child) => child !== first);
    const second = await Promise.race(rest.map((child) => child.event(name, 'trialStarted', 3000).then(() => child)));
    const taken = second.reports.find((r) => r.event === 'trialStarted' && r.name === name)!;
    expect(taken.at - started.at).toBeGreaterThanOrEqual(250); // not before the lease (300 ms) ran out
    const third = rest.find((child) => child !== second)!;
    expect(third.reports.some((r) => r.name === name && r.to === 'HALF_OPEN')).toBe(false);
    expect(await third.send('state', name)).toBe('OPEN');
    // Its trial call succeeds: the fleet closes.
    expect(await second.send('succeed', name)).toBe(true);
    const closed = await third.transition(name, 'CLOSED');
    expect(closed.cause).toBe('fleet');
    expect(third.reports.some((r) => r.name === name && r.to === 'HALF_OPEN')).toBe(false);
    // The dead instance is replaced for the next tests.
    const replacement = spawn(first.id);
    await replacement.started();
    if (first === a) a = replacement;
    else if (first === b) b = replacement;
    else c = replacement;
  }, 20_000);

  it('forceOpen from a fourth process reaches all three; a restarted instance comes back FORCED_OPEN', async () => {
    const name = uniqueName('forced');
    await attachAll(name, 1);
    await operator.sync.forceOpen(name);
    const moved = await Promise.all([a, b, c].map((child) => child.transition(name, 'FORCED_OPEN')));
    expect(moved.map((r) => r.cause)).toEqual(['fleet', 'fleet', 'fleet']);
    c.kill();
    c = spawn('c');
    await c.started();
    expect(await c.send('attach', name, { quorum: 1 })).toBe('FORCED_OPEN');
    await operator.sync.release(name);
    await Promise.all([a, b, c].map((child) => child.transition(name, 'CLOSED')));
  }, 30_000);

  it('Redis killed: each instance goes on alone and says so; Redis back: the fleet converges', async () => {
    if (!redis.owned) return;
    const name = uniqueName('outage');
    await attachAll(name, 1);
    const killedAt = Date.now();
    await redis.kill();
    await Promise.all([a, b, c].map((child) => child.event(name, 'storeError', 3000, killedAt)));
    await a.send('fail', name);
    expect(await a.send('state', name)).toBe('OPEN');
    expect(await b.send('succeed', name)).toBe(true); // b and c know nothing of it, and work on
    expect(await c.send('succeed', name)).toBe(true);

    const backAt = Date.now();
    await redis.restart(); // empty: no state, no scripts (EVALSHA → NOSCRIPT → EVAL)
    await Promise.all([a, b, c].map((child) => child.event(name, 'storeRecovered', 5000, backAt)));
    await b.send('fail', name);
    const inC = await c.waitFor((r) => r.name === name && r.to === 'OPEN' && r.at >= backAt, 3000, 'OPEN after recovery');
    expect(inC.cause).toBe('fleet');
    await a.event(name, 'fleetOpened', 3000, backAt); // a, OPEN alone, is now held by the fleet too
    // The restarted Redis had no scripts: EVALSHA answered NOSCRIPT and EVAL loaded them.
    const probe = createClient({ url: redis.url });
    probe.on('error', () => {});
    await probe.connect();
    try {
      expect(await probe.sendCommand(['SCRIPT', 'EXISTS', OPENED.sha, READ.sha])).toEqual([1, 1]);
    } finally {
      probe.destroy();
    }
  }, 30_000);
});
