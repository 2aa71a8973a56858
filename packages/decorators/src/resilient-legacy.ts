import { describeValue } from '@breakwater/core/internal';

// `@resilient` compiled as a legacy decorator (experimentalDecorators on, as NestJS, TypeORM and
// class-validator need it): TypeScript calls it as (target, key, descriptor) — target the
// prototype, or the class for a static member (contract: docs/decorators.md).

/** A legacy method descriptor whose `value` is the method, and the label of messages. @internal */
export interface LegacyMethod {
  readonly descriptor: PropertyDescriptor & { readonly value: (...args: never[]) => unknown };
  readonly label: string;
}

/**
 * True when the decorator was called the legacy way: a standard (TC39) decorator always gets a
 * context object as its second argument; a legacy one gets a property key (a method, a field, an
 * accessor), `undefined` (a constructor's parameter) or nothing (a class). @internal
 */
export function isLegacyCall(args: readonly unknown[]): boolean {
  const context = args[1];
  return args.length === 1 || typeof context === 'string' || typeof context === 'symbol' || (context === undefined && typeof args[2] === 'number');
}

/** Throws a TypeError naming the member unless `(target, key, descriptor)` is a method's; returns its descriptor and label. @internal */
export function checkLegacy(args: readonly unknown[]): LegacyMethod {
  const [target, key, descriptor] = args;
  if (args.length === 1 || typeof key === 'undefined') {
    const name = typeof target === 'function' ? target.name : describeValue(target);
    const what = args.length === 1 ? 'a class' : 'a constructor parameter';
    throw new TypeError(`@resilient decorates a class method; '${name}' is ${what} (decorate a method returning a promise)`);
  }
  const name = typeof key === 'symbol' ? key.toString() : String(key);
  const refuse = (what: string): never => {
    throw new TypeError(`@resilient decorates a class method; '${name}' is ${what} (decorate a method returning a promise)`);
  };
  if (typeof descriptor === 'number') return refuse(`a method whose parameter ${descriptor} it decorates`);
  if (typeof descriptor !== 'object' || descriptor === null) return refuse('a field');
  const { get, set, value } = descriptor as PropertyDescriptor;
  if (get !== undefined && set !== undefined) return refuse('a getter and a setter');
  if (get !== undefined) return refuse('a getter');
  if (set !== undefined) return refuse('a setter');
  if (typeof value !== 'function') throw new TypeError(`@resilient: method '${name}' is not a function, got ${describeValue(value)}`);
  const isStatic = typeof target === 'function';
  return { descriptor: descriptor as LegacyMethod['descriptor'], label: `@resilient ${isStatic ? 'static ' : ''}method '${name}'` };
}
