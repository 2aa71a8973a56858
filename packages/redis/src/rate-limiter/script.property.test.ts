import fc from 'fast-check';
import { initialState, nextState, type RateLimiterState } from '@breakwater/rate-limiter';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { redisSuite, startRedis, type RedisServer } from '@breakwater/test-support/redis';
import { rateLimiterKey } from '../keys.js';
import { runScript, type ScriptReply } from './script.js';
import { connectClient, uniqueName, type TestClient } from './test-redis.js';

// The Lua script against the in-process arithmetic (state.ts, origin at 0 = the Unix epoch) on
// random sequences, with the time given as ARGV "now" (a controlled clock): the same waits, the
// same reservations, the same permissions and cycles; and the give-back rule (the hash's sequence
// number unchanged since the reservation, its permits still in the future) modelled beside it.

// state.ts's refresh / drain / giveBack, written with its exported nextState (the package exports no more).
const refresh = (s: RateLimiterState, now: number): RateLimiterState => nextState(s, 1, -1, now);
const drain = (s: RateLimiterState, now: number): RateLimiterState => {
  const current = refresh(s, now);
  return current.permissions > 0 ? { ...current, permissions: 0 } : current;
};
const giveBack = (s: RateLimiterState, permits: number, now: number): RateLimiterState => {
  const current = refresh(s, now);
  return { ...current, permissions: Math.min(current.permissions + permits, current.limitForPeriod) };
};

type Op =
  | { kind: 'reserve'; permits: number; timeout: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'drain' }
  | { kind: 'limit'; limit: number }
  | { kind: 'giveBack'; which: number };

const op = (period: number): fc.Arbitrary<Op> =>
  fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('reserve' as const), permits: fc.integer({ min: 1, max: 12 }), timeout: fc.constantFrom(0, Math.floor(period / 2), period, 3 * period, 1e300) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 3 * period }) }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'drain' as const }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('limit' as const), limit: fc.integer({ min: 1, max: 6 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('giveBack' as const), which: fc.nat(5) }) },
  );

const scenario = fc.record({ limit: fc.integer({ min: 1, max: 6 }), period: fc.integer({ min: 1, max: 1000 }), start: fc.integer({ min: 0, max: 2e12 }) }).chain((s) =>
  fc.record({ limit: fc.constant(s.limit), period: fc.constant(s.period), start: fc.constant(s.start), ops: fc.array(op(s.period), { maxLength: 25 }) }),
);

redisSuite('the rate limiter script against state.ts', () => {
  let redis: RedisServer;
  let client: TestClient;
  beforeAll(async () => {
    redis = await startRedis();
    client = await connectClient(redis.url);
  });
  afterAll(async () => {
    client.destroy();
    await redis.stop();
  });

  it('gives the same waits, reservations, permissions and cycles, and hands back exactly what the rule allows', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ limit: initialLimit, period, start, ops }) => {
        const key = rateLimiterKey(uniqueName('property'));
        let now = start;
        let limit = initialLimit;
        // A key that does not exist is a full cycle at the limit in force when it is first used:
        // the model's limiter is created then (at origin 0, the Unix epoch).
        let created: RateLimiterState | undefined;
        const state = (): RateLimiterState => (created ??= initialState(limit, period, 0));
        let seq = 0;
        const reservations: { permits: number; seq: number; releaseAt: number }[] = [];
        const run = (o: string, permits: number, timeout: number, extra: string[] = []): Promise<ScriptReply> =>
          runScript(client, [key], [o, String(permits), String(timeout), String(limit), String(period), '60000', String(now), ...extra]);
        for (const step of ops) {
          if (step.kind === 'advance') {
            now += step.ms;
          } else if (step.kind === 'limit') {
            limit = step.limit;
            if (created !== undefined) created = { ...created, limitForPeriod: limit };
          } else if (step.kind === 'reserve') {
            const reply = await run('r', step.permits, step.timeout);
            const model = (created = nextState(state(), step.permits, step.timeout, now));
            const reserved = step.timeout >= model.waitMs;
            expect({ done: reply.done, waitMs: reply.waitMs, permissions: reply.permissions, cycle: reply.cycle }).toEqual({ done: reserved, waitMs: model.waitMs, permissions: model.permissions, cycle: model.cycle });
            if (reserved) {
              seq += 1;
              expect(reply.seq).toBe(seq);
              reservations.push({ permits: step.permits, seq, releaseAt: now + model.waitMs });
              expect(reply.grantCycle).toBe(Math.floor((now + model.waitMs) / period));
            }
          } else if (step.kind === 'drain') {
            const reply = await run('d', 1, 0);
            const before = refresh(state(), now).permissions;
            const model = (created = drain(state(), now));
            if (before > 0) seq += 1;
            expect({ done: reply.done, before: reply.waitMs, permissions: reply.permissions }).toEqual({ done: before > 0, before, permissions: model.permissions });
          } else {
            const r = reservations[reservations.length - 1 - step.which];
            if (r === undefined) continue;
            const reply = await run('g', r.permits, 0, [String(r.seq), String(r.releaseAt)]);
            const allowed = r.seq === seq && r.releaseAt > now;
            const model = allowed ? (created = giveBack(state(), r.permits, now)) : refresh(state(), now);
            if (allowed) seq += 1;
            expect({ done: reply.done, permissions: reply.permissions }).toEqual({ done: allowed, permissions: model.permissions });
          }
        }
        await client.del(key);
      }),
      { numRuns: 100 },
    );
  });
});
