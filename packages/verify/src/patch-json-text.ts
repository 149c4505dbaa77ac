import type { JsonPatchOp } from '@bvl/build-issue';
import { applyEdits, type FormattingOptions, type JSONPath, modify } from 'jsonc-parser';
import { applyPatch, type PatchChange, parsePointer } from './apply-patch.ts';

/** Result of {@link patchJsonText}: the new text and what changed, or why the patch does not apply. */
export type TextPatchResult =
  | { readonly ok: true; readonly text: string; readonly changes: readonly PatchChange[] }
  | { readonly ok: false; readonly error: string };

/** The file's own indentation and line ending, so inserted JSON looks like the rest. */
function formattingOf(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return indent.startsWith('\t') ? { insertSpaces: false, tabSize: 1, eol } : { insertSpaces: true, tabSize: indent.length, eol };
}

/** A pointer as jsonc-parser's path: array indices as numbers, decided by the document at hand. */
function jsonPath(doc: unknown, pointer: string): JSONPath {
  const out: JSONPath = [];
  let cur: unknown = doc;
  for (const token of parsePointer(pointer)) {
    if (Array.isArray(cur)) {
      const i = token === '-' ? cur.length : Number(token);
      out.push(i);
      cur = cur[i];
    } else {
      out.push(token);
      cur = typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[token] : undefined;
    }
  }
  return out;
}

/** Deep equality of JSON values, ignoring key order (applyPatch's replace moves a key to the end). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => sameJson(v, (b as unknown[])[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function valueAt(doc: unknown, pointer: string): unknown {
  let cur = doc;
  for (const token of parsePointer(pointer)) cur = typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[token] : undefined;
  return cur;
}

/**
 * Applies RFC 6902 operations to a JSON file's text, editing only the values they touch so the
 * rest of the file — indentation, key order, line breaks — stays as written. All or nothing: the
 * patch is first applied to the parsed document (applyPatch), and the edited text must parse to
 * exactly that result, or nothing is changed.
 */
export function patchJsonText(text: string, ops: readonly JsonPatchOp[]): TextPatchResult {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `the file is not valid JSON: ${(e as Error).message}` };
  }
  const expected = applyPatch(doc, ops);
  if (!expected.ok) return { ok: false, error: expected.error };
  const formattingOptions = formattingOf(text);
  let out = text;
  let cur = doc;
  for (const op of ops) {
    const edit = (pointer: string, value: unknown, insert = false) => {
      out = applyEdits(out, modify(out, jsonPath(cur, pointer), value, { formattingOptions, isArrayInsertion: insert }));
    };
    const moving = op.op === 'move' ? valueAt(cur, op.from) : undefined;
    if (op.op === 'replace') edit(op.path, op.value);
    else if (op.op === 'add') edit(op.path, op.value, true);
    else if (op.op === 'remove') edit(op.path, undefined);
    else if (op.op === 'copy') edit(op.path, valueAt(cur, op.from), true);
    else if (op.op === 'move') {
      edit(op.from, undefined);
      const removed = applyPatch(cur, [{ op: 'remove', path: op.from }]);
      if (!removed.ok) return { ok: false, error: removed.error };
      cur = removed.value;
      edit(op.path, moving, true);
    }
    const step = applyPatch(cur, [op.op === 'move' ? { op: 'add', path: op.path, value: moving } : op]);
    if (!step.ok) return { ok: false, error: step.error };
    cur = step.value;
  }
  const result = JSON.parse(out);
  if (!sameJson(result, expected.value)) return { ok: false, error: 'the edited text does not parse to the patched document' };
  return { ok: true, text: out, changes: expected.changes };
}
