// Methods of every shape @resilient meets, and the uses it refuses: run by src/resilient.test.ts
// and type-checked (each refused use a type error) by src/resilient-tsc.test.ts (contract: docs/decorators.md).
import { currentCallContext, resilient, type Pipeline, type Policy } from '@breakwater/decorators';

/** A class whose methods run through `quotes` (its fallback may give `null`) and `policy`. */
export function shapes(quotes: Pipeline<null>, policy: Policy) {
  class Quotes {
    static counted = 0;

    constructor(readonly prefix: string) {}

    @resilient(quotes)
    async quote(symbol: string, fail: boolean): Promise<string | null> {
      if (fail) throw new Error(`no quote for ${symbol}`);
      return `${this.prefix}${symbol}`;
    }

    @resilient(policy)
    static async count(): Promise<number> {
      return ++this.counted;
    }

    // @ts-expect-error a method returning a plain value: decorated, it would return a promise its type does not say
    @resilient(policy)
    sync(x: number): number {
      if (x < 0) throw new RangeError(`negative: ${x}`);
      return x;
    }

    @resilient(policy)
    async late(): Promise<number> {
      await Promise.resolve();
      return currentCallContext().attempt; // after the first await: throws
    }

    @resilient(policy)
    async outer(): Promise<number[]> {
      const before = currentCallContext().attempt;
      const inner = this.inner(); // a nested @resilient call has its own context, then gives the outer one back
      const after = currentCallContext().attempt;
      return [before, await inner, after];
    }

    @resilient(policy)
    async inner(): Promise<number> {
      return currentCallContext().attempt + 100;
    }
  }
  return Quotes;
}

/** A private method, its pipeline the instance's. */
export class Doubler {
  constructor(readonly policy: Policy) {}

  @resilient((self: Doubler) => self.policy)
  async #double(x: number): Promise<number> {
    return x * 2;
  }

  double(x: number): Promise<number> {
    return this.#double(x);
  }
}

/** A class whose pipeline is resolved from a field that may hold anything. */
export class Resolving {
  constructor(public pipeline: unknown) {}

  @resilient((self: Resolving) => self.pipeline as Pipeline)
  async run(): Promise<string> {
    return 'ran';
  }
}

/** Each refused use, as a class defined when the function is called: each throws a TypeError then. */
export function misuses(policy: Policy): Record<string, () => unknown> {
  return {
    getter: () =>
      class {
        // @ts-expect-error a getter is not a method
        @resilient(policy)
        get total(): Promise<number> {
          return Promise.resolve(1);
        }
      },
    setter: () =>
      class {
        // @ts-expect-error a setter is not a method
        @resilient(policy)
        set total(_value: Promise<number>) {}
      },
    field: () =>
      class {
        // @ts-expect-error a field is not a method, even one holding a function
        @resilient(policy)
        run = async (): Promise<number> => 1;
      },
    accessor: () =>
      class {
        // @ts-expect-error an auto-accessor is not a method
        @resilient(policy)
        accessor total = Promise.resolve(1);
      },
    class: () => {
      // @ts-expect-error a class is not a method
      @resilient(policy)
      class Decorated {}
      return Decorated;
    },
  };
}
