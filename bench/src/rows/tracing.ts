import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { decorate } from '@breakwater/decorators';
import { traceResilience } from '@breakwater/opentelemetry';
import { Retry } from '@breakwater/retry';
import { trace } from '@opentelemetry/api';
import { bw, floor, type Row } from '../harness.js';
import { work } from '../work.js';

/** The case names row 17 judges. */
export const TRACING_CASES = {
  plain: 'Breakwater decorate() Retry → CircuitBreaker, not traced',
  noTracer: 'traceResilience(pipeline) with no tracer',
  tracer: 'traceResilience(pipeline, { tracer }) (the API’s tracer, no SDK: no span is active)',
} as const;

/**
 * Row 17: one call at a time through Retry → CircuitBreaker on the success path, as is, through
 * `traceResilience` with no tracer (the target: nothing is built per call, so within 1.1× of the
 * pipeline as is), and with a tracer (shown: its listeners are on the components, and a call
 * that makes no decision publishes nothing; with no active span it starts one per call).
 */
export function tracingRows(): Row[] {
  const build = () =>
    decorate('bench')
      .withRetry(new Retry('bench', { maxAttempts: 3, waitDuration: 0 }))
      .withCircuitBreaker(new CircuitBreaker('bench', { slidingWindowSize: 100, minimumNumberOfCalls: 100 }));
  const plain = build();
  const noTracer = traceResilience(build());
  const traced = traceResilience(build(), { tracer: trace.getTracer('bench') });
  return [
    {
      id: '17',
      title: 'Tracing: a traced pipeline, success path (no decision to record)',
      floor: floor('await fn()', () => work()),
      cases: [
        bw(TRACING_CASES.plain, () => plain.execute(work), { informational: true }),
        bw(TRACING_CASES.noTracer, () => noTracer.execute(work)),
        bw(TRACING_CASES.tracer, () => traced.execute(work), { informational: true }),
      ],
    },
  ];
}
