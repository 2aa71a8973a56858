// uPlot, inlined into the report: its IIFE build (defines the global `uPlot`) and its CSS, read
// from the installed package at render time, so the page needs no network.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** uPlot's code and stylesheet as the report inlines them. */
export interface UplotAssets {
  /** `uPlot.iife.min.js`, its URL banner replaced by its name, version and licence text. */
  readonly js: string;
  /** `uPlot.min.css`. */
  readonly css: string;
  readonly version: string;
}

let cached: UplotAssets | undefined;

/**
 * Reads uPlot's minified IIFE build and CSS from the installed `uplot` package (once per process).
 * Works from the TypeScript sources (tsx, vitest) and from both built entry points: the ESM build
 * resolves from `import.meta.url`, the CommonJS build (where tsup leaves `import.meta` empty) with
 * its own `require`. uplot has no `exports` map, so `uplot/dist/…` paths resolve as files.
 *
 * @example
 * ```ts
 * const { js, css, version } = uplotAssets(); // version: '1.6.32'
 * ```
 */
export function uplotAssets(): UplotAssets {
  if (cached !== undefined) return cached;
  const req = moduleRequire();
  const read = (path: string): string => readFileSync(req.resolve(path), 'utf8');
  const pkg = JSON.parse(read('uplot/package.json')) as { version: string };
  // The build opens with `/*! https://github.com/leeoniya/uPlot (v1.6.32) */`: the report carries
  // no URL at all, so that banner becomes the name, the version and the licence (MIT asks for its
  // notice in every copy; the page is one).
  const licence = read('uplot/LICENSE').replaceAll('*/', '* /').trim();
  const banner = `/*! uPlot v${pkg.version}\n${licence}\n*/`;
  const js = read('uplot/dist/uPlot.iife.min.js').replace(/^\/\*![\s\S]*?\*\/\s*/, '');
  cached = { js: `${banner}\n${js}`, css: read('uplot/dist/uPlot.min.css'), version: pkg.version };
  return cached;
}

function moduleRequire(): NodeJS.Require {
  const url = (import.meta as { url?: unknown }).url;
  if (typeof url === 'string') return createRequire(url);
  // The CommonJS build: `import.meta` is an empty object there, and `require` is the module's own.
  return require;
}
