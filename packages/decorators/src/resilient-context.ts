import type { CallContext } from '@breakwater/core';

// The context of the `@resilient` method whose body is running synchronously now (contract:
// docs/decorators.md). Set around each invocation of the method (each attempt of a retry is one),
// restored right after it returns: a method reads it before its first `await`, so no
// AsyncLocalStorage (and none of its cost to every promise of the process) is needed.
let running: CallContext | undefined;

/**
 * The {@link CallContext} of the `@resilient` method running now — the `signal` its pipeline's
 * layers abort (a time limiter's time-out, a hedge's losing attempt)
 * and the `attempt` a retry set. Read it in the method's body **before its first `await`**
 * (keep it in a variable for later): it is set while the method's synchronous part runs, once
 * per attempt, and nowhere else.
 *
 * @throws Error when no `@resilient` method is running synchronously (outside one, or after its first `await`)
 * @example
 * ```ts
 * class PaymentGateway {
 *   @resilient(pay)
 *   async charge(req: PaymentRequest): Promise<Receipt> {
 *     const { signal, attempt } = currentCallContext(); // before the first await
 *     const res = await fetch(url, { method: 'POST', body: JSON.stringify(req), signal, headers: { 'x-attempt': String(attempt) } });
 *     return res.json();
 *   }
 * }
 * ```
 */
export function currentCallContext(): CallContext {
  if (running === undefined) {
    throw new Error(
      'currentCallContext(): no @resilient method is running here — call it in the body of a method decorated with @resilient, before its first await (keep the context in a variable for later)',
    );
  }
  return running;
}

/** Runs `method` on `self` with `args`, `ctx` the running context meanwhile (nested calls restore the outer one). @internal */
export function runWithContext(ctx: CallContext, method: (...args: never[]) => unknown, self: unknown, args: readonly unknown[]): unknown {
  const outer = running;
  running = ctx;
  try {
    return Reflect.apply(method, self, args);
  } finally {
    running = outer;
  }
}
