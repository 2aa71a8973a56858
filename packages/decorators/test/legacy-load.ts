// Loads a fixture of test/legacy/ as a NestJS project's build would run it: compiled by
// TypeScript's own transpiler with legacy decorators (experimentalDecorators and
// emitDecoratorMetadata on, as NestJS's tsconfig has them; ES2022), then evaluated with its
// imports taken from `modules` — a relative import (`./nest.js`) is the sibling fixture.
import { readFileSync } from 'node:fs';
import ts from 'typescript';

/**
 * The exports of `test/legacy/<name>.ts`, its imports resolved from `modules` or its siblings (any
 * other import throws). `reflect` stands for the global `Reflect` the compiled code sees (as
 * `reflect-metadata` extends it in a NestJS app), so a test can record `emitDecoratorMetadata`'s output.
 */
export function loadLegacyFixture(
  name: string,
  modules: Readonly<Record<string, unknown>>,
  loaded = new Map<string, Record<string, unknown>>(),
  reflect: object = Reflect,
): Record<string, unknown> {
  const known = loaded.get(name);
  if (known !== undefined) return known;
  const file = new URL(`./legacy/${name}.ts`, import.meta.url);
  const { outputText, diagnostics } = ts.transpileModule(readFileSync(file, 'utf8'), {
    fileName: file.pathname,
    reportDiagnostics: true,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
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
    if (sibling !== undefined) return loadLegacyFixture(sibling, modules, loaded, reflect);
    if (!(id in modules)) throw new Error(`${name}.ts imports ${id}, which the test did not give`);
    return modules[id];
  };
  new Function('exports', 'require', 'Reflect', outputText)(exports, require, reflect);
  return exports;
}
