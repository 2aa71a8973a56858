import type { CallContext, PolicyFn } from '@breakwater/core';
import { BehaviorInjection, FaultInjection, LatencyInjection, OutcomeInjection, type Chaos, type ChaosOptions } from '../src/index.js';

export const FAULT = new Error('injected fault');
export const FAKE = 'fake';

/**
 * One of each strategy with the same common options, and how a call through it ended: 'injected'
 * or 'real'. The latency is 0-free (1 ms on the given clock: the caller advances it) and the
 * behaviour marks `behaved`.
 */
export function makeChaos(strategy: Chaos['strategy'], common: ChaosOptions): { chaos: Chaos; behaved: number[] } {
  const behaved: number[] = [];
  switch (strategy) {
    case 'fault':
      return { chaos: new FaultInjection('c', { ...common, fault: FAULT }), behaved };
    case 'latency':
      return { chaos: new LatencyInjection('c', { ...common, latency: 1 }), behaved };
    case 'outcome':
      return { chaos: new OutcomeInjection('c', { ...common, outcome: FAKE }), behaved };
    case 'behavior':
      return { chaos: new BehaviorInjection('c', { ...common, behavior: (ctx: CallContext) => void behaved.push(ctx.attempt) }), behaved };
  }
}

/** `fn` for a chaos layer: counts its calls, returns 'real'. */
export function realFn(): PolicyFn<string> & { calls: number } {
  const fn = Object.assign(
    () => {
      fn.calls++;
      return 'real';
    },
    { calls: 0 },
  );
  return fn;
}
