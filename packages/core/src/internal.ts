// `@breakwater/core/internal`: what Breakwater's own packages are built with, for an author of a
// policy or a layer who wants to write them the same way. Not needed to use
// Breakwater (the main entry, `@breakwater/core`, has that); these names may change in a minor
// version. Import the `Policy` types, errors and clocks from the main entry.
export { closest, describeValue, didYouMean, isPlainObject } from './config.js';
export { closestName } from './closest-name.js';
export { withoutStack } from './errors.js';
export { NEVER_ABORTED, ROOT_CONTEXT } from './policy.js';
export { holdProcess, keepsProcessAlive, releaseProcess } from './keep-alive.js';
export { enterCall, follow, invoke, raceAbort } from './call.js';
export { isArgsAwareLayer } from './layer.js';
export { callbackThrew, describeThrown, warnOnce } from './warn.js';
export { HandBackList, type HandBackReservation } from './hand-back-list.js';
export { LinkedQueue, type Linked } from './linked-queue.js';
export { WaitQueue, type Waiter, type WaitQueueOptions } from './wait-queue.js';
