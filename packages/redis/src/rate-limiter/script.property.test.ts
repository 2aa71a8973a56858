import fc from 'fast-check';
import { initialState, nextState, type RateLimiterState } from '@breakwater/rate-limiter';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { redisSuite, type RedisServer } from '@breakwater/test-support/redis';
import { rateLimiterKey } from '../keys.js';
import { checkReply, REPLY_HEAD, replyOf } from './reply.js';
import { RATE_LIMITER_SCRIPT } from './script.js';
import { startWithClient, stopWithClient, type TestClient, uniqueName } from '../../test/rate-limiter/test-redis.js';

// The Lua script against the in-process arithmetic (state.ts, origin at 0 = the Unix epoch) on
// random sequences of batches (operations sent together, at one time), with the time given as
// ARGV "now" (a controlled clock): the same waits, the same reservations, the same permissions and
// cycles as the same operations one by one; and the give-back rule (the key's sequence number
// unchanged since the reservation, its permits still in the future) modelled beside it.

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

type Op = { kind: 'reserve'; permits: number } | { kind: 'drain' } | { kind: 'look' } | { kind: 'giveBack'; which: number };

/** Between batches: the time moves, the limit changes; a batch is operations sent together (one time, one timeout). */
type Step = { kind: 'advance'; ms: number } | { kind: 'limit'; limit: number } | { kind: 'batch'; timeout: number; ops: Op[] };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('reserve' as const), permits: fc.integer({ min: 1, max: 12 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'drain' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'look' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('giveBack' as const), which: fc.nat(5) }) },
);

const step = (period: number): fc.Arbitrary<Step> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('batch' as const),
        timeout: fc.constantFrom(0, Math.floor(period / 2), period, 3 * period, 1e300),
        ops: fc.array(op, { minLength: 1, maxLength: 8 }),
      }),
    },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 3 * period }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('limit' as const), limit: fc.integer({ min: 1, max: 6 }) }) },
  );

const scenario = fc
  .record({ limit: fc.integer({ min: 1, max: 6 }), period: fc.integer({ min: 1, max: 1000 }), start: fc.integer({ min: 0, max: 2e12 }) })
  .chain((s) =>
    fc.record({ limit: fc.constant(s.limit), period: fc.constant(s.period), start: fc.constant(s.start), steps: fc.array(step(s.period), { maxLength: 12 }) }),
  );

redisSuite('the rate limiter script against state.ts', () => {
  let redis: RedisServer;
  let client: TestClient;
  beforeAll(async () => ({ redis, client } = await startWithClient()));
  afterAll(() => stopWithClient(redis, client));

  it('a random sequence of batches gives the same waits, reservations, permissions and cycles as the same operations one by one through state.ts, and hands back exactly what the rule allows', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ limit: initialLimit, period, start, steps }) => {
        const key = rateLimiterKey(uniqueName('property'));
        let now = start;
        let limit = initialLimit;
        // A key that does not exist is a full cycle at the limit in force when it is first used:
        // the model's limiter is created then (at origin 0, the Unix epoch).
        let created: RateLimiterState | undefined;
        const state = (): RateLimiterState => (created ??= initialState(limit, period, 0));
        let seq = 0;
        const reservations: { permits: number; seq: number; releaseAt: number }[] = [];
        for (const s of steps) {
          if (s.kind === 'advance') {
            now += s.ms;
            continue;
          }
          if (s.kind === 'limit') {
            limit = s.limit;
            if (created !== undefined) created = { ...created, limitForPeriod: limit };
            continue;
          }
          // The batch's ARGV, each give-back naming a reservation made before the batch or earlier in it.
          // No view of the key (generation 0): a key that does not exist is a fresh one, never a lost one.
          const argv = [String(limit), String(period), '60000', String(now), String(s.timeout), '1', '0', '-1'];
          const planned: { op: Op; r?: { permits: number; seq: number; releaseAt: number } }[] = [];
          // The model, one operation after another, at the batch's one time.
          const expected: unknown[] = [];
          const seqBefore = seq;
          for (const o of s.ops) {
            if (o.kind === 'reserve') {
              argv.push(String(o.permits));
              const model = (created = nextState(state(), o.permits, s.timeout, now));
              const reserved = s.timeout >= model.waitMs;
              if (reserved) {
                seq += 1;
                reservations.push({ permits: o.permits, seq, releaseAt: now + model.waitMs });
              }
              expected.push({
                done: reserved,
                waitMs: model.waitMs,
                permissions: model.permissions,
                cycle: model.cycle,
                seq,
                ...(reserved ? { grantCycle: Math.floor((now + model.waitMs) / period) } : {}),
              });
              planned.push({ op: o });
            } else if (o.kind === 'drain') {
              argv.push('d');
              const before = refresh(state(), now).permissions;
              const model = (created = drain(state(), now));
              if (before > 0) seq += 1;
              expected.push({ done: before > 0, waitMs: before, permissions: model.permissions, seq });
              planned.push({ op: o });
            } else if (o.kind === 'look') {
              argv.push('m');
              expected.push({ done: false, permissions: refresh(state(), now).permissions, seq });
              planned.push({ op: o });
            } else {
              const r = reservations[reservations.length - 1 - o.which];
              if (r === undefined) continue;
              argv.push('g', String(r.permits), String(r.seq), String(r.releaseAt), '1'); // the key's one generation: the one its first write gave it
              const allowed = r.seq === seq && r.releaseAt > now;
              const model = allowed ? (created = giveBack(state(), r.permits, now)) : refresh(state(), now);
              if (allowed) {
                seq -= 1; // undone: the number of the reservation before it
                reservations.splice(reservations.indexOf(r), 1); // a reservation is handed back once, as the limiter does
              }
              expected.push({ done: allowed, permissions: model.permissions, seq });
              planned.push({ op: o, r });
            }
          }
          if (planned.length === 0) continue;
          const sent = planned.map(({ op: o }) => ({
            code: o.kind === 'reserve' ? String(o.permits) : o.kind === 'drain' ? 'd' : o.kind === 'look' ? 'm' : 'g',
          }));
          const raw = checkReply(await client.eval(RATE_LIMITER_SCRIPT, { keys: [key], arguments: argv }), sent, s.timeout, period);
          expect(raw[2]).toBe(seqBefore);
          // The replies, read as the limiter reads them (its sequence numbers counted as Batcher counts them).
          let got = raw[2]!;
          const actual = planned.map(({ op: o }, i) => {
            const code = o.kind === 'reserve' ? 'r' : o.kind === 'drain' ? 'd' : o.kind === 'look' ? 'm' : 'g';
            const w = raw[REPLY_HEAD + 2 * i]!;
            if (code === 'g') got -= w;
            else if (code === 'd' ? w > 0 : code === 'r' && w >= 0) got += 1;
            const reply = replyOf(raw, i, code, got, limit, period);
            if (code === 'r')
              return {
                done: reply.done,
                waitMs: reply.waitMs,
                permissions: reply.permissions,
                cycle: reply.cycle,
                seq: reply.seq,
                ...(reply.done ? { grantCycle: reply.grantCycle } : {}),
              };
            if (code === 'd') return { done: reply.done, waitMs: reply.waitMs, permissions: reply.permissions, seq: reply.seq };
            return { done: reply.done, permissions: reply.permissions, seq: reply.seq };
          });
          expect(actual).toEqual(expected);
        }
        await client.del(key);
      }),
      { numRuns: 100 },
    );
  });
});
