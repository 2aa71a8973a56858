// From the read settings of a config or instance to the options of its component: names of error
// classes, predicates and functions looked up in fromConfig's options, waits folded, the clock added.
import type { ErrorClass } from '@breakwater/core';
import type { Setting } from './blocks.js';
import { failAt } from './paths.js';
import type { PropertyRule, Section } from './sections.js';
import type { FromConfigOptions } from './types.js';
import { foldWaits } from './wait-folding.js';

/** Builds options for one fromConfig call (it reports each skipped class name once per call). */
export class OptionBuilder {
  /** Class names already reported as skipped (lenient class binding), each reported once. */
  readonly #skippedClassNames = new Set<string>();

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
      else if (!lenient) failAt(at, `no error class named '${name}': pass it in fromConfig(config, { classes: { '${name}': MyError } })`);
      else if (!this.#skippedClassNames.has(name)) {
        this.#skippedClassNames.add(name);
        process.emitWarning(`fromConfig: ${at}: no error class named '${name}'; skipped (ignore-class-binding-exceptions is true)`, { type: 'BreakwaterConfigWarning' });
      }
    }
    return found;
  }

  /** A predicate or function by the name the config gives it. */
  #namedCode<T>(at: string, what: 'predicate' | 'function', name: string): T {
    const table = what === 'predicate' ? this.options.predicates : this.options.functions;
    const option = what === 'predicate' ? 'predicates' : 'functions';
    const found = table?.[name];
    if (found === undefined) failAt(at, `no ${what} named '${name}': pass it in fromConfig(config, { ${option}: { '${name}': … } })`);
    return found as T;
  }
}
