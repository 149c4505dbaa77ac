import type { JsonPatchOp } from '@bvl/build-issue';
import { pointer } from '@bvl/metadata';

/** A patch that cannot be applied: which operation (index) and why. */
export class JsonPatchError extends Error {
  constructor(
    readonly index: number,
    readonly op: JsonPatchOp,
    reason: string,
  ) {
    super(`operation ${index} (${op.op} ${op.path}): ${reason}`);
    this.name = 'JsonPatchError';
  }
}

type Container = Record<string, unknown> | unknown[];

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

/** Splits an RFC 6901 pointer into raw segments (`~1` → `/`, `~0` → `~`); throws on a pointer without a leading slash. */
export function parsePointer(ptr: string): string[] {
  if (ptr === '') return [];
  if (!ptr.startsWith('/')) throw new Error(`"${ptr}" is not a JSON pointer (it must be empty or start with "/")`);
  return ptr
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The value at a pointer, or undefined when any segment is missing. */
export function getPointer(doc: unknown, ptr: string): unknown {
  let at: unknown = doc;
  for (const seg of parsePointer(ptr)) {
    if (Array.isArray(at)) {
      const i = arrayIndex(seg, at.length - 1);
      if (i === undefined) return undefined;
      at = at[i];
    } else if (isContainer(at) && Object.hasOwn(at, seg)) at = (at as Record<string, unknown>)[seg];
    else return undefined;
  }
  return at;
}

/** A valid array index no larger than `max`, or undefined (`01`, `-1`, `x` are not indices). */
function arrayIndex(seg: string, max: number): number | undefined {
  if (!/^(0|[1-9][0-9]*)$/.test(seg)) return undefined;
  const i = Number(seg);
  return i <= max ? i : undefined;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isContainer(a) || !isContainer(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * Applies RFC 6902 operations to a copy of `doc` and returns it (`doc` is never changed). All or
 * nothing: the first operation that cannot apply (a missing path, a failed `test`, an index out of
 * range) throws a {@link JsonPatchError} naming it. Used to stage a golden case's defect sets on its
 * blueprint and to apply the fixer's patches to artifact bodies.
 */
export function applyJsonPatch<T>(doc: T, ops: readonly JsonPatchOp[]): T {
  let root: unknown = structuredClone(doc);
  ops.forEach((op, index) => {
    const fail = (reason: string): never => {
      throw new JsonPatchError(index, op, reason);
    };
    let path: string[];
    try {
      path = parsePointer(op.path);
    } catch (e) {
      return fail((e as Error).message);
    }
    const parentOf = (segments: string[]): { parent: Container; key: string } => {
      const parent = getPointer(root, pointer(...segments.slice(0, -1)));
      if (!isContainer(parent)) return fail(`the parent of "${segments.join('/')}" does not exist`);
      return { parent, key: segments[segments.length - 1]! };
    };
    const add = (segments: string[], value: unknown) => {
      if (segments.length === 0) {
        root = value;
        return;
      }
      const { parent, key } = parentOf(segments);
      if (Array.isArray(parent)) {
        const i = key === '-' ? parent.length : arrayIndex(key, parent.length);
        if (i === undefined) fail(`"${key}" is not an index of an array of ${parent.length}`);
        parent.splice(i!, 0, value);
      } else parent[key] = value;
    };
    const remove = (segments: string[]): unknown => {
      if (segments.length === 0) fail('the whole document cannot be removed');
      const { parent, key } = parentOf(segments);
      if (Array.isArray(parent)) {
        const i = arrayIndex(key, parent.length - 1);
        if (i === undefined) fail(`"${key}" is not an index of an array of ${parent.length}`);
        return parent.splice(i!, 1)[0];
      }
      if (!Object.hasOwn(parent, key)) fail(`"${key}" does not exist`);
      const old = parent[key];
      delete parent[key];
      return old;
    };
    const from = (): string[] => {
      if (!('from' in op)) return fail('no "from"');
      try {
        const f = parsePointer(op.from);
        if (getPointer(root, op.from) === undefined) fail(`"from" ${op.from} does not exist`);
        return f;
      } catch (e) {
        if (e instanceof JsonPatchError) throw e;
        return fail((e as Error).message);
      }
    };
    switch (op.op) {
      case 'add':
        add(path, structuredClone(op.value));
        break;
      case 'remove':
        remove(path);
        break;
      case 'replace':
        if (getPointer(root, op.path) === undefined) fail('the path does not exist');
        if (path.length === 0) root = structuredClone(op.value);
        else {
          remove(path);
          add(path, structuredClone(op.value));
        }
        break;
      case 'move': {
        const f = from();
        if (op.path.startsWith(`${op.from}/`)) fail('a value cannot be moved into itself');
        add(path, remove(f));
        break;
      }
      case 'copy':
        add(path, structuredClone(getPointer(root, pointer(...from()))));
        break;
      case 'test':
        if (!deepEqual(getPointer(root, op.path), op.value)) fail('the test failed: the value differs');
        break;
    }
  });
  return root as T;
}
