import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Clock } from './clock.js';
import { Registry, type RegistryOptions } from './registry.js';
import { VirtualClock } from './virtual-clock.js';

/** Where a VirtualClock's wall time (an event's `time`) starts: events carry `time` = WALL + `at`. */
const WALL = VirtualClock.DEFAULT_WALL_START;

interface WidgetConfig {
  readonly size?: number;
  readonly color?: string;
  readonly shape?: string;
  readonly clock?: Clock;
}

class Widget {
  constructor(
    readonly name: string,
    readonly config: WidgetConfig,
  ) {
    if (config.size !== undefined && config.size < 0) throw new RangeError(`Widget '${name}': size must be >= 0, got ${config.size}`);
  }
}

/** A registry the way each package writes its own. */
class WidgetRegistry extends Registry<Widget, WidgetConfig> {
  readonly created: string[] = [];
  constructor(options: RegistryOptions<WidgetConfig> = {}) {
    super(
      'WidgetRegistry',
      (name, config) => {
        this.created.push(name);
        return new Widget(name, config);
      },
      options,
    );
  }
}

let clock: VirtualClock;
let log: string[];

/** Records every registry event as `type name:detail@at`. */
function record(registry: WidgetRegistry): void {
  registry.on('*', (e) => {
    const detail =
      e.type === 'removed'
        ? `${e.instance.name}:${e.reason}`
        : e.type === 'replaced'
          ? `${e.old.name}`
          : e.type === 'unconfiguredName'
            ? e.instanceName
            : e.instance.name;
    log.push(`${e.type} ${detail}@${e.at}`);
  });
}

beforeEach(() => {
  clock = new VirtualClock();
  log = [];
});

afterEach(() => {
  expect(clock.pendingTimers).toBe(0);
});

describe('Registry: get-or-create', () => {
  it('creates an instance on first get and returns the same one after, whatever config is passed', () => {
    const registry = new WidgetRegistry({ clock });
    record(registry);
    const a = registry.get('pg', { size: 1 });
    expect(a).toBeInstanceOf(Widget);
    expect(a.name).toBe('pg');
    expect(registry.get('pg')).toBe(a);
    expect(registry.get('pg', { size: 99 })).toBe(a);
    expect(registry.get('pg', 'default')).toBe(a);
    expect(registry.get('pg', 'unknown-but-never-read')).toBe(a);
    expect(a.config.size).toBe(1);
    expect(registry.created).toEqual(['pg']);
    expect(log).toEqual(['added pg@0']);
  });

  it('creates from the default config, an object laid over it, or a named config laid over it', () => {
    const registry = new WidgetRegistry({
      defaultConfig: { size: 7, color: 'red' },
      configs: { blue: { color: 'blue' } },
    });
    expect(registry.get('a').config).toEqual({ size: 7, color: 'red' });
    expect(registry.get('b', { shape: 'round', size: 1 }).config).toEqual({ size: 1, color: 'red', shape: 'round' });
    expect(registry.get('c', 'blue').config).toEqual({ size: 7, color: 'blue' });
    expect(registry.get('d', 'default').config).toEqual({ size: 7, color: 'red' });
  });

  it('refuses an unknown config name with a RangeError listing the known ones, and creates nothing', () => {
    const registry = new WidgetRegistry({ configs: { slow: { size: 1 } }, clock });
    record(registry);
    expect(() => registry.get('x', 'fast')).toThrow(new RangeError("WidgetRegistry: get('x', 'fast'): no config named 'fast' (known: default, slow)"));
    expect(registry.find('x')).toBeUndefined();
    expect(log).toEqual([]);
  });

  it('when creating throws (a bad config), the registry is unchanged and nothing is emitted', () => {
    const registry = new WidgetRegistry({ clock });
    record(registry);
    expect(() => registry.get('tenant-42', { size: -1 })).toThrow(new RangeError("Widget 'tenant-42': size must be >= 0, got -1"));
    expect(registry.all()).toEqual([]);
    expect(registry.size).toBe(0);
    expect(log).toEqual([]);
    expect(registry.get('tenant-42').name).toBe('tenant-42');
  });
});

describe('Registry: configs', () => {
  it('lays configs.default over defaultConfig, and every named config over the result, whatever the key order', () => {
    const registry = new WidgetRegistry({
      defaultConfig: { size: 1, color: 'red' },
      configs: { blue: { color: 'blue' }, default: { size: 2 }, round: { shape: 'round' } },
    });
    expect(registry.defaultConfig).toEqual({ size: 2, color: 'red' });
    expect(registry.configuration('blue')).toEqual({ size: 2, color: 'blue' });
    expect(registry.configuration('round')).toEqual({ size: 2, color: 'red', shape: 'round' });
    expect(registry.get('a').config).toEqual({ size: 2, color: 'red' });
    expect(registry.get('b', { shape: 'square' }).config).toEqual({ size: 2, color: 'red', shape: 'square' });
  });

  it('without defaultConfig the default config is empty', () => {
    const registry = new WidgetRegistry();
    expect(registry.defaultConfig).toEqual({});
    expect(registry.configuration('default')).toEqual({});
    expect(registry.configuration('nope')).toBeUndefined();
  });

  it('addConfiguration lays a config over the default and get can use it; a second add replaces it', () => {
    const registry = new WidgetRegistry({ defaultConfig: { size: 3 } });
    registry.addConfiguration('night', { size: 200, color: 'black' });
    expect(registry.configuration('night')).toEqual({ size: 200, color: 'black' });
    registry.addConfiguration('night', { color: 'grey' });
    expect(registry.configuration('night')).toEqual({ size: 3, color: 'grey' });
    expect(registry.get('pg', 'night').config).toEqual({ size: 3, color: 'grey' });
  });

  it("'default' cannot be added nor removed", () => {
    const registry = new WidgetRegistry({ defaultConfig: { size: 3 } });
    expect(() => registry.addConfiguration('default', { size: 4 })).toThrow(
      new TypeError("WidgetRegistry: the 'default' config is set by defaultConfig and cannot be added"),
    );
    expect(() => registry.removeConfiguration('default')).toThrow(new TypeError("WidgetRegistry: the 'default' config cannot be removed"));
    expect(registry.defaultConfig).toEqual({ size: 3 });
  });

  it('removeConfiguration says whether it removed one; a removed name is then unknown to get', () => {
    const registry = new WidgetRegistry({ configs: { slow: { size: 1 } } });
    expect(registry.removeConfiguration('slow')).toBe(true);
    expect(registry.removeConfiguration('slow')).toBe(false);
    expect(() => registry.get('x', 'slow')).toThrow(RangeError);
  });

  it('removing a config leaves the instances built from it as they are', () => {
    const registry = new WidgetRegistry({ configs: { slow: { size: 1 } } });
    const a = registry.get('a', 'slow');
    registry.removeConfiguration('slow');
    expect(registry.get('a')).toBe(a);
  });
});

describe('Registry: find, remove, replace, all, size', () => {
  it('find returns the instance or undefined, and never creates', () => {
    const registry = new WidgetRegistry();
    expect(registry.find('pg')).toBeUndefined();
    expect(registry.created).toEqual([]);
    const a = registry.get('pg');
    expect(registry.find('pg')).toBe(a);
  });

  it('remove returns the instance and emits removed (reason removed); the next get creates anew', () => {
    const registry = new WidgetRegistry({ clock });
    record(registry);
    const a = registry.get('pg');
    expect(registry.remove('pg')).toBe(a);
    expect(registry.remove('pg')).toBeUndefined();
    expect(registry.find('pg')).toBeUndefined();
    const b = registry.get('pg');
    expect(b).not.toBe(a);
    expect(log).toEqual(['added pg@0', 'removed pg:removed@0', 'added pg@0']);
  });

  it('replace swaps in the new instance when the name exists, returns the old one and emits replaced', () => {
    const registry = new WidgetRegistry({ clock });
    const events: unknown[] = [];
    registry.on('replaced', (e) => events.push(e));
    const old = registry.get('pg', { size: 20 });
    const fresh = new Widget('pg', { size: 200 });
    expect(registry.replace('pg', fresh)).toBe(old);
    expect(registry.find('pg')).toBe(fresh);
    expect(registry.get('pg')).toBe(fresh);
    expect(events).toEqual([{ type: 'replaced', name: 'WidgetRegistry', at: 0, time: WALL + 0, old, instance: fresh }]);
  });

  it('replace does nothing and returns undefined when the name does not exist', () => {
    const registry = new WidgetRegistry({ clock });
    record(registry);
    expect(registry.replace('pg', new Widget('pg', {}))).toBeUndefined();
    expect(registry.find('pg')).toBeUndefined();
    expect(log).toEqual([]);
  });

  it('replace refuses an instance of another name with a TypeError, and changes nothing', () => {
    const registry = new WidgetRegistry();
    const a = registry.get('pg');
    expect(() => registry.replace('pg', new Widget('db', {}))).toThrow(
      new TypeError("WidgetRegistry: replace('pg', …) needs an instance named 'pg', got 'db'"),
    );
    expect(() => registry.replace('nope', new Widget('db', {}))).toThrow(TypeError);
    expect(registry.find('pg')).toBe(a);
  });

  it('all() lists every instance, least recently used first, without counting as a use', () => {
    const registry = new WidgetRegistry();
    const [a, b, c] = [registry.get('a'), registry.get('b'), registry.get('c')];
    expect(registry.all()).toEqual([a, b, c]);
    registry.find('a');
    expect(registry.all()).toEqual([b, c, a]);
    registry.get('b');
    expect(registry.all()).toEqual([c, a, b]);
    expect(registry.all()).toEqual([c, a, b]);
    expect(registry.size).toBe(3);
  });

  it('all() returns a fresh array', () => {
    const registry = new WidgetRegistry();
    registry.get('a');
    const list = registry.all();
    list.pop();
    expect(registry.all()).toHaveLength(1);
  });
});

describe('Registry: tags and events', () => {
  it('keeps a frozen copy of its tags', () => {
    const tags = { env: 'prod', region: 'eu' };
    const registry = new WidgetRegistry({ tags });
    tags.env = 'dev';
    expect(registry.tags).toEqual({ env: 'prod', region: 'eu' });
    expect(Object.isFrozen(registry.tags)).toBe(true);
    expect(new WidgetRegistry().tags).toEqual({});
  });

  it('events are { type, name: the registry kind, at and time: its clock, ...fields }', async () => {
    const registry = new WidgetRegistry({ clock });
    const events: unknown[] = [];
    registry.on('added', (e) => events.push(e));
    registry.on('removed', (e) => events.push(e));
    await clock.advance(10);
    const a = registry.get('a');
    await clock.advance(5);
    registry.remove('a');
    expect(events).toEqual([
      { type: 'added', name: 'WidgetRegistry', at: 10, time: WALL + 10, instance: a },
      { type: 'removed', name: 'WidgetRegistry', at: 15, time: WALL + 15, instance: a, reason: 'removed' },
    ]);
  });

  it('on() returns an unsubscribe', () => {
    const registry = new WidgetRegistry();
    const seen: string[] = [];
    const off = registry.on('added', (e) => seen.push(e.instance.name));
    registry.get('a');
    off();
    registry.get('b');
    expect(seen).toEqual(['a']);
  });

  it('takes the clock of defaultConfig when no clock option is given', async () => {
    const registry = new WidgetRegistry({ defaultConfig: { clock }, expireAfterAccess: 100 });
    const seen: number[] = [];
    registry.on('added', (e) => seen.push(e.at));
    await clock.advance(42);
    registry.get('a');
    expect(seen).toEqual([42]);
    await clock.advance(100);
    expect(registry.find('a')).toBeUndefined();
  });

  it('the clock option wins over defaultConfig.clock', async () => {
    const other = new VirtualClock(1000);
    const registry = new WidgetRegistry({ defaultConfig: { clock: other }, clock });
    const seen: number[] = [];
    registry.on('added', (e) => seen.push(e.at));
    registry.get('a');
    expect(seen).toEqual([0]);
  });
});

describe('Registry: maxSize', () => {
  it('evicts the least recently used beyond maxSize, after the added event, with reason evicted', () => {
    const registry = new WidgetRegistry({ maxSize: 2, clock });
    record(registry);
    registry.get('a');
    registry.get('b');
    registry.get('c');
    expect(registry.all().map((w) => w.name)).toEqual(['b', 'c']);
    expect(log).toEqual(['added a@0', 'added b@0', 'added c@0', 'removed a:evicted@0']);
  });

  it('find and get count as a use, all() does not', () => {
    const registry = new WidgetRegistry({ maxSize: 2, clock });
    record(registry);
    registry.get('a');
    registry.get('b');
    registry.find('a');
    registry.all();
    registry.get('c');
    expect(registry.all().map((w) => w.name)).toEqual(['a', 'c']);
    registry.get('a');
    registry.get('d');
    expect(registry.all().map((w) => w.name)).toEqual(['a', 'd']);
    expect(log.filter((l) => l.startsWith('removed'))).toEqual(['removed b:evicted@0', 'removed c:evicted@0']);
  });

  it('replace counts as a use', () => {
    const registry = new WidgetRegistry({ maxSize: 2 });
    registry.get('a');
    registry.get('b');
    registry.replace('a', new Widget('a', {}));
    registry.get('c');
    expect(registry.all().map((w) => w.name)).toEqual(['a', 'c']);
  });

  it('maxSize 1 keeps only the newest', () => {
    const registry = new WidgetRegistry({ maxSize: 1 });
    registry.get('a');
    const b = registry.get('b');
    expect(registry.all()).toEqual([b]);
  });

  it('without maxSize grows without bound', () => {
    const registry = new WidgetRegistry();
    for (let i = 0; i < 1000; i++) registry.get(`tenant-${i}`);
    expect(registry.size).toBe(1000);
  });
});

describe('Registry: expireAfterAccess', () => {
  it('an instance not used for expireAfterAccess is gone (reason expired), exactly at that time', async () => {
    const registry = new WidgetRegistry({ expireAfterAccess: 1000, clock });
    record(registry);
    const a = registry.get('a');
    await clock.advance(999);
    expect(registry.all()).toEqual([a]);
    await clock.advance(1);
    expect(registry.find('a')).toBeUndefined();
    expect(log).toEqual(['added a@0', 'removed a:expired@1000']);
  });

  it('every get or find renews it', async () => {
    const registry = new WidgetRegistry({ expireAfterAccess: '1s', clock });
    const a = registry.get('a');
    for (let i = 0; i < 5; i++) {
      await clock.advance(900);
      expect(i % 2 === 0 ? registry.find('a') : registry.get('a')).toBe(a);
    }
    await clock.advance(1000);
    expect(registry.get('a')).not.toBe(a);
  });

  it('expires lazily, on the next use of the registry: no timer is set', async () => {
    const registry = new WidgetRegistry({ expireAfterAccess: 100, clock });
    record(registry);
    registry.get('a');
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(500);
    expect(log).toEqual(['added a@0']);
    expect(registry.size).toBe(0);
    expect(log).toEqual(['added a@0', 'removed a:expired@500']);
  });

  it('expires only the stale ones, in order of last use', async () => {
    const registry = new WidgetRegistry({ expireAfterAccess: 1000, clock });
    record(registry);
    registry.get('a');
    await clock.advance(300);
    registry.get('b');
    await clock.advance(300);
    registry.get('c');
    await clock.advance(300);
    registry.find('a');
    await clock.advance(500); // now 1400: b last used 1100 ago (stale), c 800 ago, a 500 ago
    expect(registry.all().map((w) => w.name)).toEqual(['c', 'a']);
    expect(log.filter((l) => l.startsWith('removed'))).toEqual(['removed b:expired@1400']);
  });

  it('a replaced instance counts as used: the others expire around it', async () => {
    const registry = new WidgetRegistry({ expireAfterAccess: 1000, clock });
    registry.get('a');
    await clock.advance(500);
    registry.get('b');
    await clock.advance(100);
    const fresh = new Widget('a', {});
    registry.replace('a', fresh);
    await clock.advance(950); // now 1550: a used at 600, b at 500
    expect(registry.all()).toEqual([fresh]);
  });

  it('an expired instance can be neither replaced nor removed: it is already gone', async () => {
    const registry = new WidgetRegistry({ expireAfterAccess: 100, clock });
    record(registry);
    registry.get('a');
    registry.get('b');
    await clock.advance(100);
    expect(registry.replace('a', new Widget('a', {}))).toBeUndefined();
    expect(registry.remove('b')).toBeUndefined();
    expect(log).toEqual(['added a@0', 'added b@0', 'removed a:expired@100', 'removed b:expired@100']);
  });

  it('works with maxSize', async () => {
    const registry = new WidgetRegistry({ expireAfterAccess: 100, maxSize: 2, clock });
    record(registry);
    registry.get('a');
    registry.get('b');
    registry.get('c');
    await clock.advance(100);
    registry.get('d');
    expect(log).toEqual(['added a@0', 'added b@0', 'added c@0', 'removed a:evicted@0', 'removed b:expired@100', 'removed c:expired@100', 'added d@100']);
  });
});

describe('Registry: bad options', () => {
  it.each<[string, unknown, typeof TypeError | typeof RangeError, string]>([
    ['maxSize 0', { maxSize: 0 }, RangeError, 'WidgetRegistry: maxSize must be >= 1, got 0'],
    ['maxSize 1.5', { maxSize: 1.5 }, RangeError, 'WidgetRegistry: maxSize must be an integer >= 1, got 1.5'],
    ['maxSize as text', { maxSize: '5' }, TypeError, "WidgetRegistry: maxSize must be a number, got '5'"],
    ['expireAfterAccess 0', { expireAfterAccess: 0 }, RangeError, 'WidgetRegistry: expireAfterAccess must be > 0, got 0'],
    [
      'expireAfterAccess not a duration',
      { expireAfterAccess: 'soon' },
      TypeError,
      "WidgetRegistry: expireAfterAccess must be a duration (ms, or a string like '250ms', '10s', '1.5m', '2h'), got 'soon'",
    ],
    [
      'an unknown key',
      { maxsize: 5 },
      TypeError,
      "WidgetRegistry: unknown option 'maxsize' (did you mean 'maxSize'?) (known options: defaultConfig, configs, tags, maxSize, expireAfterAccess, clock, instances, onUnknownName)",
    ],
    ['a clock that is not one', { clock: {} }, TypeError, 'WidgetRegistry: clock must be a Clock (now, setTimeout, clearTimeout), got an object'],
    ['a defaultConfig that is not an object', { defaultConfig: 'fast' }, TypeError, "WidgetRegistry: defaultConfig must be a config object, got 'fast'"],
    ['configs that are not config objects', { configs: { slow: 5 } }, TypeError, 'WidgetRegistry: configs must be an object of config objects, got an object'],
    ['tags that are not strings', { tags: { env: 1 } }, TypeError, 'WidgetRegistry: tags must be an object of strings, got an object'],
    ['options that are not an object', 'big', TypeError, "WidgetRegistry: config must be a plain object of options, got 'big'"],
  ])('refuses %s', (_, options, kind, message) => {
    let thrown: unknown;
    try {
      new WidgetRegistry(options as RegistryOptions<WidgetConfig>);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(kind);
    expect((thrown as Error).constructor).toBe(kind);
    expect((thrown as Error).message).toBe(message);
  });

  it('a registry given a check refuses a bad config at construction, naming it, not at the first get', () => {
    const check = (config: WidgetConfig, name: string): void => void new Widget(name, config);
    const make = (options: RegistryOptions<WidgetConfig>) => () => new Registry('WidgetRegistry', (n, c: WidgetConfig) => new Widget(n, c), options, check);
    expect(make({ defaultConfig: { size: -1 } })).toThrow(new RangeError("WidgetRegistry: config 'default': Widget 'default': size must be >= 0, got -1"));
    expect(make({ configs: { night: { size: -2 } } })).toThrow(new RangeError("WidgetRegistry: config 'night': Widget 'night': size must be >= 0, got -2"));
    const registry = make({ defaultConfig: { size: 1 } })();
    expect(() => registry.addConfiguration('bad', { size: -3 })).toThrow(RangeError);
    expect(registry.configuration('bad')).toBeUndefined();
  });

  it('refuses a Map, a Date or an array as defaultConfig or one of configs', () => {
    expect(() => new WidgetRegistry({ defaultConfig: new Map() as WidgetConfig })).toThrow(
      new TypeError('WidgetRegistry: defaultConfig must be a config object, got a Map'),
    );
    expect(() => new WidgetRegistry({ configs: { a: new Date() as WidgetConfig } })).toThrow(TypeError);
    expect(() => new WidgetRegistry({ configs: { a: [] as WidgetConfig } })).toThrow(TypeError);
  });

  it('get and addConfiguration refuse a Map, a Date, an array or a number as a config (never the default in silence)', () => {
    const registry = new WidgetRegistry({ defaultConfig: { size: 1 } });
    for (const [bad, shown] of [
      [new Map([['size', 5]]), 'a Map'],
      [new Date(0), 'a Date'],
      [[], 'an array'],
      [5, '5'],
    ] as const) {
      expect(() => registry.get('x', bad as unknown as WidgetConfig)).toThrow(
        new TypeError(`WidgetRegistry: get('x', config) needs a plain config object or a config's name, got ${shown}`),
      );
      expect(() => registry.addConfiguration('m', bad as unknown as WidgetConfig)).toThrow(
        new TypeError(`WidgetRegistry: addConfiguration('m', config) needs a plain config object, got ${shown}`),
      );
    }
    expect(registry.find('x')).toBeUndefined();
    expect(registry.configuration('m')).toBeUndefined();
  });

  it('on() refuses an event type a registry never publishes, suggesting the closest', () => {
    const registry = new WidgetRegistry();
    expect(() => registry.on('addd' as 'added', () => {})).toThrow(
      new TypeError("WidgetRegistry: unknown event type 'addd' (did you mean 'added'?) (event types: added, removed, replaced, unconfiguredName, or '*')"),
    );
  });

  it('maxSize Infinity and no options at all are fine', () => {
    expect(() => new WidgetRegistry({ maxSize: Infinity, expireAfterAccess: Infinity })).not.toThrow();
    expect(() => new WidgetRegistry()).not.toThrow();
    expect(() => new WidgetRegistry({ maxSize: undefined })).not.toThrow();
  });

  it('is usable directly, without a subclass', () => {
    const create = vi.fn((name: string, config: WidgetConfig) => new Widget(name, config));
    const registry = new Registry('WidgetRegistry', create, { defaultConfig: { size: 1 } });
    registry.get('a');
    expect(create).toHaveBeenCalledWith('a', { size: 1 });
    expect(registry.kind).toBe('WidgetRegistry');
  });
});
