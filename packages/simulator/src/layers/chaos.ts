import type { FaultInjection, LatencyInjection, OutcomeInjection } from '@breakwater/chaos';
import type { Frame } from '../frame.js';
import { CODE } from '../outcome-codes.js';
import type { LayerDriver, LayerHost } from './driver.js';

/** The chaos strategies a scenario can run: a behaviour is code, which a scenario file cannot hold. */
export type SimulatedChaos = FaultInjection | LatencyInjection | OutcomeInjection;

/**
 * A chaos layer, as its resolved config says (contract: docs/chaos.md), deciding as the real one
 * decides: when `enabled`, one draw of its `random` (the run's seeded random: a run is reproduced
 * by its seed) below `rate` injects the call. A fault ends the call with a SimulatedFaultError
 * without calling below; an outcome ends it with a success; a latency wakes the frame that much
 * later and then calls below (a time limiter above cancels the wait). A call not injected goes on
 * at once. A disabled layer draws nothing.
 */
export class ChaosDriver implements LayerDriver {
  readonly #host: LayerHost;
  readonly #strategy: SimulatedChaos['strategy'];
  readonly #enabled: boolean;
  readonly #rate: number;
  readonly #random: () => number;
  /** The latency injected, ms (a latency strategy; <= 0: never injected, as the real one). */
  readonly #latencyMs: number;

  constructor(chaos: SimulatedChaos, host: LayerHost) {
    const { enabled, rate, random } = chaos.config;
    if (typeof enabled !== 'boolean' || typeof rate !== 'number')
      throw new TypeError(`${chaos.constructor.name} '${chaos.name}': a simulated chaos layer takes a constant rate and enabled, not functions`);
    this.#host = host;
    this.#strategy = chaos.strategy;
    this.#enabled = enabled;
    this.#rate = rate;
    this.#random = random;
    const latency = chaos.strategy === 'latency' ? chaos.config.latency : 0;
    if (typeof latency !== 'number') throw new TypeError(`LatencyInjection '${chaos.name}': a simulated latency is a constant duration, not a function`);
    this.#latencyMs = latency;
  }

  enter(frame: Frame): void {
    const host = this.#host;
    const tally = host.tally(frame);
    tally.chaosCalls++;
    if (!this.#enabled || !(this.#random() < this.#rate)) return host.spawn(frame);
    switch (this.#strategy) {
      case 'fault':
        tally.injectedFaults++;
        return host.complete(frame, CODE.fault);
      case 'outcome':
        tally.injectedOutcomes++;
        return host.complete(frame, CODE.ok);
      default:
        if (!(this.#latencyMs > 0)) return host.spawn(frame);
        tally.injectedLatencies++;
        return host.wakeAt(frame, host.now() + this.#latencyMs);
    }
  }

  childEnded(frame: Frame, code: number): void {
    this.#host.complete(frame, code);
  }

  /** The injected latency is over: the call goes on below. */
  wake(frame: Frame): void {
    this.#host.spawn(frame);
  }

  /** Cancelled during its latency: the engine has taken its wake-up out; nothing else to hand back. */
  cancel(): void {}
}
