// The path of a key as written in the config (`resilience4j.retry.instances.pg.max-attempts`), and
// the errors that name it: every error of fromConfig starts with the path it is about.
import { describeValue, isPlainObject } from '@breakwater/core/internal';

/** A path with one more key: `a.b`, or `a[b.c]` for a key holding a dot (Spring's bracket notation). */
export function childPath(path: string, key: string): string {
  if (key.includes('.')) return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/** Throws `fromConfig: <path>: <message>` as a TypeError (a value of the wrong kind) or a RangeError (out of range). */
export function failAt(path: string, message: string, errorType: 'type' | 'range' = 'type'): never {
  const text = `fromConfig: ${path === '' ? '(root)' : path}: ${message}`;
  throw errorType === 'type' ? new TypeError(text) : new RangeError(text);
}

/** Rethrows a component's own error (a bad option) at the path of the config or instance it came from. */
export function rethrowAt(path: string, error: unknown): never {
  return failAt(path, (error as Error).message, error instanceof RangeError ? 'range' : 'type');
}

/** What was found where something else was expected, for messages: core's description, or `a Map` for a class instance. */
export function describeFound(x: unknown): string {
  if (typeof x === 'object' && x !== null && !Array.isArray(x) && !isPlainObject(x)) {
    const name = (x as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string' && name !== '') return `a ${name}`;
  }
  return describeValue(x);
}
