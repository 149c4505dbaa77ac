import { findNodeAtOffset, getNodeValue, parseTree, visit } from 'jsonc-parser';
import type { ArtifactSet, LoadProblem, RawArtifact, SourceNotice } from './artifact.ts';
import { collectStack } from './collect-artifacts.ts';
import { countKeys, scanJson } from './input-bounds.ts';

/** Where a key sits in JSON text: 1-based line and column, and its offset. */
export interface KeyPosition {
  readonly line: number;
  readonly column: number;
  readonly offset: number;
}

/** A key an object of JSON text holds twice: `JSON.parse` keeps the last value and drops the first without a word. */
export interface DuplicateKey {
  /** RFC 6901 pointer of the member (`/objects`, `/fields/name/type`). */
  readonly pointer: string;
  readonly key: string;
  readonly first: KeyPosition;
  /** The repeat (each repeat is reported once). */
  readonly again: KeyPosition;
}

/** Duplicate keys reported per text; past it, the text has bigger problems. */
export const MAX_DUPLICATE_KEYS = 100;

const escapeSegment = (s: string): string => (s.includes('~') || s.includes('/') ? s.replaceAll('~', '~0').replaceAll('/', '~1') : s);

interface Frame {
  readonly array: boolean;
  /** The segment this container is at in its parent ('' for the root). */
  readonly segment: string | undefined;
  index: number;
  key: string | undefined;
  readonly keys: Map<string, KeyPosition> | undefined;
}

/**
 * Every key an object of `text` holds more than once, in one streaming pass (no tree is built; the
 * pass costs about what `JSON.parse` does). Keys compare as JSON.parse compares them (escapes
 * decoded). Text that is not JSON, or nests deeper than the call stack holds, yields what was found
 * before. Pure.
 */
export function findDuplicateKeys(text: string): DuplicateKey[] {
  return scanDuplicateKeys(text).repeats;
}

/**
 * {@link findDuplicateKeys}, saying whether the scan read the whole text: `complete` is false when
 * the text nests deeper than the call stack holds, and a repeat past that depth went unseen.
 */
export function scanDuplicateKeys(text: string): { readonly repeats: DuplicateKey[]; readonly complete: boolean } {
  const out: DuplicateKey[] = [];
  let complete = true;
  const stack: Frame[] = [];
  const pointerOf = (key: string): string =>
    `${stack
      .slice(1)
      .map((f) => `/${f.segment}`)
      .join('')}/${escapeSegment(key)}`;
  // The segment of the value now starting in its parent.
  const segment = (): string | undefined => {
    const parent = stack[stack.length - 1];
    if (!parent) return '';
    if (parent.array) return String(parent.index++);
    const k = parent.key;
    parent.key = undefined;
    return k === undefined ? undefined : escapeSegment(k);
  };
  const open = (array: boolean) => () => {
    stack.push({ array, segment: segment(), index: 0, key: undefined, keys: array ? undefined : new Map() });
  };
  const close = () => {
    stack.pop();
  };
  // jsonc-parser's parser recurses per nesting level: text nested deeper than the call stack holds
  // (which the reader refuses as too deep anyway) ends the scan with what was found, like an error.
  try {
    visit(
      text,
      {
        onObjectBegin: open(false),
        onArrayBegin: open(true),
        onObjectEnd: close,
        onArrayEnd: close,
        onObjectProperty: (key, offset, _length, line, column) => {
          const top = stack[stack.length - 1];
          if (!top?.keys) return;
          top.key = key;
          const at = { line: line + 1, column: column + 1, offset };
          const first = top.keys.get(key);
          if (first === undefined) top.keys.set(key, at);
          else if (out.length < MAX_DUPLICATE_KEYS) out.push({ pointer: pointerOf(key), key, first, again: at });
        },
        onLiteralValue: () => {
          segment();
        },
      },
      { disallowComments: true, allowTrailingComma: false },
    );
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    complete = false;
  }
  return { repeats: out, complete };
}

/**
 * False when no object of `text` can repeat a key: the members its text writes (the scan's count)
 * are as many as the own keys of its parse, which keeps one value per key. A cheap test (a scan and
 * a walk) in front of {@link findDuplicateKeys}, whose tokenizer costs several parses. `parsed`:
 * the text's parse and scanned member count, when the caller has them. Text that is not JSON may.
 */
function mayRepeatKeys(text: string, parsed: { readonly doc: unknown; readonly keys: number } | undefined): boolean {
  if (parsed) return countKeys(parsed.doc) !== parsed.keys;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return true;
  }
  return countKeys(doc) !== scanJson(text).keys;
}

/** The text's tree, or undefined when it nests deeper than jsonc-parser's recursion can go. */
function treeOf(text: string): ReturnType<typeof parseTree> | undefined {
  try {
    return parseTree(text);
  } catch (e) {
    if (e instanceof RangeError) return undefined;
    throw e;
  }
}

/** Whether `pointer` is `prefix` or inside it, segment by segment. */
const within = (pointer: string, prefix: string): boolean => pointer === prefix || pointer.startsWith(`${prefix}/`);

/**
 * The set collected from `text` (the file `file`), with every duplicate key made visible. A repeat
 * inside an artifact is an `invalid_artifact` of that artifact at the member (its first value was
 * dropped). A repeated stack key (two `"objects"`) drops every artifact of the first: each is an
 * `invalid_artifact` naming it; a repeated key that dropped no artifact is a notice.
 */
export function withDuplicateKeys(
  set: ArtifactSet,
  text: string,
  file: string | undefined,
  draft: boolean,
  parsed?: { readonly doc: unknown; readonly keys: number },
): ArtifactSet {
  if (!mayRepeatKeys(text, parsed)) return set;
  const { repeats: dups, complete } = scanDuplicateKeys(text);
  if (dups.length === 0 && complete) return set;
  const mine = set.artifacts.filter((a) => a.source.file === file);
  const problems: LoadProblem[] = [];
  const notices: SourceNotice[] = [];
  if (!complete)
    notices.push({
      ...(file !== undefined ? { file } : {}),
      message: `${file ?? 'The stack'} repeats a key (it writes more members than JSON keeps) and nests too deep for bvl to say where: JSON keeps only the last of a repeated key, so what the first held is not read. Find the repeat and keep one; flatten what nests that deep.`,
    });
  const where = (d: DuplicateKey) => `${file ?? 'the stack'} line ${d.first.line} and line ${d.again.line}`;
  let tree: ReturnType<typeof parseTree> | undefined;
  for (const d of dups) {
    let owner: RawArtifact | undefined;
    for (const a of mine) if (within(d.pointer, a.source.pointer) && (!owner || a.source.pointer.length > owner.source.pointer.length)) owner = a;
    if (owner) {
      const path = d.pointer.slice(owner.source.pointer.length);
      problems.push({
        code: 'invalid_artifact',
        type: owner.type,
        name: owner.name,
        message: `The ${owner.type} has the key "${d.key}" twice at ${path} (${where(d)}): JSON keeps only the last value, so the first is dropped without a word.`,
        fix: `Keep one "${d.key}" at ${path}: merge the two, or delete the one you do not mean.`,
        path,
        draft,
        source: owner.source,
      });
      continue;
    }
    // Outside every artifact: a stack key. What did its first value hold?
    tree ??= treeOf(text);
    const keyNode = tree ? findNodeAtOffset(tree, d.first.offset + 1) : undefined;
    const value = keyNode?.parent?.children?.[1];
    const lost =
      value && d.pointer.split('/').length === 2 ? collectStack({ [d.key]: getNodeValue(value) }, { file, draft }).artifacts.filter((a) => !a.refused) : [];
    for (const a of lost)
      problems.push({
        code: 'invalid_artifact',
        type: a.type,
        name: a.name,
        message: `The stack has the key "${d.key}" twice (${where(d)}): JSON keeps only the last, so ${a.type} "${a.name}" of the first "${d.key}" is dropped without a word.`,
        fix: `Merge the two "${d.key}" into one.`,
        draft,
        source: { ...(file !== undefined ? { file } : {}), pointer: d.pointer },
      });
    if (lost.length === 0)
      notices.push({
        ...(file !== undefined ? { file } : {}),
        pointer: d.pointer,
        message: `${file ?? 'The stack'} has the key "${d.key}" twice at ${d.pointer} (lines ${d.first.line} and ${d.again.line}): JSON keeps only the last; the first is not read.`,
      });
  }
  return { ...set, problems: [...set.problems, ...problems], ...(notices.length > 0 || set.notices ? { notices: [...(set.notices ?? []), ...notices] } : {}) };
}
