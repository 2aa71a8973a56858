// Loads a fixture of test/tc39/ as a user's build would run it: compiled by TypeScript's own
// transpiler with standard (TC39) decorators (experimentalDecorators off, ES2022: the decorators
// lowered by tsc), then evaluated with its imports taken from `modules`. Vitest's own transform
// does not lower standard decorators, so the fixtures are compiled here instead.
import { readFileSync } from 'node:fs';
import ts from 'typescript';

/** The exports of `test/tc39/<name>.ts`, its imports resolved from `modules` (an import not there throws). */
export function loadFixture(name: string, modules: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const file = new URL(`./tc39/${name}.ts`, import.meta.url);
  const { outputText, diagnostics } = ts.transpileModule(readFileSync(file, 'utf8'), {
    fileName: file.pathname,
    reportDiagnostics: true,
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, experimentalDecorators: false, verbatimModuleSyntax: false },
  });
  if (diagnostics !== undefined && diagnostics.length > 0) {
    throw new Error(`${name}.ts: ${diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; ')}`);
  }
  const exports: Record<string, unknown> = {};
  const require = (id: string): unknown => {
    if (!(id in modules)) throw new Error(`${name}.ts imports ${id}, which the test did not give`);
    return modules[id];
  };
  new Function('exports', 'require', outputText)(exports, require);
  return exports;
}
