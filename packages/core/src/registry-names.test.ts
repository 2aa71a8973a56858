import { afterEach, describe, expect, it, vi } from 'vitest';
import { closestName } from './closest-name.js';
import { Registry, type RegistryOptions } from './registry.js';
import { VirtualClock } from './virtual-clock.js';

// The registry's configured instances (`instances`) and what `get` of a name they do not
// configure does (`onUnknownName`): the documents' OpenFeign naming trap (issue 18, item 25).

interface WidgetConfig {
  readonly size?: number;
}
class Widget {
  constructor(
    readonly name: string,
    readonly config: WidgetConfig,
  ) {}
}
const widgets = (options: RegistryOptions<WidgetConfig> = {}) =>
  new Registry<Widget, WidgetConfig>(
    'WidgetRegistry',
    (name, config) => new Widget(name, config),
    options,
    (config, name) => {
      if (config.size !== undefined && config.size < 0) throw new RangeError(`Widget '${name}': size must be >= 0, got ${config.size}`);
    },
  );
const OPENFEIGN = 'PgPaymentClient#requestPayment(String,PaymentRequest)';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Registry: instances', () => {
  it('creates a configured name from its instance settings, laid over the default config, again after a remove', () => {
    const registry = widgets({ defaultConfig: { size: 1 }, instances: { big: { size: 9 }, plain: {} } });
    expect(registry.get('big').config).toEqual({ size: 9 });
    expect(registry.get('plain').config).toEqual({ size: 1 });
    registry.remove('big');
    expect(registry.get('big').config).toEqual({ size: 9 });
    expect(registry.get('big', { size: 3 })).toBe(registry.find('big'));
    registry.remove('big');
    expect(registry.get('big', { size: 3 }).config).toEqual({ size: 3 });
  });

  it('checks every instance config at construction, naming it', () => {
    expect(() => widgets({ instances: { bad: { size: -1 } } })).toThrow("WidgetRegistry: instance 'bad': Widget 'bad': size must be >= 0, got -1");
    expect(() => widgets({ instances: { bad: 3 as never } })).toThrow('WidgetRegistry: instances must be an object of config objects');
    expect(() => widgets({ onUnknownName: 'loud' as never })).toThrow("WidgetRegistry: onUnknownName must be one of 'ignore', 'warn', 'throw', got 'loud'");
  });
});

describe('Registry: a name no instance configures (onUnknownName)', () => {
  it('warns once per name and emits unconfiguredName naming the closest configured instance (default: warn)', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const clock = new VirtualClock();
    const registry = widgets({ clock, instances: { 'pg-simulator': { size: 5 }, inventory: {} } });
    const events: unknown[] = [];
    registry.on('unconfiguredName', (e) => events.push(e));
    const feign = registry.get(OPENFEIGN);
    expect(feign.config).toEqual({});
    expect(registry.get(OPENFEIGN)).toBe(feign);
    registry.remove(OPENFEIGN);
    registry.get(OPENFEIGN);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'unconfiguredName', name: 'WidgetRegistry', at: 0, instanceName: OPENFEIGN, closest: 'pg-simulator' });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(
      `WidgetRegistry: no instance is configured for '${OPENFEIGN}'; it gets the default config (did you mean 'pg-simulator'?)`,
      {
        type: 'BreakwaterConfigWarning',
      },
    );
    registry.get('ledger');
    expect(warn).toHaveBeenLastCalledWith(
      "WidgetRegistry: no instance is configured for 'ledger'; it gets the default config (configured: pg-simulator, inventory)",
      {
        type: 'BreakwaterConfigWarning',
      },
    );
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it('says nothing for configured names, for a config given to get, or when no instance is configured', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const registry = widgets({ instances: { pg: {} }, configs: { slow: { size: 2 } } });
    registry.get('pg');
    registry.get('a', { size: 1 });
    registry.get('b', 'slow');
    expect(registry.find('c')).toBeUndefined();
    widgets({ configs: { slow: {} } }).get('anything');
    expect(warn).not.toHaveBeenCalled();
  });

  it('with throw, refuses the name (creating nothing) each time, and emits the event once', () => {
    const registry = widgets({ instances: { 'pg-simulator': {} }, onUnknownName: 'throw' });
    const events: unknown[] = [];
    registry.on('unconfiguredName', (e) => events.push(e));
    const message = `WidgetRegistry: no instance is configured for '${OPENFEIGN}' (did you mean 'pg-simulator'?); configure it in instances, pass its config to get(name, config), or set onUnknownName`;
    expect(() => registry.get(OPENFEIGN)).toThrow(new RangeError(message));
    expect(() => registry.get(OPENFEIGN)).toThrow(message);
    expect(registry.size).toBe(0);
    expect(events).toHaveLength(1);
    expect(registry.get(OPENFEIGN, {}).name).toBe(OPENFEIGN);
  });

  it('with ignore, emits the event only', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const registry = widgets({ instances: { pg: {} }, onUnknownName: 'ignore' });
    const events: unknown[] = [];
    registry.on('unconfiguredName', (e) => events.push(e));
    registry.get('pq');
    expect(events).toMatchObject([{ instanceName: 'pq', closest: 'pg' }]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('remembers at most 1000 names, and its last warning says so', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const registry = widgets({ instances: { pg: {} }, maxSize: 10 });
    for (let i = 0; i < 1500; i++) registry.get(`tenant-${i}`);
    expect(warn).toHaveBeenCalledTimes(1000);
    expect(String(warn.mock.calls[999]![0])).toMatch(/\(the last such warning: 1000 names were reported\)$/);
  });
});

describe('closestName', () => {
  it('finds a slip, else the name sharing the most words, else the only name', () => {
    expect(closestName(OPENFEIGN, ['inventory', 'pg-simulator'])).toBe('pg-simulator');
    expect(closestName('pg-simulatr', ['pg-simulator', 'db'])).toBe('pg-simulator');
    expect(closestName('PaymentGateway#charge()', ['pg', 'payment-gateway', 'payment'])).toBe('payment-gateway');
    expect(closestName('ledger', ['inventory', 'db'])).toBeUndefined();
    expect(closestName('ledger', ['inventory'])).toBe('inventory');
  });
});
