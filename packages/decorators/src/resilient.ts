import type { Policy } from '@breakwater/core';
import { describeValue } from '@breakwater/core/internal';
import { Pipeline, decorate } from './pipeline.js';
import { runWithContext } from './resilient-context.js';
import { checkLegacy, isLegacyCall } from './resilient-legacy.js';

/**
 * What `@resilient` runs a method through: a {@link Pipeline} (whose fallbacks may return `F`)
 * or any single `Policy` (a `Retry`, a `CircuitBreaker`, a user's own), taken as a pipeline of
 * that one layer.
 *
 * @typeParam F - the values the pipeline's fallbacks may return instead of the method's.
 * @example
 * ```ts
 * const pay: ResilientPolicy = decorate().withRetry(retry).withCircuitBreaker(breaker);
 * const justTheBreaker: ResilientPolicy = breaker;
 * ```
 */
export type ResilientPolicy<F = never> = Pipeline<F> | Policy;

/**
 * The methods `@resilient` decorates: any method that returns a promise (an `async` method, or
 * one declared to return a `PromiseLike`). A method that returns a plain value is a type error:
 * decorated, it would return a promise its type does not say.
 *
 * @example
 * ```ts
 * const charge: ResilientMethod<PaymentGateway> = async function (this: PaymentGateway, req: PaymentRequest) { return this.client.charge(req); };
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: TypeScript's ClassMethodDecoratorContext takes a method whose arguments are `any` (never[] and unknown[] are refused)
export type ResilientMethod<This = unknown> = (this: This, ...args: any) => PromiseLike<unknown>;

/**
 * Empty (`unknown`) when every value the pipeline's fallbacks may return (`F`) is a value the
 * method may resolve to; otherwise an object type with a property naming the mismatch, which
 * the method lacks, so the decoration is a type error that says why.
 *
 * @example
 * ```ts
 * type Fits = FallbackFits<() => Promise<string | null>, null>; // unknown
 * type Fails = FallbackFits<() => Promise<string>, null>;       // { '@resilient: …': null }
 * ```
 */
export type FallbackFits<M, F> = M extends (...args: never[]) => PromiseLike<infer R>
  ? [F] extends [Awaited<R>]
    ? unknown
    : { readonly '@resilient: the pipeline has a fallback whose value the method does not return': Exclude<F, Awaited<R>> }
  : unknown;

/**
 * The method decorator `resilient(…)` returns, in both of TypeScript's forms: the standard (TC39)
 * one (`experimentalDecorators` off) and the legacy one (`experimentalDecorators` on, as NestJS,
 * TypeORM and class-validator need it). It takes a method of a class whose instances are `This`
 * (for the form resolving a pipeline per instance; the class itself for a static method),
 * returning a promise whose value covers the pipeline's fallbacks, and gives its replacement, of
 * the same type — the standard form returns it, the legacy one returns a descriptor holding it.
 * A getter, a setter, a field, an accessor or a class is a type error in both forms.
 *
 * @example
 * ```ts
 * const decorator: ResilientDecorator<never, unknown> = resilient(pay);
 * ```
 */
export interface ResilientDecorator<F, This> {
  /** The standard (TC39) form: `method` and its context; returns the replacement. */
  <T extends This, M extends ResilientMethod<T>>(method: M & FallbackFits<M, F>, context: ClassMethodDecoratorContext<T, M>): M;
  /**
   * The legacy (`experimentalDecorators`) form: the prototype (or the class, for a static
   * method), the method's name — refused, naming the mismatch, when a fallback's value is not one
   * the method returns — and its descriptor; returns a descriptor of the replacement.
   */
  <T extends This, M extends ResilientMethod<T>>(
    target: T,
    propertyKey: (string | symbol) & FallbackFits<M, F>,
    descriptor: TypedPropertyDescriptor<M>,
  ): TypedPropertyDescriptor<M>;
}

/** A method's replacement, calling it on `self` through a pipeline; built once per instance. */
type Bound = (...args: unknown[]) => Promise<unknown>;

/**
 * A method decorator that runs a class method through a pipeline — in both of TypeScript's forms:
 * standard (TC39, TypeScript ≥ 5, `experimentalDecorators` off) and legacy (`experimentalDecorators`
 * on, with or without `emitDecoratorMetadata`, as NestJS, TypeORM and class-validator need).
 * `this` and the arguments are kept (a fallback handler gets them as `(error, ...args)`, a retry
 * calls the method again with them), and the method's type. The method must return a promise (an `async` method); decorated, it always returns a
 * native promise, never throws synchronously. Inside the method, {@link currentCallContext}
 * gives the call's `signal` and `attempt`, read before the first `await`.
 *
 * Two forms (contract: docs/decorators.md):
 * - `@resilient(pipeline)`: one pipeline (or one `Policy`) shared by every instance, so one
 *   breaker for all of them.
 * - `@resilient((self: Service) => self.pipeline)`: the pipeline of each instance, built in its
 *   constructor. The function runs on the method's first call on an instance, and its pipeline
 *   is kept for that instance (in a `WeakMap`: no property added, nothing kept alive); a
 *   function that throws or returns no pipeline rejects that call and runs again on the next.
 *   TypeScript cannot infer `self` from the class: annotate it.
 *
 * A static method works the same way (`self` is the class); so does a private `#method` (standard
 * form only: TypeScript allows no legacy decorator there). Compiled the legacy way, it returns a
 * descriptor whose `value` is the same replacement.
 *
 * @param source a `Pipeline`, a `Policy`, or a function from the instance to one
 * @throws TypeError at once when `source` is none of them; when the class is defined, when it decorates anything but a method (a getter, a setter, a field, an accessor, a parameter, a class), naming it
 * @example
 * ```ts
 * const pay = decorate('pay').withRetry(retry).withCircuitBreaker(breaker).withTimeLimiter(timeLimiter);
 *
 * @Injectable() // a NestJS service: compiled with NestJS's tsconfig (experimentalDecorators on)
 * class PaymentGateway {
 *   @resilient(pay)
 *   async charge(req: PaymentRequest): Promise<Receipt> {
 *     const { signal } = currentCallContext();
 *     return this.client.charge(req, { signal });
 *   }
 * }
 * ```
 */
export function resilient<F = never, This = unknown>(source: ResilientPolicy<F> | ((self: This) => ResilientPolicy<F>)): ResilientDecorator<F, This> {
  const shared = sharedPipeline(source);
  const replace = (method: unknown, label: string): Bound => {
    const resolve = shared === undefined ? (self: unknown) => resolvePipeline(source as (self: unknown) => unknown, self, label) : () => shared;
    const bind = (self: unknown): Bound =>
      resolve(self).wrap((ctx, ...args: unknown[]) => runWithContext(ctx, method as (...a: never[]) => unknown, self, args));
    const bound = new WeakMap<object, Bound>();
    const replacement = function (this: unknown, ...args: unknown[]): Promise<unknown> {
      let run = typeof this === 'object' || typeof this === 'function' ? (this === null ? undefined : bound.get(this)) : undefined;
      if (run === undefined) {
        try {
          run = bind(this);
        } catch (error) {
          return Promise.reject(error);
        }
        if ((typeof this === 'object' && this !== null) || typeof this === 'function') bound.set(this, run);
      }
      return run(...args);
    };
    Object.defineProperty(replacement, 'name', { value: (method as { name: string }).name, configurable: true });
    return replacement;
  };
  // Standard: (method, context). Legacy (experimentalDecorators): (target, key, descriptor), a descriptor of the same replacement.
  const decorator = (...args: unknown[]): Bound | PropertyDescriptor => {
    const [method, context] = args;
    if (isLegacyCall(args)) {
      const { descriptor, label } = checkLegacy(args);
      return { ...descriptor, value: replace(descriptor.value, label) };
    }
    return replace(method, checkDecorated(method, context));
  };
  return decorator as unknown as ResilientDecorator<F, This>;
}

/** The pipeline of the first form; `undefined` for a function (the second form). */
function sharedPipeline(source: unknown): Pipeline<unknown> | undefined {
  if (source instanceof Pipeline) return source;
  if (typeof (source as Partial<Policy> | null)?.execute === 'function') return decorate().with(source as Policy);
  if (typeof source === 'function') return undefined;
  throw new TypeError(`resilient: needs a Pipeline, a Policy, or a function (self) => pipeline; got ${describeValue(source)}`);
}

/** What the second form's function gives for `self`, as a pipeline; throws a TypeError naming the method otherwise. */
function resolvePipeline(resolver: (self: unknown) => unknown, self: unknown, label: string): Pipeline<unknown> {
  const value = resolver(self);
  if (value instanceof Pipeline) return value;
  if (typeof (value as Partial<Policy> | null)?.execute === 'function') return decorate().with(value as Policy);
  throw new TypeError(`${label}: the function given to resilient() must return a Pipeline or a Policy for ${describeValue(self)}, got ${describeValue(value)}`);
}

/** Throws unless the decorator was applied, the standard way, to a method; returns its label for messages. */
function checkDecorated(method: unknown, context: unknown): string {
  const ctx = context as Partial<ClassMethodDecoratorContext> | null;
  if (typeof ctx !== 'object' || ctx === null || typeof ctx.kind !== 'string') {
    throw new TypeError(
      `@resilient: called with neither a decorator context nor a property key (got ${describeValue(context)}): apply it to a class method with @`,
    );
  }
  const name = typeof ctx.name === 'symbol' ? ctx.name.toString() : String(ctx.name);
  if (ctx.kind !== 'method') {
    const what = ctx.kind === 'accessor' ? 'an accessor' : `a ${ctx.kind}`;
    throw new TypeError(`@resilient decorates a class method; '${name}' is ${what} (decorate a method returning a promise)`);
  }
  if (typeof method !== 'function') throw new TypeError(`@resilient: method '${name}' is not a function, got ${describeValue(method)}`);
  return `@resilient ${ctx.static === true ? 'static ' : ''}method '${name}'`;
}
