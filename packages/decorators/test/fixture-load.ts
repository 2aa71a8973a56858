// Loads a fixture of test/tc39/ or test/legacy/ as a user's build would run it: compiled by
// TypeScript's own transpiler (ES2022, CommonJS) — test/tc39/ with standard (TC39) decorators,
// experimentalDecorators off; test/legacy/ with legacy decorators (experimentalDecorators and
// emitDecoratorMetadata on, as NestJS's tsconfig has them) — then evaluated with its imports taken
// from `modules`; a relative import (`./nest.js`) is the sibling fixture. Vitest's own transform
// does not lower standard decorators, so the fixtures are compiled here instead.
import { readFileSync } from 'node:fs';
import ts from 'typescript';

/** Which fixture project: standard decorators, or legacy ones. */
export type FixtureKind = 'tc39' | 'legacy';

/**
 * The exports of `test/<kind>/<name>.ts`, its imports resolved from `modules` or its siblings (any
 * other import throws). `reflect` stands for the global `Reflect` the compiled code sees (as
 * `reflect-metadata` extends it in a NestJS app), so a test can record `emitDecoratorMetadata`'s output.
 */
export function loadFixture(
  kind: FixtureKind,
  name: string,
  modules: Readonly<Record<string, unknown>>,
  loaded = new Map<string, Record<string, unknown>>(),
  reflect: object = Reflect,
): Record<string, unknown> {
  const known = loaded.get(name);
  if (known !== undefined) return known;
  const file = new URL(`./${kind}/${name}.ts`, import.meta.url);
  const legacy = kind === 'legacy';
  const { outputText, diagnostics } = ts.transpileModule(readFileSync(file, 'utf8'), {
    fileName: file.pathname,
    reportDiagnostics: true,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      experimentalDecorators: legacy,
      emitDecoratorMetadata: legacy,
      verbatimModuleSyntax: false,
    },
  });
  if (diagnostics !== undefined && diagnostics.length > 0) {
    throw new Error(`${name}.ts: ${diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; ')}`);
  }
  const exports: Record<string, unknown> = {};
  loaded.set(name, exports);
  const require = (id: string): unknown => {
    const sibling = /^\.\/([\w-]+)\.js$/.exec(id)?.[1];
    if (sibling !== undefined) return loadFixture(kind, sibling, modules, loaded, reflect);
    if (!(id in modules)) throw new Error(`${name}.ts imports ${id}, which the test did not give`);
    return modules[id];
  };
  new Function('exports', 'require', 'Reflect', outputText)(exports, require, reflect);
  return exports;
}
