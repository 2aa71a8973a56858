import { VirtualClock } from '@breakwater/core';
import { flush, track, type Tracked } from '@breakwater/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RateLimiter } from './index.js';

type Op =
  | { readonly kind: 'acquire'; readonly permits: number; readonly abortable: boolean }
  | { readonly kind: 'reserve'; readonly permits: number }
  | { readonly kind: 'abort'; readonly target: number }
  | { readonly kind: 'tick'; readonly ms: number }
  | { readonly kind: 'drain' }
  | { readonly kind: 'limit'; readonly n: number }
  | { readonly kind: 'timeout'; readonly ms: number };

const ops = (period: number): fc.Arbitrary<Op[]> =>
  fc.array(
    fc.oneof(
      { weight: 6, arbitrary: fc.record({ kind: fc.constant('acquire' as const), permits: fc.integer({ min: 1, max: 4 }), abortable: fc.boolean() }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('reserve' as const), permits: fc.integer({ min: 1, max: 3 }) }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('abort' as const), target: fc.nat({ max: 3 }) }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: period }) }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'drain' as const }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('limit' as const), n: fc.integer({ min: 1, max: 4 }) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('timeout' as const), ms: fc.integer({ min: 0, max: 5 * period }) }) },
    ),
    { minLength: 5, maxLength: 40 },
  );

/** What a caller of `limiter` saw of one call: settled or not, and how. */
const outcome = (t: Tracked<unknown>) => ({ state: t.state, error: t.state === 'rejected' ? String(t.error) : undefined });

const config = fc.record({
  limit: fc.integer({ min: 1, max: 3 }),
  period: fc.integer({ min: 1, max: 20 }),
  timeoutCycles: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 6 })),
});

describe('RateLimiter.shared on one thread — the same limiter as the in-process one', () => {
  it('same waits, refusals, reservations, hand-backs, events and metrics, on any sequence of calls, aborts, drains, limit changes and clock moves', async () => {
    const stats = { waited: 0, aborted: 0 };
    await fc.assert(
      fc.asyncProperty(
        config.chain((c) => fc.tuple(fc.constant(c), ops(c.period))),
        async ([{ limit, period, timeoutCycles }, script]) => {
          const clock = new VirtualClock();
          const options = { limitForPeriod: limit, limitRefreshPeriod: period, timeoutDuration: timeoutCycles * period, clock };
          const limiters = [new RateLimiter('p', options), RateLimiter.shared('p', options)] as const;
          const seen = limiters.map(() => ({
            events: [] as unknown[],
            calls: [] as Tracked<unknown>[],
            reserved: [] as number[],
            controllers: [] as AbortController[],
          }));
          for (const [i, rl] of limiters.entries()) rl.on('*', (e) => seen[i]!.events.push(e));
          for (const op of script) {
            if (op.kind === 'tick') await clock.advance(op.ms);
            for (const [i, rl] of limiters.entries()) {
              const s = seen[i]!;
              switch (op.kind) {
                case 'acquire': {
                  const ac = op.abortable ? new AbortController() : undefined;
                  if (ac !== undefined) s.controllers.push(ac);
                  s.calls.push(track(rl.acquirePermission(op.permits, ac === undefined ? undefined : { signal: ac.signal })));
                  break;
                }
                case 'reserve':
                  s.reserved.push(rl.reservePermission(op.permits));
                  break;
                case 'abort':
                  s.controllers[Math.max(0, s.controllers.length - 1 - op.target)]?.abort('aborted');
                  break;
                case 'drain':
                  rl.drainPermissions();
                  break;
                case 'limit':
                  rl.changeLimitForPeriod(op.n);
                  break;
                case 'timeout':
                  rl.changeTimeoutDuration(op.ms);
                  break;
              }
            }
            await flush();
            const [local, shared] = seen as [(typeof seen)[0], (typeof seen)[0]];
            expect(shared.calls.map(outcome)).toEqual(local.calls.map(outcome));
            expect(shared.reserved).toEqual(local.reserved);
            expect(shared.events).toEqual(local.events);
            expect(limiters[1].metrics).toEqual(limiters[0].metrics);
            expect(limiters[1].config.limitForPeriod).toBe(limiters[0].config.limitForPeriod);
          }
          stats.waited += seen[1]!.events.filter((e) => (e as { waitMs: number }).waitMs > 0).length;
          stats.aborted += seen[1]!.calls.filter((c) => c.state === 'rejected' && c.error === 'aborted').length;
          for (const s of seen) for (const ac of s.controllers) ac.abort('aborted');
          await clock.runAll();
          await flush();
          expect(limiters[1].metrics).toEqual(limiters[0].metrics);
          expect(clock.pendingTimers).toBe(0);
        },
      ),
      { numRuns: Number(process.env['SHARED_RUNS'] ?? 200) },
    );
    // The runs did exercise waits and aborted waiters (whose permits come back).
    expect(stats.waited).toBeGreaterThan(100);
    expect(stats.aborted).toBeGreaterThan(20);
  }, 30_000);

  it('two limiters over one shared state (as two threads would be) never grant more than limitForPeriod in a cycle, and leak no permit', async () => {
    let handedOver = 0;
    await fc.assert(
      fc.asyncProperty(
        config.chain((c) => fc.tuple(fc.constant(c), ops(c.period), fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }))),
        async ([{ limit, period, timeoutCycles }, script, onA]) => {
          const clock = new VirtualClock();
          const a = RateLimiter.shared('p', { limitForPeriod: limit, limitRefreshPeriod: period, timeoutDuration: timeoutCycles * period, clock });
          const b = RateLimiter.shared(a.handle, { clock });
          const granted = new Map<number, number>();
          const grant = (at: number) => granted.set(Math.floor(at / period), (granted.get(Math.floor(at / period)) ?? 0) + 1);
          let reserving = false;
          // An acquired permit is granted at once or when its wait ends (at a cycle start): the event's `at`.
          for (const rl of [a, b]) rl.on('successfulAcquire', (e) => reserving || grant(e.at));
          const controllers: AbortController[] = [];
          const calls: Promise<unknown>[] = [];
          for (const [k, op] of script.entries()) {
            const rl = onA[k] === true ? a : b;
            switch (op.kind) {
              case 'tick':
                await clock.advance(op.ms);
                break;
              case 'acquire': {
                const ac = new AbortController();
                if (op.abortable) controllers.push(ac);
                calls.push(rl.acquirePermission(1, { signal: ac.signal }).catch(() => undefined));
                break;
              }
              case 'reserve': {
                reserving = true;
                const wait = rl.reservePermission();
                reserving = false;
                if (wait >= 0) grant(clock.now() + wait);
                break;
              }
              case 'abort':
                controllers[Math.max(0, controllers.length - 1 - op.target)]?.abort('aborted');
                break;
              case 'drain':
                rl.drainPermissions();
                break;
              case 'limit': // the limit stays: a change would blur what a cycle may hold
                break;
              case 'timeout':
                rl.changeTimeoutDuration(op.ms);
                break;
            }
            await flush();
          }
          await clock.runAll();
          await Promise.all(calls);
          for (const [cycle, n] of granted) expect(n, `cycle ${cycle}`).toBeLessThanOrEqual(limit);
          handedOver += a.metrics.numberOfWaitingCalls + b.metrics.numberOfWaitingCalls;
          expect(a.metrics.cycle).toBe(b.metrics.cycle);
          clock.set(clock.now() + 10 * period);
          expect(a.metrics.availablePermissions).toBe(limit);
          expect(b.metrics).toEqual(a.metrics);
          expect(clock.pendingTimers).toBe(0);
        },
      ),
      { numRuns: Number(process.env['SHARED_RUNS'] ?? 200) },
    );
    expect(handedOver).toBe(0);
  }, 30_000);
});
