import { createRequire } from 'node:module';
import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { PrometheusMetrics } from '@breakwater/prometheus';
import Opossum from 'opossum';
import { Registry } from 'prom-client';
import { bw, floor, peer, type Row } from '../harness.js';
import { work } from '../work.js';
import { OPOSSUM_OPTIONS } from './breaker.js';

// opossum-prometheus 0.3.0 (the latest) is CommonJS with its own prom-client 12: its registry must
// come from that prom-client, not ours (15).
const require = createRequire(import.meta.url);
const OpossumPrometheus = require('opossum-prometheus') as new (options: {
  registry: unknown;
  circuits?: unknown[];
  exposePerformanceMetrics?: boolean;
}) => {
  add(circuits: unknown[]): void;
};
const promClient12 = createRequire(require.resolve('opossum-prometheus'))('prom-client') as { Registry: new () => unknown };

/** Row 1c's case names (the target reads them). */
export const EXPORTER_CASES = {
  unobserved: 'Breakwater COUNT_BASED(100), unobserved',
  observed: 'Breakwater COUNT_BASED(100) + PrometheusMetrics',
  opossum: 'opossum (timeout: false)',
  opossumPrometheus: 'opossum + opossum-prometheus',
  opossumPrometheusCounters: 'opossum + opossum-prometheus (exposePerformanceMetrics: false)',
} as const;

/**
 * Row 1c: row 1a's success path with a Prometheus exporter attached, against the same breaker
 * unobserved; opossum with and without opossum-prometheus for the peer's cost of the same — its
 * default (a counter per event and a Summary of latencies) and counters only.
 */
export function exporterRows(): Row[] {
  const config = { slidingWindowType: 'COUNT_BASED', slidingWindowSize: 100, minimumNumberOfCalls: 100 } as const;
  const unobserved = new CircuitBreaker('bench', config);
  const observed = new CircuitBreaker('bench', config);
  new PrometheusMetrics({ registry: new Registry() }).add(observed);
  const opOptions = OPOSSUM_OPTIONS;
  const op = new Opossum(work, opOptions);
  const opObserved = new Opossum(work, { ...opOptions, name: 'bench' });
  new OpossumPrometheus({ registry: new promClient12.Registry(), circuits: [opObserved] });
  const opCounters = new Opossum(work, { ...opOptions, name: 'bench' });
  new OpossumPrometheus({ registry: new promClient12.Registry(), circuits: [opCounters], exposePerformanceMetrics: false });
  return [
    {
      id: '1c',
      title: 'Circuit breaker, success path, COUNT_BASED(100), with a Prometheus exporter attached',
      prepare: async () => {
        if (opObserved.listenerCount('success') < 2) throw new Error('row 1c: opossum-prometheus did not attach to opossum');
      },
      floor: floor('await fn()', () => work()),
      cases: [
        bw(EXPORTER_CASES.unobserved, () => unobserved.execute(work), { informational: true }),
        bw(EXPORTER_CASES.observed, () => observed.execute(work)),
        peer(EXPORTER_CASES.opossum, () => op.fire()),
        peer(EXPORTER_CASES.opossumPrometheus, () => opObserved.fire()),
        peer(EXPORTER_CASES.opossumPrometheusCounters, () => opCounters.fire()),
      ],
    },
  ];
}
