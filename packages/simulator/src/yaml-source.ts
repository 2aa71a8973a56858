import { closest } from '@breakwater/core/internal';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import { LIMITS } from './limits.js';

/** The key path of a node: the keys of the pairs above it, and the index of each sequence item. */
function pathOf(ancestors: readonly unknown[], key: number | 'key' | 'value' | null): string {
  let path = '';
  ancestors.forEach((a, i) => {
    const next = i + 1 < ancestors.length ? ancestors[i + 1] : undefined;
    if (isPair(a) && isScalar(a.key)) path += `${path === '' ? '' : '.'}${String(a.key.value)}`;
    else if (isSeq(a)) {
      const index = next === undefined ? key : a.items.indexOf(next as Node);
      if (typeof index === 'number') path += `[${index}]`;
    }
  });
  return path;
}

/**
 * Bad scenario input, refused before anything runs: the file, the line and column, the key
 * (a dotted path such as `traffic.phases[1].rate`) and what is wrong with it.
 *
 * @example
 * ```ts
 * try {
 *   parseScenarioFile('scenario.yml');
 * } catch (error) {
 *   if (error instanceof ScenarioError) console.error(error.message); // scenario.yml:7:7: traffic.phases[0].rate: …
 * }
 * ```
 */
export class ScenarioError extends Error {
  override name = 'ScenarioError';
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly key: string,
    readonly problem: string,
  ) {
    super(`${file}:${line}:${column}: ${key === '' ? '' : `${key}: `}${problem}`);
  }
}

/** A key and its value in a YAML mapping, with their nodes (for positions). */
export interface Entry {
  readonly key: string;
  readonly path: string;
  readonly keyNode: Node | undefined;
  readonly value: Node | null;
}

/** A parsed YAML file that can say where each node is. */
export class YamlSource {
  readonly doc: Document;
  readonly #lines = new LineCounter();

  constructor(
    readonly file: string,
    text: string,
  ) {
    // The core schema and no custom tags: a tag in a scenario is refused below.
    this.doc = parseDocument(text, { schema: 'core', customTags: [], lineCounter: this.#lines, uniqueKeys: true, prettyErrors: false });
    const error = this.doc.errors[0];
    if (error !== undefined) {
      const { line, col: column } = this.#lines.linePos(error.pos[0]);
      throw new ScenarioError(file, line, column, '', `not valid YAML: ${error.message.split('\n')[0]}`);
    }
    visit(this.doc, {
      Node: (_key, node, ancestors) => {
        if (!('tag' in node) || typeof node.tag !== 'string') return;
        // The key path of the tagged node: the keys of the pairs above it.
        const keys = ancestors.flatMap((a) => (isPair(a) && isScalar(a.key) ? [String(a.key.value)] : []));
        this.fail(node, keys.join('.'), `the tag '${node.tag}' is not allowed: a scenario is plain YAML (core schema, no tags)`);
      },
    });
    this.#refuseAliasBombs();
  }

  /**
   * Resolves the whole document once with the `yaml` package's `maxAliasCount`: aliases that
   * expand past it (billion laughs) are refused at the first alias, with its line and key.
   */
  #refuseAliasBombs(): void {
    try {
      this.doc.toJS({ maxAliasCount: LIMITS.maxAliasCount });
    } catch (error) {
      if (!(error instanceof ReferenceError)) throw error;
      let first: { node: Node; path: string } | undefined;
      visit(this.doc, {
        Alias: (key, node, ancestors) => {
          first = { node, path: pathOf(ancestors, key) };
          return visit.BREAK;
        },
      });
      this.fail(
        first?.node,
        first?.path ?? '',
        `YAML aliases expand past ${LIMITS.maxAliasCount} (a resource exhaustion attack, or values to write out): write the values out, or use fewer aliases`,
      );
    }
  }

  /** Where a node starts: line and column, 1-based. */
  position(node: Node | null | undefined): { line: number; column: number } {
    const offset = node?.range?.[0];
    if (offset === undefined) return { line: 1, column: 1 };
    const { line, col } = this.#lines.linePos(offset);
    return { line, column: col };
  }

  fail(node: Node | null | undefined, key: string, problem: string): never {
    const { line, column } = this.position(node);
    throw new ScenarioError(this.file, line, column, key, problem);
  }

  /** The node's plain value (numbers, strings, booleans, arrays, objects). */
  js(node: Node | null): unknown {
    return node === null ? null : node.toJS(this.doc, { maxAliasCount: LIMITS.maxAliasCount });
  }

  /** The entries of a mapping, checked against the keys allowed there (an unknown key is refused, with a did-you-mean). */
  entries(node: Node | null, path: string, allowed: readonly string[], what = 'this mapping'): Map<string, Entry> {
    if (!isMap(node)) this.fail(node, path, `must be a mapping (key: value) of ${what}`);
    const out = new Map<string, Entry>();
    for (const pair of (node as YAMLMap).items as Pair<Node, Node | null>[]) {
      const keyNode = pair.key;
      const key = isScalar(keyNode) ? String(keyNode.value) : undefined;
      if (key === undefined) this.fail(keyNode, path, 'keys must be plain words');
      const at = path === '' ? key : `${path}.${key}`;
      if (!allowed.includes(key)) {
        const guess = closest(key, allowed);
        this.fail(keyNode, at, `unknown key${guess === undefined ? '' : ` (did you mean '${guess}'?)`}; known here: ${allowed.join(', ')}`);
      }
      out.set(key, { key, path: at, keyNode, value: pair.value });
    }
    return out;
  }

  /** The keys of a mapping whose keys are names (pipelines), in order. */
  namedEntries(node: Node | null, path: string): Entry[] {
    if (!isMap(node)) this.fail(node, path, 'must be a mapping of names to values');
    return ((node as YAMLMap).items as Pair<Node, Node | null>[]).map((pair) => {
      const key = isScalar(pair.key) ? String(pair.key.value) : this.fail(pair.key, path, 'names must be plain words');
      return { key, path: `${path}.${key}`, keyNode: pair.key, value: pair.value };
    });
  }

  /** The items of a sequence. */
  items(node: Node | null, path: string): Node[] {
    if (!isSeq(node)) this.fail(node, path, 'must be a list');
    return (node as YAMLSeq<Node>).items;
  }
}
