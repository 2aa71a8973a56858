/**
 * `breakwater/testing`: scripted backends, fast-check arbitraries and `replay`, from
 * `@breakwater/testing` (fast-check is a peer dependency).
 *
 * @example
 * ```ts
 * import { scriptedBackend, VirtualClock } from 'breakwater/testing';
 * ```
 * @packageDocumentation
 */
export * from '@breakwater/testing';
