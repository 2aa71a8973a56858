export { instrumentName, OpenTelemetryMetrics, type OpenTelemetryMetricsOptions } from './opentelemetry-metrics.js';
