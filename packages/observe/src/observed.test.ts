import { describe, expect, it } from 'vitest';
import { Registry } from '@breakwater/core';
import {
  OBSERVED_SERIES,
  ObservedComponents,
  isObservedComponent,
  isObservedRegistry,
  type CallRecorder,
  type ObservedAdaptiveCall,
  type ObservedAdaptiveCallKind,
  type ObservedAdaptiveLimiter,
  type ObservedCallKind,
  type ObservedCircuitBreaker,
  type ObservedSample,
  type ObservedThrottle,
  type ObservedTransition,
  type RttRecorder,
} from './index.js';

// The exporter-neutral reader, on shapes alone (core knows no policy package; the exporters'
// tests hold it on real components).

class FakeBreaker implements ObservedCircuitBreaker {
  readonly kind = 'circuitBreaker' as const;
  state: ObservedCircuitBreaker['state'] = 'CLOSED';
  reads = 0;
  readonly listeners = new Set<(e: ObservedTransition) => void>();
  readonly observers = new Set<(kind: ObservedCallKind, ms: number) => void>();
  constructor(readonly name: string) {}
  get metrics() {
    this.reads++;
    return {
      failureRate: 25,
      slowCallRate: -1,
      numberOfFailedCalls: 1,
      numberOfSuccessfulCalls: 3,
      numberOfSlowSuccessfulCalls: 0,
      numberOfSlowFailedCalls: 0,
      numberOfNotPermittedCalls: 2,
    };
  }
  on(_: 'stateTransition', listener: (e: ObservedTransition) => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  observeCalls(observer: (kind: ObservedCallKind, ms: number) => void) {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }
  transition(to: ObservedCircuitBreaker['state'], cause: string) {
    const from = this.state;
    this.state = to;
    for (const l of this.listeners) l({ from, to, cause });
  }
  call(kind: ObservedCallKind, ms: number) {
    for (const o of this.observers) o(kind, ms);
  }
}

const samples = (set: ObservedComponents, name: string): string[] => {
  const s = OBSERVED_SERIES.find((x) => x.name === name)!;
  const out: ObservedSample[] = [];
  for (const entry of set.read()[s.of]) s.samples(entry as never, out);
  return out.map((o) => `${Object.values(o.labels).join(' ')} ${o.value}`);
};

describe('observed components (the reader both exporters share)', () => {
  it('tells components and registries by shape', () => {
    expect(isObservedComponent(new FakeBreaker('pg'))).toBe(true);
    expect(isObservedComponent({ kind: 'fallback', name: 'x' })).toBe(false);
    expect(isObservedRegistry(new Registry('R', (n: string) => new FakeBreaker(n)))).toBe(true);
    expect(isObservedRegistry(new FakeBreaker('pg'))).toBe(false);
  });

  it('reads each series from metrics once per read; counts transitions by cause; feeds the recorder per call', () => {
    const calls: string[] = [];
    const set = new ObservedComponents<CallRecorder>('Test', (b) => ({ record: (kind, ms) => calls.push(`${b.name} ${kind} ${ms}`) }));
    const breaker = new FakeBreaker('pg');
    set.add(breaker);
    breaker.transition('OPEN', 'failure_rate');
    breaker.transition('HALF_OPEN', 'wait_elapsed');
    breaker.transition('OPEN', 'half_open_trial');
    breaker.transition('HALF_OPEN', 'wait_elapsed');
    breaker.call('failed', 12);
    expect(calls).toEqual(['pg failed 12']);
    expect(samples(set, 'circuitbreaker_failure_rate')).toEqual(['pg 25']);
    expect(samples(set, 'circuitbreaker_state')).toEqual([
      'pg closed 0',
      'pg open 0',
      'pg half_open 1',
      'pg disabled 0',
      'pg forced_open 0',
      'pg metrics_only 0',
    ]);
    expect(samples(set, 'circuitbreaker_transitions_total')).toEqual([
      'pg closed open failure_rate 1',
      'pg open half_open wait_elapsed 2',
      'pg half_open open half_open_trial 1',
    ]);
    const reads = breaker.reads;
    set.read();
    expect(breaker.reads).toBe(reads + 1);
  });

  it('binds a registry as a whole, a breaker once however often it is added, and lets go with the last', () => {
    const set = new ObservedComponents('Test');
    const registry = new Registry('FakeRegistry', (n: string) => new FakeBreaker(n));
    const a = registry.get('a');
    const fromRegistry = set.add(registry);
    const direct = set.add(a);
    registry.get('b');
    expect(samples(set, 'circuitbreaker_failure_rate')).toEqual(['a 25', 'b 25']);
    expect(a.listeners.size).toBe(1);
    registry.remove('a');
    expect(samples(set, 'circuitbreaker_failure_rate')).toEqual(['a 25', 'b 25']); // still added directly
    direct();
    direct();
    expect(a.listeners.size).toBe(0);
    expect(samples(set, 'circuitbreaker_failure_rate')).toEqual(['b 25']);
    fromRegistry();
    expect(samples(set, 'circuitbreaker_failure_rate')).toEqual([]);
    expect(registry.get('b').listeners.size).toBe(0);
    expect(() => set.add({ kind: 'x' } as never)).toThrow(/^Test\.add: expected a circuit breaker/);
  });
});

/** An adaptive limiter by its shape: metrics, and `callFinished` listeners an exporter adds. */
class FakeAdaptiveLimiter implements ObservedAdaptiveLimiter {
  readonly kind = 'adaptiveLimiter' as const;
  readonly listeners = new Set<(e: ObservedAdaptiveCall) => void>();
  constructor(readonly name: string) {}
  get metrics() {
    return { limit: 20, inFlight: 7, waiting: 2, rejected: 5 };
  }
  on(_: 'callFinished', listener: (e: ObservedAdaptiveCall) => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  finish(rtt: number, ignored: boolean) {
    for (const l of this.listeners) l({ rtt, ignored });
  }
}

describe('adaptive limiters and throttles', () => {
  it('reads their series, and feeds a limiter’s round trips (not the ignored calls) to its recorder, bound once', () => {
    const rtts: string[] = [];
    const set = new ObservedComponents<CallRecorder, RttRecorder>('Test', undefined, (l) => ({ record: (ms) => rtts.push(`${l.name} ${ms}`) }));
    const limiter = new FakeAdaptiveLimiter('pg');
    const throttle: ObservedThrottle = { kind: 'throttle', name: 'api', metrics: { requests: 10, accepts: 4, rejectRatio: 2 / 11 } };
    const removeLimiter = set.add(limiter);
    const again = set.add(limiter);
    set.add(throttle);
    expect(limiter.listeners.size).toBe(1);
    limiter.finish(12.5, false);
    limiter.finish(3, true);
    expect(rtts).toEqual(['pg 12.5']);
    expect(['adaptive_limit', 'adaptive_in_flight', 'adaptive_waiting', 'adaptive_rejected_calls_total'].map((n) => samples(set, n))).toEqual([
      ['pg 20'],
      ['pg 7'],
      ['pg 2'],
      ['pg 5'],
    ]);
    expect(['throttle_reject_ratio', 'throttle_requests', 'throttle_accepts'].map((n) => samples(set, n))).toEqual([[`api ${2 / 11}`], ['api 10'], ['api 4']]);
    expect(set.read().adaptiveLimiters[0]!.binding?.rtts).toBeDefined();
    removeLimiter();
    expect(limiter.listeners.size).toBe(1);
    again();
    expect(limiter.listeners.size).toBe(0);
    expect(samples(set, 'adaptive_limit')).toEqual([]);
  });

  it('without a round-trip recorder, adds no listener to a limiter; binds a registry’s limiters as they come and go', () => {
    const bare = new ObservedComponents('Test');
    const limiter = new FakeAdaptiveLimiter('pg');
    bare.add(limiter);
    expect(limiter.listeners.size).toBe(0);
    expect(bare.read().adaptiveLimiters.map((e) => [e.c.name, e.binding?.rtts])).toEqual([['pg', undefined]]);
    const set = new ObservedComponents<CallRecorder, RttRecorder>('Test', undefined, () => ({ record: () => {} }));
    const registry = new Registry('FakeRegistry', (n: string) => new FakeAdaptiveLimiter(n));
    const a = registry.get('a');
    const stop = set.add(registry);
    const b = registry.get('b');
    expect([a.listeners.size, b.listeners.size]).toEqual([1, 1]);
    registry.remove('a');
    expect(a.listeners.size).toBe(0);
    expect(samples(set, 'adaptive_limit')).toEqual(['b 20']);
    stop();
    expect(b.listeners.size).toBe(0);
  });
});

describe('an adaptive limiter with a per-call hook', () => {
  it('is bound through observeCalls (no event listener), the ignored calls left out, and let go', () => {
    const observers = new Set<(kind: ObservedAdaptiveCallKind, ms: number) => void>();
    const limiter = new FakeAdaptiveLimiter('pg');
    const hooked: ObservedAdaptiveLimiter = Object.assign(limiter, {
      observeCalls(observer: (kind: ObservedAdaptiveCallKind, ms: number) => void) {
        observers.add(observer);
        return () => observers.delete(observer);
      },
    });
    const rtts: number[] = [];
    const set = new ObservedComponents<CallRecorder, RttRecorder>('Test', undefined, () => ({ record: (ms) => rtts.push(ms) }));
    const remove = set.add(hooked);
    expect([observers.size, limiter.listeners.size]).toEqual([1, 0]);
    for (const o of observers) {
      o('successful', 4);
      o('dropped', 50);
      o('ignored', 7);
    }
    expect(rtts).toEqual([4, 50]);
    remove();
    expect(observers.size).toBe(0);
  });
});
