export { instrumentName, OpenTelemetryMetrics, type OpenTelemetryMetricsOptions } from './opentelemetry-metrics.js';
export { traceResilience, type TraceablePipeline, type TracedPipeline, type TraceResilienceOptions } from './trace-resilience.js';
