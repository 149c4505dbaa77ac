import type { JsonPatchOp } from '@bvl/build-issue';

/** One value a patch changed: where, and what was there before and after (absent = `undefined`). */
export interface PatchChange {
  readonly path: string;
  readonly op: JsonPatchOp['op'];
  readonly old?: unknown;
  readonly new?: unknown;
}

/** Result of {@link applyPatch}: the patched copy and what changed, or why an op could not apply. */
export type PatchResult =
  | { readonly ok: true; readonly value: unknown; readonly changes: readonly PatchChange[] }
  | { readonly ok: false; readonly error: string; readonly opIndex: number };

type Container = Record<string, unknown> | unknown[];

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

/** RFC 6901: `/a~1b/0` → `['a/b', '0']`; throws on a pointer that does not start with `/`. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`${JSON.stringify(pointer)} is not a JSON pointer`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

class PatchError extends Error {}

function parentOf(root: { v: unknown }, tokens: readonly string[]): { parent: Container | { v: unknown }; key: string } {
  if (tokens.length === 0) return { parent: root, key: 'v' };
  let cur: unknown = root.v;
  for (const t of tokens.slice(0, -1)) {
    if (!isContainer(cur)) throw new PatchError(`no container at ${t}`);
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(t) || Number(t) >= cur.length) throw new PatchError(`array index ${t} is out of range`);
      cur = cur[Number(t)];
    } else {
      if (!Object.hasOwn(cur, t)) throw new PatchError(`member ${JSON.stringify(t)} does not exist`);
      cur = cur[t];
    }
  }
  if (!isContainer(cur)) throw new PatchError('the parent is not an object or array');
  return { parent: cur, key: tokens[tokens.length - 1]! };
}

function read(root: { v: unknown }, path: string): unknown {
  const { parent, key } = parentOf(root, parsePointer(path));
  if (Array.isArray(parent)) {
    if (!/^(0|[1-9][0-9]*)$/.test(key) || Number(key) >= parent.length) throw new PatchError(`array index ${key} is out of range`);
    return parent[Number(key)];
  }
  if (!Object.hasOwn(parent, key)) throw new PatchError(`member ${JSON.stringify(key)} does not exist`);
  return (parent as Record<string, unknown>)[key];
}

function remove(root: { v: unknown }, path: string): unknown {
  const old = read(root, path);
  const { parent, key } = parentOf(root, parsePointer(path));
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete (parent as Record<string, unknown>)[key];
  return old;
}

function add(root: { v: unknown }, path: string, value: unknown): unknown {
  const { parent, key } = parentOf(root, parsePointer(path));
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : /^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : Number.NaN;
    if (!(i >= 0 && i <= parent.length)) throw new PatchError(`array index ${key} is out of range`);
    parent.splice(i, 0, value);
    return undefined;
  }
  const p = parent as Record<string, unknown>;
  const old = Object.hasOwn(p, key) ? p[key] : undefined;
  // A key like __proto__ must become an own property, never the prototype.
  Object.defineProperty(p, key, { value, enumerable: true, writable: true, configurable: true });
  return old;
}

const equal = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Applies RFC 6902 operations to a deep copy of `doc` (the input is never mutated). All or
 * nothing: the first op that cannot apply (a missing member, an index out of range, a failed
 * `test`) returns its index and why. Reports every value changed, old → new.
 */
export function applyPatch(doc: unknown, ops: readonly JsonPatchOp[]): PatchResult {
  const root = { v: structuredClone(doc) };
  const changes: PatchChange[] = [];
  for (const [opIndex, op] of ops.entries()) {
    try {
      switch (op.op) {
        case 'add':
          changes.push({ path: op.path, op: op.op, old: add(root, op.path, structuredClone(op.value)), new: op.value });
          break;
        case 'replace': {
          const old = read(root, op.path);
          remove(root, op.path);
          add(root, op.path, structuredClone(op.value));
          changes.push({ path: op.path, op: op.op, old, new: op.value });
          break;
        }
        case 'remove':
          changes.push({ path: op.path, op: op.op, old: remove(root, op.path) });
          break;
        case 'test':
          if (!equal(read(root, op.path), op.value)) throw new PatchError(`test failed: the value at ${op.path} is not ${JSON.stringify(op.value)}`);
          break;
        case 'move': {
          if (op.path.startsWith(`${op.from}/`)) throw new PatchError('cannot move a value into itself');
          const value = remove(root, op.from);
          changes.push({ path: op.from, op: op.op, old: value }, { path: op.path, op: op.op, old: add(root, op.path, value), new: value });
          break;
        }
        case 'copy': {
          const value = structuredClone(read(root, op.from));
          changes.push({ path: op.path, op: op.op, old: add(root, op.path, value), new: value });
          break;
        }
        default: {
          const never: never = op;
          throw new PatchError(`unknown op ${JSON.stringify(never)}`);
        }
      }
    } catch (e) {
      if (e instanceof PatchError || (e as Error).message?.includes('JSON pointer'))
        return { ok: false, error: `${op.op} ${op.path}: ${(e as Error).message}`, opIndex };
      throw e;
    }
  }
  return { ok: true, value: root.v, changes };
}
