import { afterEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { fromConfig } from './from-config.js';

// The documents' trap (issue 18, item 25): OpenFeign names the breaker
// `PgPaymentClient#requestPayment(String,PaymentRequest)`, so the settings of
// `instances.pg-simulator` never apply. fromConfig's registries now say so.

const OPENFEIGN = 'PgPaymentClient#requestPayment(String,PaymentRequest)';
const yml = parse(`
resilience4j.circuitbreaker:
  configs:
    default: { sliding-window-size: 20 }
  instances:
    pg-simulator: { sliding-window-size: 5, failure-rate-threshold: 60 }
    inventory: {}
`);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('fromConfig: a breaker named otherwise than its instance (OpenFeign)', () => {
  it('warns once, naming the closest configured instance, and emits unconfiguredName', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const r = fromConfig(yml);
    expect(warn).not.toHaveBeenCalled();
    const events: unknown[] = [];
    r.circuitBreaker.on('unconfiguredName', (e) => events.push(e));
    const breaker = r.circuitBreaker.get(OPENFEIGN);
    expect(breaker.config.slidingWindowSize).toBe(20);
    expect(r.circuitBreaker.get(OPENFEIGN)).toBe(breaker);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(
      `CircuitBreakerRegistry: no instance is configured for '${OPENFEIGN}'; it gets the default config (did you mean 'pg-simulator'?)`,
      {
        type: 'BreakwaterConfigWarning',
      },
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'unconfiguredName', name: 'CircuitBreakerRegistry', instanceName: OPENFEIGN, closest: 'pg-simulator' });
    expect(r.circuitBreaker.get('pg-simulator').config.slidingWindowSize).toBe(5);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('throws instead with onUnknownName: throw, and stays silent with ignore', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const strict = fromConfig(yml, { onUnknownName: 'throw' });
    expect(() => strict.circuitBreaker.get(OPENFEIGN)).toThrow(
      new RangeError(
        `CircuitBreakerRegistry: no instance is configured for '${OPENFEIGN}' (did you mean 'pg-simulator'?); configure it in instances, pass its config to get(name, config), or set onUnknownName`,
      ),
    );
    expect(strict.circuitBreaker.find(OPENFEIGN)).toBeUndefined();
    expect(strict.circuitBreaker.get('pg-simulator').config.failureRateThreshold).toBe(60);
    fromConfig(yml, { onUnknownName: 'ignore' }).circuitBreaker.get(OPENFEIGN);
    expect(warn).not.toHaveBeenCalled();
  });

  it('keeps an instance’s settings when it is removed and got again; a section without instances says nothing', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const r = fromConfig(yml);
    r.circuitBreaker.remove('pg-simulator');
    expect(r.circuitBreaker.get('pg-simulator').config.slidingWindowSize).toBe(5);
    fromConfig({ retry: { configs: { default: { 'max-attempts': 2 } } } }).retry.get('anything');
    expect(warn).not.toHaveBeenCalled();
  });

  it('refuses a bad onUnknownName or env', () => {
    expect(() => fromConfig(yml, { onUnknownName: 'loud' as never })).toThrow(
      "fromConfig: options.onUnknownName must be one of 'ignore', 'warn', 'throw', got 'loud'",
    );
    expect(() => fromConfig(yml, { env: 'PATH' as never })).toThrow("fromConfig: options.env must be an object of strings (like process.env), got 'PATH'");
  });
});
