import { Counter, Gauge, Histogram, type Registry, type RegistryContentType } from 'prom-client';

/** One sample of a series: its labels and value (`metricName` for a histogram's `_bucket`, `_sum`, `_count`). */
export interface Sample {
  readonly labels: Record<string, string | number>;
  readonly value: number;
  readonly metricName?: string;
}

/** Reads a series' samples when Prometheus scrapes. */
export type Read = () => Sample[];

interface Definition {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
}

// prom-client's metric classes, with their values read from the components at scrape time
// (`get`) instead of kept in prom-client's label-hashed map: nothing is updated per call, and a
// scrape walks the components once per series without hashing a label set.

class PulledGauge extends Gauge<string> {
  readonly #read: Read;
  constructor(def: Definition, registry: Registry<RegistryContentType>, read: Read) {
    super({ name: def.name, help: def.help, labelNames: def.labelNames, registers: [registry] });
    this.#read = read;
  }
  override async get(): Promise<Awaited<ReturnType<Gauge<string>['get']>>> {
    const values = this.#read(); // before any await: every series of a scrape reads one snapshot
    const base = await super.get();
    return { ...base, values };
  }
}

class PulledCounter extends Counter<string> {
  readonly #read: Read;
  constructor(def: Definition, registry: Registry<RegistryContentType>, read: Read) {
    super({ name: def.name, help: def.help, labelNames: def.labelNames, registers: [registry] });
    this.#read = read;
  }
  override async get(): Promise<Awaited<ReturnType<Counter<string>['get']>>> {
    const values = this.#read(); // before any await: every series of a scrape reads one snapshot
    const base = await super.get();
    return { ...base, values };
  }
}

class PulledHistogram extends Histogram<string> {
  readonly #read: Read;
  readonly #def: Definition;
  constructor(def: Definition, registry: Registry<RegistryContentType>, buckets: readonly number[], read: Read) {
    super({ name: def.name, help: def.help, labelNames: def.labelNames, buckets: [...buckets], registers: [registry] });
    this.#read = read;
    this.#def = def;
  }
  // prom-client formats a histogram through getForPromString when it has one.
  async getForPromString(): Promise<Awaited<ReturnType<Histogram<string>['get']>>> {
    return { name: this.#def.name, help: this.#def.help, type: 'histogram', aggregator: 'sum', values: this.#read() } as unknown as Awaited<
      ReturnType<Histogram<string>['get']>
    >;
  }
  override async get(): Promise<Awaited<ReturnType<Histogram<string>['get']>>> {
    return this.getForPromString();
  }
}

/** A gauge registered on `registry` whose samples `read` returns at each scrape. */
export function pulledGauge(def: Definition, registry: Registry<RegistryContentType>, read: Read): Gauge<string> {
  return new PulledGauge(def, registry, read);
}

/** A counter registered on `registry` whose samples `read` returns at each scrape. */
export function pulledCounter(def: Definition, registry: Registry<RegistryContentType>, read: Read): Counter<string> {
  return new PulledCounter(def, registry, read);
}

/** A histogram registered on `registry` whose `_bucket`/`_sum`/`_count` samples `read` returns at each scrape. */
export function pulledHistogram(def: Definition, registry: Registry<RegistryContentType>, buckets: readonly number[], read: Read): Histogram<string> {
  return new PulledHistogram(def, registry, buckets, read);
}
