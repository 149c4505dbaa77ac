import { visit } from 'jsonc-parser';

/** Where a JSON value sits in its file: 1-based lines and columns (UTF-16 code units), end exclusive. */
export interface JsonPosition {
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
}

/** The position found for a pointer: its own, or (when the member is absent) its deepest existing ancestor's. */
export interface PointerPosition extends JsonPosition {
  /** The pointer whose position this is (the asked one, or an ancestor of it). */
  readonly found: string;
}

const escapeSegment = (s: string): string => (s.includes('~') || s.includes('/') ? s.replaceAll('~', '~0').replaceAll('/', '~1') : s);

/** Every ancestor of an RFC 6901 pointer, itself included: `/a/b` → '', '/a', '/a/b'. */
function prefixesOf(pointer: string): string[] {
  const out = [''];
  for (let i = pointer.indexOf('/', 1); i !== -1; i = pointer.indexOf('/', i + 1)) out.push(pointer.slice(0, i));
  if (pointer !== '') out.push(pointer);
  return out;
}

interface Frame {
  readonly pointer: string;
  readonly array: boolean;
  index: number;
  key: string | undefined;
  keyLine: number;
  keyColumn: number;
}

/**
 * Finds where each of `pointers` sits in the JSON `text`, in one streaming pass that skips every
 * subtree no pointer enters (no tree is built, so a large stack file costs one scan). A member's
 * position starts at its key (`"type": …`), an array element's at its value, and ends after the
 * value. A pointer whose member does not exist gets its deepest existing ancestor's position.
 * Text that is not JSON, or nests deeper than the call stack holds, yields what was found before.
 */
export function findJsonPositions(text: string, pointers: Iterable<string>): Map<string, PointerPosition> {
  const asked = [...pointers];
  const wanted = new Set<string>();
  for (const p of asked) for (const prefix of prefixesOf(p)) wanted.add(prefix);
  const seen = new Map<string, JsonPosition>();
  const stack: Frame[] = [];
  // The value now starting: its pointer and where its position starts (the key, inside an object).
  const begin = (line: number, column: number): { pointer: string; line: number; column: number } | undefined => {
    const parent = stack[stack.length - 1];
    if (!parent) return { pointer: '', line, column };
    if (parent.array) return { pointer: `${parent.pointer}/${parent.index++}`, line, column };
    if (parent.key === undefined) return undefined;
    const at = { pointer: `${parent.pointer}/${escapeSegment(parent.key)}`, line: parent.keyLine, column: parent.keyColumn };
    parent.key = undefined;
    return at;
  };
  const open: Array<{ pointer: string; line: number; column: number } | undefined> = [];
  const onBegin = (array: boolean) => (_offset: number, _length: number, line: number, column: number) => {
    const at = begin(line, column);
    const enter = at !== undefined && wanted.has(at.pointer);
    open.push(enter ? at : undefined);
    if (!enter) return false;
    stack.push({ pointer: at.pointer, array, index: 0, key: undefined, keyLine: 0, keyColumn: 0 });
    return true;
  };
  const onEnd = (_offset: number, _length: number, line: number, column: number) => {
    const at = open.pop();
    if (!at) return;
    stack.pop();
    seen.set(at.pointer, { line: at.line + 1, column: at.column + 1, endLine: line + 1, endColumn: column + 2 });
  };
  // jsonc-parser's parser recurses per nesting level: a value nested deeper than the stack holds
  // (a hostile file the reader already refuses as too deep) ends the scan like a syntax error does.
  try {
    visit(
      text,
      {
        onObjectBegin: onBegin(false),
        onArrayBegin: onBegin(true),
        onObjectEnd: onEnd,
        onArrayEnd: onEnd,
        onObjectProperty: (property, _offset, _length, line, column) => {
          const top = stack[stack.length - 1];
          if (!top) return;
          top.key = property;
          top.keyLine = line;
          top.keyColumn = column;
        },
        onLiteralValue: (_value, _offset, length, line, column) => {
          const at = begin(line, column);
          if (at && wanted.has(at.pointer))
            seen.set(at.pointer, { line: at.line + 1, column: at.column + 1, endLine: line + 1, endColumn: column + 1 + length });
        },
      },
      { disallowComments: false, allowTrailingComma: true },
    );
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
  }
  const out = new Map<string, PointerPosition>();
  for (const p of asked) {
    const chain = prefixesOf(p);
    for (let i = chain.length - 1; i >= 0; i--) {
      const hit = seen.get(chain[i]!);
      if (hit) {
        out.set(p, { ...hit, found: chain[i]! });
        break;
      }
    }
  }
  return out;
}
