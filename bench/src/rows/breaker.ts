import { EventEmitter } from 'node:events';
import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { circuitBreaker, ConsecutiveBreaker, CountBreaker, handleAll, SamplingBreaker } from 'cockatiel';
import Opossum from 'opossum';
import { bw, floor, peer, type Row } from '../harness.js';
import { reference } from '../references.js';
import { everyFourthFails, fail, swallow, work } from '../work.js';

const HOUR = 3_600_000;

/**
 * opossum as rows 1 and 1c run it: its window is always time-based; a 60 s window of 60 buckets,
 * failing at 50 % from 100 calls, no time-out, no snapshot timer.
 */
export const OPOSSUM_OPTIONS = {
  timeout: false as const,
  errorThresholdPercentage: 50,
  volumeThreshold: 100,
  resetTimeout: 60_000,
  rollingCountTimeout: 60_000,
  rollingCountBuckets: 60,
  enableSnapshots: false,
};

/** Rows 1–3. */
export function breakerRows(): Row[] {
  return [...successRows(), ...openRows(), ...windowRows()];
}

/**
 * Row 1: the success path of a CLOSED breaker, COUNT_BASED(100) and TIME_BASED(60 s), with the
 * no-policy references (references.ts) their targets take out: a call timed by two clock readings
 * (1a: cockatiel's CountBreaker reads none) and one reading (1b: its SamplingBreaker reads one,
 * Breakwater two).
 */
export function successRows(): Row[] {
  const bwCount = new CircuitBreaker('bench', { slidingWindowType: 'COUNT_BASED', slidingWindowSize: 100, minimumNumberOfCalls: 100 });
  const bwTime = new CircuitBreaker('bench', { slidingWindowType: 'TIME_BASED', slidingWindowSize: 60, minimumNumberOfCalls: 100 });
  const ckCount = circuitBreaker(handleAll, { halfOpenAfter: 60_000, breaker: new CountBreaker({ threshold: 0.5, size: 100, minimumNumberOfCalls: 100 }) });
  const ckSampling = circuitBreaker(handleAll, { halfOpenAfter: 60_000, breaker: new SamplingBreaker({ threshold: 0.5, duration: 60_000 }) });
  const op = new Opossum(work, OPOSSUM_OPTIONS);
  return [
    {
      id: '1a',
      title: 'Circuit breaker, success path, COUNT_BASED(100)',
      floor: floor('await fn()', () => work()),
      cases: [
        bw('Breakwater CircuitBreaker COUNT_BASED(100)', () => bwCount.execute(work)),
        peer('cockatiel CountBreaker(100)', () => ckCount.execute(work)),
        peer('opossum (timeout: false)', () => op.fire()),
        reference('timed'),
        reference('seen'),
      ],
    },
    {
      id: '1b',
      title: 'Circuit breaker, success path, TIME_BASED(60 s)',
      floor: floor('await fn()', () => work()),
      cases: [
        bw('Breakwater CircuitBreaker TIME_BASED(60 s)', () => bwTime.execute(work)),
        peer('cockatiel SamplingBreaker(60 s)', () => ckSampling.execute(work)),
        peer('opossum (timeout: false, 60 s window)', () => op.fire()),
        reference('read'),
      ],
    },
  ];
}

/** Row 2: an OPEN breaker rejecting calls. */
export function openRows(): Row[] {
  const bwDefault = new CircuitBreaker('bench', { waitDurationInOpenState: HOUR });
  const bwFast = new CircuitBreaker('bench', { waitDurationInOpenState: HOUR, writableStackTraceEnabled: false });
  bwDefault.transitionToOpenState();
  bwFast.transitionToOpenState();
  // cockatiel opens on one failure with a ConsecutiveBreaker(1); it stays open an hour.
  const ck = circuitBreaker(handleAll, { halfOpenAfter: HOUR, breaker: new ConsecutiveBreaker(1) });
  const op = new Opossum(work, { timeout: false, resetTimeout: HOUR, enableSnapshots: false });
  op.open();
  return [
    {
      id: '2',
      title: 'Circuit breaker, OPEN, rejecting (each call awaited and its rejection caught)',
      prepare: async () => {
        await ck.execute(fail).catch(swallow);
        if (bwFast.state !== 'OPEN' || bwDefault.state !== 'OPEN' || !op.opened) throw new Error('row 2: a breaker is not OPEN');
      },
      floor: floor('await rejecting fn()', () => fail().catch(swallow)),
      cases: [
        bw('Breakwater (writableStackTraceEnabled: false)', () => bwFast.execute(work).catch(swallow)),
        bw('Breakwater (default: with stack)', () => bwDefault.execute(work).catch(swallow), { informational: true }),
        peer('cockatiel', () => ck.execute(work).catch(swallow)),
        peer('opossum', () => op.fire().catch(swallow)),
      ],
    },
  ];
}

/**
 * Row 3: 25 % failures through a window of `size` calls (threshold 50 %: it never opens). One run is
 * 4 calls (one failure, three successes), reported per call. Each window is filled with `size`
 * calls first. opossum's window is time-based: it rotates one of its 10 buckets every `size / 10`
 * calls here (a rotate controller), so it holds between 0.9 × and 1 × `size` calls, like a count window.
 */
export function windowRows(): Row[] {
  return [windowRow('3a', 1_000), windowRow('3b', 100_000)];
}

function windowRow(id: string, size: number): Row {
  const label = size.toLocaleString('en-US').replaceAll(',', ' ');
  const bwFn = everyFourthFails();
  const ckFn = everyFourthFails();
  const opFn = everyFourthFails();
  const opFastFn = everyFourthFails();
  const floorFn = everyFourthFails();
  const breaker = new CircuitBreaker('bench', { slidingWindowSize: size, minimumNumberOfCalls: size, failureRateThreshold: 50 });
  const ck = circuitBreaker(handleAll, { halfOpenAfter: HOUR, breaker: new CountBreaker({ threshold: 0.5, size, minimumNumberOfCalls: size }) });
  // While `filling`, opossum's functions succeed: its set-up fills the window without a sort per failure.
  let filling = true;
  const rotation = (fn: () => Promise<number>) => {
    const controller = new EventEmitter();
    let calls = 0;
    const every = size / 10;
    return {
      controller,
      fn: () => {
        if (++calls === every) {
          calls = 0;
          controller.emit('rotate');
        }
        return filling ? work() : fn();
      },
    };
  };
  const opRot = rotation(opFn);
  const opFastRot = rotation(opFastFn);
  const opOptions = {
    timeout: false as const,
    errorThresholdPercentage: 50,
    volumeThreshold: size,
    resetTimeout: HOUR,
    rollingCountBuckets: 10,
    enableSnapshots: false,
  };
  const op = new Opossum(opRot.fn, { ...opOptions, rotateBucketController: opRot.controller });
  const opFast = new Opossum(opFastRot.fn, { ...opOptions, rollingPercentilesEnabled: false, rotateBucketController: opFastRot.controller });
  const four = (one: () => Promise<unknown>) => async () => {
    await one().catch(swallow);
    await one().catch(swallow);
    await one().catch(swallow);
    await one().catch(swallow);
  };
  return {
    id,
    title: `Circuit breaker, 25 % failures, window of ${label} calls (per call)`,
    prepare: async () => {
      // Fill each window with `size` calls of the same 25 % sequence (opossum's with successes
      // only, to keep its sort per failure out of the set-up: it holds `size` latencies all the same).
      const fill = four(() => breaker.execute(bwFn));
      const fillCk = four(() => ck.execute(ckFn));
      for (let i = 0; i < size / 4; i++) {
        await fill();
        await fillCk();
      }
      for (let i = 0; i < size; i++) {
        await op.fire();
        await opFast.fire();
      }
      filling = false;
      if (breaker.state !== 'CLOSED' || breaker.metrics.numberOfBufferedCalls !== size) throw new Error(`row ${id}: window not full`);
    },
    floor: floor('await fn() (25 % rejecting)', four(floorFn), { opsPerRun: 4 }),
    cases: [
      bw(
        `Breakwater COUNT_BASED(${label})`,
        four(() => breaker.execute(bwFn)),
        { opsPerRun: 4 },
      ),
      peer(
        `cockatiel CountBreaker(${label})`,
        four(() => ck.execute(ckFn)),
        { opsPerRun: 4 },
      ),
      peer(
        `opossum (${label}-call window)`,
        four(() => op.fire()),
        { opsPerRun: 4 },
      ),
      peer(
        `opossum (${label}-call window, rollingPercentilesEnabled: false)`,
        four(() => opFast.fire()),
        { opsPerRun: 4 },
      ),
    ],
  };
}
