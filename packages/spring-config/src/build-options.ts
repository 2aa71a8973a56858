// From the read settings of a config or instance to the options of its component: names of error
// classes, predicates and functions looked up in fromConfig's options, waits folded, the clock added.
import type { ErrorClass } from '@breakwater/core';
import type { Setting } from './blocks.js';
import { failAt } from './paths.js';
import type { PropertyRule, Section } from './sections.js';
import type { FromConfigNote, FromConfigOptions } from './types.js';
import { foldWaits } from './wait-folding.js';

/**
 * Builds options for one fromConfig call. It reports each skipped class name once per call, and
 * gathers the names it cannot map (classes, predicates, functions) so that {@link throwUnmapped}
 * reports them all at once; `notes` gathers what the call has to say about the file.
 */
export class OptionBuilder {
  /** Class names already reported as skipped (lenient class binding), each reported once. */
  readonly #skippedClassNames = new Set<string>();
  /** Names not mapped, by `path\0name` (a config's name is met again in each instance built on it). */
  readonly #unmapped = new Map<string, { readonly at: string; readonly name: string; readonly what: string; readonly option: string }>();
  /** What the call has to say about the file (see `BreakwaterRegistries.notes`). */
  readonly notes: FromConfigNote[] = [];

  constructor(readonly options: FromConfigOptions) {}

  /** The options of a config or instance from its settings (its base's already laid under it). */
  build(at: string, section: Section, settings: ReadonlyMap<PropertyRule, Setting>): Record<string, unknown> {
    const options: Record<string, unknown> = {};
    const backoffs = new Map<string, Setting>();
    let lenient = false;
    for (const [rule, s] of settings) {
      if (rule.type === 'backoff') backoffs.set(rule.spring, s);
      if (rule.type === 'lenientClasses') lenient = s.value === true;
    }
    for (const [rule, s] of settings) {
      if (rule.type !== 'option') continue;
      options[rule.option] =
        rule.kind === 'classes'
          ? this.#errorClasses(s.at, s.value as string[], lenient)
          : rule.kind === 'predicate' || rule.kind === 'function'
            ? this.#namedCode(s.at, rule.kind, s.value as string)
            : s.value;
    }
    const folded = section.wait === undefined ? options : foldWaits(at, section.wait, options, backoffs, settings);
    return this.options.clock === undefined ? folded : { ...folded, clock: this.options.clock };
  }

  /** Error classes by name; with lenient binding an unknown name is skipped and reported once. */
  #errorClasses(at: string, names: readonly string[], lenient: boolean): ErrorClass[] {
    const found: ErrorClass[] = [];
    for (const name of names) {
      const cls = this.options.classes?.[name];
      if (cls !== undefined) found.push(cls);
      else if (!lenient) this.#unmapped.set(`${at}\0${name}`, { at, name, what: 'error class', option: 'classes' });
      else if (!this.#skippedClassNames.has(name)) {
        this.#skippedClassNames.add(name);
        process.emitWarning(`fromConfig: ${at}: no error class named '${name}'; skipped (ignore-class-binding-exceptions is true)`, {
          type: 'BreakwaterConfigWarning',
        });
      }
    }
    return found;
  }

  /** A predicate or function by the name the config gives it (`undefined`, noted as unmapped, when there is none). */
  #namedCode<T>(at: string, what: 'predicate' | 'function', name: string): T | undefined {
    const table = what === 'predicate' ? this.options.predicates : this.options.functions;
    const found = table?.[name];
    if (found === undefined) this.#unmapped.set(`${at}\0${name}`, { at, name, what, option: what === 'predicate' ? 'predicates' : 'functions' });
    return found as T | undefined;
  }

  /** Throws one error for every name met that the options do not map, each with its path; nothing when all were mapped. */
  throwUnmapped(): void {
    const all = [...this.#unmapped.values()];
    if (all.length === 0) return;
    if (all.length === 1) {
      const { at, name, what, option } = all[0]!;
      failAt(at, `no ${what} named '${name}': pass it in fromConfig(config, { ${option}: { '${name}': ${what === 'error class' ? 'MyError' : '…'} } })`);
    }
    const lines = all.map(({ at, name, what }) => `  ${at}: no ${what} named '${name}'`);
    throw new TypeError(
      [`fromConfig: ${all.length} names are not mapped; pass them in the options of fromConfig(config, { classes, predicates, functions }):`, ...lines].join(
        '\n',
      ),
    );
  }
}
