import { CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import { metrics } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenTelemetryMetrics } from './index.js';
import { expectNoLeakedTimers, lines, newClock } from '../test/test-support.js';

afterEach(expectNoLeakedTimers);

class HandReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

describe('README', () => {
  it('the setup, through the global MeterProvider of @opentelemetry/api', async () => {
    const reader = new HandReader();
    const provider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(provider);
    try {
      const breakerRegistry = new CircuitBreakerRegistry({ defaultConfig: { clock: newClock() } });
      // The README's setup:
      const otel = new OpenTelemetryMetrics({ meter: metrics.getMeter('payments') });
      const remove = otel.add(breakerRegistry);
      breakerRegistry.get('pg').transitionToOpenState();
      const { resourceMetrics } = await reader.collect();
      expect(
        lines(
          resourceMetrics.scopeMetrics.flatMap((s) => s.metrics),
          ['breakwater.circuitbreaker.state'],
        ),
      ).toContain('breakwater.circuitbreaker.state{name="pg",state="open"} 1');
      remove();
      otel.close();
    } finally {
      metrics.disable();
      await provider.shutdown();
    }
  });
});
