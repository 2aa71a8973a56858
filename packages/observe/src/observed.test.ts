import { describe, expect, it } from 'vitest';
import { Registry } from '@breakwater/core';
import {
  OBSERVED_SERIES,
  ObservedComponents,
  isObservedComponent,
  isObservedRegistry,
  type CallRecorder,
  type ObservedCallKind,
  type ObservedCircuitBreaker,
  type ObservedSample,
  type ObservedTransition,
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
