import { describe, expect, it } from 'vitest';
import { countVsTime } from './experiments/count-vs-time.js';
import { breakerCallsPerPayment, firstOpening } from './experiments/retry-vs-breaker.js';
import { slowVsTimeout } from './experiments/slow-vs-timeout.js';

// The documents' three experiments (examples/scenarios/*.yml on the simulator's engine), asserted
// by the shape of their results, for several seeds.
describe.each([1, 42, 2024])('the experiments of the documents (seed %i)', (seed) => {
  it('1: with retry=3 the breaker opens several payments sooner than with retry=1', async () => {
    const three = await firstOpening(seed, 3);
    const one = await firstOpening(seed, 1);
    // retry=1: one breaker call per payment, so the 20-call window decides from payment 20 on
    // (at 20 when its rates reach a threshold then, a few payments later otherwise).
    expect(one.openedDuringPayment).toBeGreaterThanOrEqual(20);
    expect(one.firstRefusedPayment).toBe(one.openedDuringPayment + 1);
    expect(one.gatewayCalls).toBe(one.openedDuringPayment);
    // retry=3: the 20th breaker call comes well before payment 20.
    expect(three.gatewayCalls).toBeGreaterThanOrEqual(20);
    expect(three.gatewayCalls).toBeGreaterThan(three.openedDuringPayment);
    expect(three.openedDuringPayment).toBeLessThan(one.openedDuringPayment);
    expect(three.firstRefusedPayment).toBeLessThan(one.firstRefusedPayment);
  });

  it('1: a payment makes about 1.56 breaker calls with retry=3 and exactly 1 with retry=1', async () => {
    expect(await breakerCallsPerPayment(seed, 1, 500)).toBe(1);
    const three = await breakerCallsPerPayment(seed, 3, 2000);
    expect(three).toBeGreaterThan(1.5);
    expect(three).toBeLessThan(1.62);
  });

  it('2: a time-out at 600 ms opens the breaker by the failure rate, at 1000 ms by the slow-call rate', async () => {
    const [at600, at1000] = await slowVsTimeout(seed);
    expect(at600!.openedBy).toEqual(['failure rate']);
    expect(at600!.timeouts).toBeGreaterThan(0);
    expect(at600!.slowCallRate).toBeLessThan(50); // time-outs are never slow
    expect(at600!.cause).toBe('failure_rate');
    expect(at1000!.openedBy).toEqual(['slow-call rate']);
    expect(at1000!.cause).toBe('slow_call_rate');
    expect(at1000!.timeouts).toBe(0);
    expect(at1000!.failureRate).toBe(0);
  });

  it('3: after the pause COUNT_BASED is still OPEN and refuses most calls; TIME_BASED forgot the burst', async () => {
    const [count, time] = await countVsTime(seed);
    expect(count!.stateAfterPause).toBe('OPEN');
    expect(time!.stateAfterPause).toBe('CLOSED');
    expect(count!.rejectedPercent).toBeGreaterThan(60);
    expect(time!.rejectedPercent).toBeLessThan(10);
    expect(count!.letThroughAfterPausePercent).toBeLessThan(20);
    expect(time!.letThroughAfterPausePercent).toBeGreaterThan(90);
  });
});
