/**
 * `breakwater/testing`: scripted backends, fast-check arbitraries and `replay`, from
 * `@breakwater/testing` (fast-check is a peer dependency).
 *
 * @example
 * ```ts
 * import { scriptedBackend, VirtualClock } from 'breakwater/testing';
 * ```
 *
 * Built on its own (the second tsup of the `build` script): bundled in one run with `src/index.ts`,
 * the declaration bundler gave `dist/index.d.ts` an `import '@breakwater/testing'` of its own, which a
 * strict consumer without the optional peer fails on (TS2882); `src/strict-consumer.test.ts` checks it.
 * @packageDocumentation
 */
export * from '@breakwater/testing';
