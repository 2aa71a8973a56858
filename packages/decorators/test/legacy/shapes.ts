// Methods of every shape @resilient meets as a legacy decorator, and the uses it refuses: run by
// src/resilient-legacy.test.ts and type-checked (each refused use a type error) by
// src/resilient-tsc.test.ts under experimentalDecorators (contract: docs/decorators.md).
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

/** A class whose pipeline is resolved from a field that may hold anything. */
export class Resolving {
  constructor(public pipeline: unknown) {}

  @resilient((self: Resolving) => self.pipeline as Pipeline)
  async run(): Promise<string> {
    return 'ran';
  }
}

/**
 * Each refused use, as a class defined when the function is called: each throws a TypeError then.
 * (Legacy decorators are not allowed in a class expression: each is a class declaration.)
 */
export function misuses(policy: Policy): Record<string, () => unknown> {
  return {
    getter: () => {
      class Getter {
        // @ts-expect-error a getter is not a method
        @resilient(policy)
        get total(): Promise<number> {
          return Promise.resolve(1);
        }
      }
      return Getter;
    },
    setter: () => {
      class Setter {
        // @ts-expect-error a setter is not a method
        @resilient(policy)
        set total(_value: Promise<number>) {}
      }
      return Setter;
    },
    both: () => {
      class Both {
        // @ts-expect-error a getter (with its setter) is not a method
        @resilient(policy)
        get total(): Promise<number> {
          return Promise.resolve(1);
        }
        set total(_value: Promise<number>) {}
      }
      return Both;
    },
    field: () => {
      class Field {
        // @ts-expect-error a field is not a method, even one holding a function
        @resilient(policy)
        run = async (): Promise<number> => 1;
      }
      return Field;
    },
    class: () => {
      // @ts-expect-error a class is not a method
      @resilient(policy)
      class Decorated {}
      return Decorated;
    },
  };
}
