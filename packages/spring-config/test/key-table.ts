// The key table as data, for the tests and the README: what fromConfig does with every option of
// every package, and with every Spring-only property.
import type { ValueKind } from '../src/option-tables.js';
import { ASPECT_ORDER_NOTE } from '../src/aspect-order.js';
import { SECTION_IGNORED } from '../src/section-settings.js';
import { OTHER_SECTIONS, SECTIONS } from '../src/sections.js';
import { kebabCase, relaxedName } from '../src/relaxed-binding.js';

/** What fromConfig does with one option of a package: gives it from a Spring property, or refuses it (why). */
type OptionEntry = { mapped: string; kind: ValueKind; values?: readonly string[] } | { refused: string };

/**
 * Every option of every package and what `fromConfig` does with it (`mapped` from a Spring
 * property, or `refused` with the reason), and every Spring-only property of each section: for
 * the tests and the README.
 */
export function fromConfigKeyTable(): {
  sections: Record<string, { options: Record<string, OptionEntry>; springOnly: Record<string, string> }>;
  sectionKeys: Record<string, string>;
  otherSections: Record<string, string>;
} {
  const out: ReturnType<typeof fromConfigKeyTable>['sections'] = {};
  for (const section of SECTIONS) {
    const options: Record<string, OptionEntry> = {};
    for (const option of section.options) {
      const rule = [...section.rules.values()].find((r) => r.type === 'option' && r.option === option);
      options[option] =
        rule?.type === 'option'
          ? { mapped: kebabCase(rule.spring), kind: rule.kind, ...(rule.values === undefined ? {} : { values: rule.values }) }
          : { refused: (section.rules.get(relaxedName(option)) as { reason: string }).reason };
    }
    const springOnly: Record<string, string> = {};
    for (const rule of section.rules.values()) {
      if (rule.type === 'backoff') springOnly[kebabCase(rule.spring)] = `folded into ${section.wait!.to}`;
      if (rule.type === 'ignored') springOnly[kebabCase(rule.spring)] = `ignored: ${rule.reason}`;
      if (rule.type === 'lenientClasses') springOnly[kebabCase(rule.spring)] = 'unknown exception class names are skipped with a warning';
    }
    out[section.name] = { options, springOnly };
  }
  return {
    sections: out,
    sectionKeys: {
      tags: `ignored: ${SECTION_IGNORED.tags}`,
      'metrics.enabled': `ignored: ${SECTION_IGNORED.metrics}`,
      'metrics.legacy.enabled': `ignored: ${SECTION_IGNORED.metrics}`,
      '<kind>-aspect-order': ASPECT_ORDER_NOTE,
    },
    otherSections: Object.fromEntries(Object.entries(OTHER_SECTIONS).map(([k, v]) => [k, 'ignored' in v ? `ignored: ${v.ignored}` : `refused: ${v.refused}`])),
  };
}
