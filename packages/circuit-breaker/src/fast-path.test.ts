import { afterEach, describe, expect, it, vi } from 'vitest';
import { BoomError, breakerOnClock, expectNoLeakedTimers } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

// The success path takes shortcuts (one pair of handlers per breaker for the call that holds
// them; no re-judging of a verdict a plain success cannot change). These tests hold the cases
// where a shortcut would give a wrong answer.
describe('CircuitBreaker fast path', () => {
  it('times overlapping calls each from its own start, whichever holds the shared handlers', async () => {
    const { breaker, clock } = breakerOnClock({ slidingWindowSize: 10, minimumNumberOfCalls: 10, slowCallDurationThreshold: 100 });
    const elapsed: number[] = [];
    breaker.on('success', (e) => elapsed.push(e.elapsed));
    breaker.on('error', (e) => elapsed.push(-e.elapsed));
    const after =
      (ms: number, fail = false) =>
      () =>
        new Promise((resolve, reject) => clock.setTimeout(() => (fail ? reject(new BoomError()) : resolve(ms)), ms));
    const first = breaker.execute(after(300)); // holds the shared handlers
    await clock.advance(50);
    const second = breaker.execute(after(20, true)).catch((e: unknown) => e); // its own
    const third = breaker.execute(after(100)); // its own
    await clock.advance(20);
    expect(await second).toBeInstanceOf(BoomError);
    await clock.advance(230);
    await Promise.all([first, third]);
    const fourth = breaker.execute(after(150)); // the shared handlers are free again
    await clock.advance(150);
    await fourth;
    expect(elapsed).toEqual([-20, 100, 300, 150]);
    expect(breaker.metrics).toMatchObject({ numberOfBufferedCalls: 4, numberOfSlowCalls: 2, numberOfSlowSuccessfulCalls: 2, numberOfFailedCalls: 1 });
  });

  it('a call that never settles keeps the shared handlers; later calls are still timed and recorded', async () => {
    const { breaker, clock } = breakerOnClock({ slidingWindowSize: 2, minimumNumberOfCalls: 2, slowCallDurationThreshold: 100, slowCallRateThreshold: 100 });
    void breaker.execute(() => new Promise(() => {}));
    for (const ms of [150, 150]) {
      const call = breaker.execute(() => new Promise((resolve) => clock.setTimeout(() => resolve(ms), ms)));
      await clock.advance(ms);
      await call;
    }
    expect(breaker.state).toBe('OPEN'); // two slow calls out of two
  });

  it('a success still opens a TIME_BASED breaker when older successes fell out of the window', async () => {
    // 10 calls in second 0 (all successes), then 10 failures in second 1: 50 % over 20 calls does
    // not open (threshold 60). In second 2 of a 2-second window, second 0 falls out: one more
    // success gives 10 failures in 11 calls (90.9 %), which opens the breaker.
    const { breaker, clock, events } = breakerOnClock({
      slidingWindowType: 'TIME_BASED',
      slidingWindowSize: 2,
      minimumNumberOfCalls: 5,
      failureRateThreshold: 60,
    });
    for (let i = 0; i < 10; i++) await breaker.execute(() => 'ok');
    clock.set(1000);
    for (let i = 0; i < 10; i++) await breaker.execute(() => Promise.reject(new BoomError())).catch(() => {});
    expect(breaker.state).toBe('CLOSED');
    clock.set(2000);
    await breaker.execute(() => 'ok');
    expect(breaker.state).toBe('OPEN');
    expect(events.slice(-3)).toEqual(['success', `failureRateExceeded ${(10 * 100) / 11}`, 'stateTransition CLOSED->OPEN']);
    breaker.reset();
  });

  it('a success that brings a COUNT_BASED window to its minimum is judged', async () => {
    const { breaker } = breakerOnClock({ slidingWindowSize: 4, minimumNumberOfCalls: 4, failureRateThreshold: 50 });
    for (let i = 0; i < 3; i++) await breaker.execute(() => Promise.reject(new BoomError())).catch(() => {});
    expect(breaker.state).toBe('CLOSED'); // below the minimum
    await breaker.execute(() => 'ok'); // 3 failures in 4 calls
    expect(breaker.state).toBe('OPEN');
  });

  it('a success in a later second is judged on the moved window, also when a read of metrics moved it first', async () => {
    const { breaker, clock } = breakerOnClock({ slidingWindowType: 'TIME_BASED', slidingWindowSize: 2, minimumNumberOfCalls: 2, failureRateThreshold: 50 });
    await breaker.execute(() => 'ok');
    await breaker.execute(() => 'ok'); // verdict 0 in second 0
    clock.set(1500);
    await breaker.execute(() => Promise.reject(new BoomError())).catch(() => {}); // 1 of 3: 33 %
    clock.set(2500);
    expect(breaker.metrics.numberOfBufferedCalls).toBe(1); // second 0 fell out on this read
    await breaker.execute(() => 'ok'); // 1 failure in 2 calls: 50 %
    expect(breaker.state).toBe('OPEN');
  });
});

describe('CircuitBreaker without listeners', () => {
  it('builds no event through a whole open, half-open and close cycle', async () => {
    const { EventPublisher, VirtualClock } = await import('@breakwater/core');
    const { CircuitBreaker } = await import('./circuit-breaker.js');
    const emit = vi.spyOn(EventPublisher.prototype, 'emit');
    const clock = new VirtualClock();
    const breaker = new CircuitBreaker('quiet', {
      slidingWindowSize: 2,
      minimumNumberOfCalls: 2,
      waitDurationInOpenState: 10,
      permittedNumberOfCallsInHalfOpenState: 1,
      clock,
    });
    await breaker.execute(() => Promise.reject(new BoomError())).catch(() => {});
    await breaker
      .execute(() => {
        throw new BoomError();
      })
      .catch(() => {});
    expect(breaker.state).toBe('OPEN');
    await breaker.execute(() => 'refused').catch(() => {});
    await clock.advance(11);
    await breaker.execute(() => Promise.resolve('trial'));
    expect(breaker.state).toBe('CLOSED');
    breaker.reset();
    expect(emit).not.toHaveBeenCalled();
    breaker.on('stateTransition', () => {});
    breaker.transitionToOpenState();
    expect(emit).toHaveBeenCalledTimes(1); // and one as soon as someone listens
  });
});
