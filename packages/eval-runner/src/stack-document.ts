import { type ArtifactType, type RawArtifact, STACK_KEYS } from '@bvl/metadata';
import { parsePointer } from '@bvl/verify';
import type { Blueprint } from './case-file.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sets `value` at an RFC 6901 pointer inside `doc`, creating objects on the way. */
function setAt(doc: Record<string, unknown>, pointer: string, value: unknown): void {
  const parts = parsePointer(pointer);
  let at = doc;
  for (const p of parts.slice(0, -1)) {
    if (!isRecord(at[p])) at[p] = {};
    at = at[p] as Record<string, unknown>;
  }
  at[parts[parts.length - 1]!] = value;
}

const KEY_OF = new Map<ArtifactType, string>(STACK_KEYS.map(([key, type]) => [type, key]));

/**
 * Artifacts (as loaded or read from the store) written back as one ObjectStack stack document that
 * `collectStack` reads into the same artifacts: views regrouped into the container documents they
 * came from (an object's own listViews stay in the object), view items and inline views as they
 * were, seeds under `data`. Sorted by type and name, so the file diffs cleanly.
 */
export function stackDocument(artifacts: Iterable<RawArtifact>): Blueprint {
  const byKey = new Map<string, unknown[]>();
  const add = (type: ArtifactType, body: unknown) => {
    const key = KEY_OF.get(type);
    if (key) byKey.set(key, [...(byKey.get(key) ?? []), body]);
  };
  const containers = new Map<string, { doc: Record<string, unknown>; objects: Set<string> }>();
  const sorted = [...artifacts].filter((a) => !a.refused).sort((a, b) => (a.type === b.type ? (a.name < b.name ? -1 : 1) : a.type < b.type ? -1 : 1));
  for (const a of sorted) {
    if (a.type !== 'view') {
      add(a.type, a.body);
      continue;
    }
    if (a.container?.startsWith('object:')) continue; // written with its object
    if (a.container) {
      const c = containers.get(a.container) ?? { doc: {}, objects: new Set<string>() };
      setAt(c.doc, a.docPrefix ?? '/list', a.body);
      if (a.object) c.objects.add(a.object);
      containers.set(a.container, c);
    } else if (a.docPrefix === '/config') {
      add('view', { name: a.key ?? 'default', ...(a.object ? { object: a.object } : {}), viewKind: a.viewKind ?? 'list', config: a.body });
    } else add('view', a.body);
  }
  for (const { doc, objects } of containers.values()) add('view', objects.size === 1 && doc.object === undefined ? { object: [...objects][0], ...doc } : doc);
  const out: Record<string, unknown> = {};
  for (const [key] of STACK_KEYS) if (byKey.has(key)) out[key] = byKey.get(key);
  return out;
}
