/** A stack document as JSON. */
export type StackDoc = Record<string, unknown>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The unit both sides are compared on: one entry of a stack collection, `objects/exp_expense`,
 * `views/exp_expense` (a view container, by its object), `data/exp_expense` (a seed, by its
 * object), `dashboards/exp_spending`; `stack` for what belongs to no entry.
 */
export function docKey(doc: StackDoc, collection: unknown, index: unknown): string {
  if (typeof collection !== 'string') return 'stack';
  const list = doc[collection];
  if (typeof index !== 'number' || !Array.isArray(list)) return isRecord(list) && typeof index === 'string' ? `${collection}/${index}` : collection;
  const entry = list[index];
  if (!isRecord(entry)) return `${collection}/#${index}`;
  const list0 = isRecord(entry.list) ? entry.list : undefined;
  const data = isRecord(list0?.data) ? list0.data : undefined;
  const name =
    collection === 'views'
      ? (entry.object ?? entry.objectName ?? data?.object ?? entry.name)
      : collection === 'data'
        ? (entry.object ?? entry.name)
        : (entry.name ?? entry.object);
  return `${collection}/${typeof name === 'string' ? name : `#${index}`}`;
}

/** The key of an RFC 6901 pointer into the stack document (`/objects/3/listViews/x` → `objects/<name>`). */
export function docKeyOfPointer(doc: StackDoc, pointer: string): string {
  const [collection, index] = pointer
    .split('/')
    .slice(1, 3)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  return docKey(doc, collection, index !== undefined && /^\d+$/.test(index) ? Number(index) : index);
}

/** The key of an ObjectStack lint path (`objects[3].sharingModel`, `views[4]`), or of its `where` (`object 'x' · field 'y'`). */
export function docKeyOfLint(doc: StackDoc, path: string, where: string): string {
  const m = /^([A-Za-z_]+)\[(\d+)\]/.exec(path);
  if (m) return docKey(doc, m[1], Number(m[2]));
  const w = /^(object|view|dashboard|dataset|app|report|page) ['"]([^'"]+)['"]/.exec(where);
  if (w) return `${w[1] === 'object' ? 'objects' : `${w[1]}s`}/${w[2]}`;
  const top = /^([A-Za-z_]+)/.exec(path);
  return top ? top[1]! : 'stack';
}

/** A path's shape, for a disagreement's signature: indices become `[]`, the names under a record collection `*`. */
export function pathShape(path: ReadonlyArray<PropertyKey>): string {
  const out: string[] = [];
  let prev: PropertyKey | undefined;
  for (const p of path) {
    if (typeof p === 'number') out.push('[]');
    else if (typeof prev === 'string' && ['fields', 'listViews', 'formViews'].includes(prev)) out.push('*');
    else out.push(String(p));
    prev = p;
  }
  return out.join('.').replace(/\.\[\]/g, '[]');
}
