// Type tests of @resilient as a legacy decorator (experimentalDecorators and emitDecoratorMetadata
// on, as in a NestJS project), checked by tsc only (src/resilient-tsc.test.ts): the types kept,
// and each wrong use a type error (contract: docs/decorators.md).
import { type CallContext, currentCallContext, decorate, Fallback, type Pipeline, type Policy, resilient } from '@breakwater/decorators';
import { CircuitBreaker } from '@breakwater/circuit-breaker';
import { Retry } from '@breakwater/retry';
import { expectTypeOf } from 'vitest';
import { Injectable } from './nest.js';

declare const pipeline: Pipeline;
declare const policy: Policy;
declare const orNull: Pipeline<null>;
declare const orString: Pipeline<string>;

interface Order {
  readonly id: string;
}

@Injectable()
export class Orders {
  readonly pipeline: Pipeline = decorate();

  @resilient(pipeline)
  async find(id: string, options?: { readonly deep?: boolean }): Promise<Order> {
    expectTypeOf(currentCallContext()).toEqualTypeOf<CallContext>();
    return { id: options?.deep === true ? `${id}!` : id };
  }

  @resilient(new CircuitBreaker('orders'))
  async byBreaker(): Promise<string> {
    return 'a single Policy: a pipeline of one layer';
  }

  @resilient(decorate().withRetry(new Retry('orders')).withCircuitBreaker(new CircuitBreaker('orders')))
  async byPipeline(): Promise<string> {
    return 'real policies';
  }

  @resilient(policy)
  findAll(...ids: string[]): Promise<Order[]> {
    return Promise.resolve(ids.map((id) => ({ id })));
  }

  @resilient((self: Orders) => self.pipeline)
  async perInstance(n: number): Promise<number> {
    return n;
  }

  // @ts-expect-error the function's `self` is another class
  @resilient((self: { other: Pipeline }) => self.other)
  async wrongSelf(): Promise<void> {}

  // @ts-expect-error `self` cannot be inferred from the class: unannotated, it is unknown
  @resilient((self) => self.pipeline)
  async unannotated(): Promise<void> {}

  @resilient(orNull)
  async orNull(): Promise<Order | null> {
    return null;
  }

  // @ts-expect-error the pipeline's fallback may give null, which the method's type does not allow
  @resilient(orNull)
  async notNull(): Promise<Order> {
    return { id: '1' };
  }

  // @ts-expect-error a string fallback on a method of numbers
  @resilient(decorate().with(new Fallback('f', () => 'cached')))
  async numbers(): Promise<number> {
    return 1;
  }

  @resilient(orString)
  async strings(): Promise<string> {
    return 'fresh';
  }

  // @ts-expect-error a method returning a plain value: decorated, it would return a promise
  @resilient(pipeline)
  syncValue(): number {
    return 1;
  }

  // @ts-expect-error a method returning nothing (void): decorated, it would return a promise
  @resilient(pipeline)
  fireAndForget(): void {}

  @resilient(pipeline)
  static async make(): Promise<Orders> {
    return new Orders();
  }
}

// The decorated methods keep their types.
const orders = new Orders();
expectTypeOf(orders.find).toEqualTypeOf<(id: string, options?: { readonly deep?: boolean }) => Promise<Order>>();
expectTypeOf(orders.findAll).toEqualTypeOf<(...ids: string[]) => Promise<Order[]>>();
expectTypeOf(orders.perInstance).returns.toEqualTypeOf<Promise<number>>();
expectTypeOf(Orders.make).toEqualTypeOf<() => Promise<Orders>>();
expectTypeOf(orders.byBreaker).toEqualTypeOf<() => Promise<string>>();

export class Registry {
  static readonly pipeline: Pipeline = decorate();
  readonly entries = new Map<string, string>();

  @resilient((self: typeof Registry) => self.pipeline)
  static async lookup(key: string): Promise<string> {
    return key;
  }

  // @ts-expect-error a static method's `self` is the class, not an instance
  @resilient((self: Registry) => decorate(String(self.entries.size)))
  static async wrongStatic(): Promise<void> {}
}
expectTypeOf(Registry.lookup).toEqualTypeOf<(key: string) => Promise<string>>();
// @ts-expect-error the decorated method still takes a string
void orders.find(1);
