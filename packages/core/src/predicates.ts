/**
 * Any class whose instances can be thrown (`is-a` matching uses `instanceof`, so subclasses match).
 *
 * @example
 * ```ts
 * const ignore: ErrorClass[] = [ValidationError, CallNotPermittedError];
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: a constructor type must take any[] for every error class, whatever its parameters, to be assignable
export type ErrorClass = abstract new (...args: any[]) => unknown;

/**
 * A predicate on a thrown value (any value: `throw 'x'` included).
 *
 * @example
 * ```ts
 * const isServerError: ErrorPredicate = (e) => e instanceof HttpError && e.status >= 500;
 * ```
 */
export type ErrorPredicate = (error: unknown) => boolean;

/**
 * One matcher from a list of classes (is-a) and a predicate, OR-ed; when neither is given the
 * matcher answers `whenUnset`.
 *
 * @example
 * ```ts
 * const isTransient = errorMatcher([TimeoutError], (e) => (e as any)?.code === 'ECONNRESET', true);
 * isTransient(new TimeoutError('pg', 600)); // true
 * ```
 */
export function errorMatcher(classes: readonly ErrorClass[] | undefined, predicate: ErrorPredicate | undefined, whenUnset: boolean): ErrorPredicate {
  const list = classes ?? [];
  if (list.length === 0 && predicate === undefined) return whenUnset ? always : never;
  if (list.length === 0) return predicate!;
  const isA = (error: unknown): boolean => {
    for (const c of list) if (error instanceof c) return true;
    return false;
  };
  if (predicate === undefined) return isA;
  return (error) => isA(error) || predicate(error);
}

const always: ErrorPredicate = () => true;
const never: ErrorPredicate = () => false;
