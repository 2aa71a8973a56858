import { VirtualClock } from '@breakwater/core';
import { expect } from 'vitest';

const clocks: VirtualClock[] = [];

/** A fresh VirtualClock, checked for pending timers by {@link expectNoLeakedTimers}. */
export function newClock(): VirtualClock {
  const clock = new VirtualClock();
  clocks.push(clock);
  return clock;
}

/** Every clock of the test ends with no pending timer. */
export function expectNoLeakedTimers(): void {
  const leaks = clocks.map((c) => c.pendingTimers);
  clocks.length = 0;
  expect(leaks.filter((n) => n > 0)).toEqual([]);
}
