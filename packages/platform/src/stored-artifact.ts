import { createHash } from 'node:crypto';
import { ARTIFACT_TYPES, type ArtifactSource, type ArtifactType, type RawArtifact } from '@bvl/metadata';

/** An artifact as the metadata store keeps it: views carry their expansion ({viewKind, object, key, config}). */
export interface StoredArtifact {
  readonly type: ArtifactType;
  readonly name: string;
  readonly body: unknown;
  readonly source: ArtifactSource;
}

interface StoredView {
  readonly viewKind?: 'list' | 'form' | undefined;
  readonly object?: string | undefined;
  readonly key?: string | undefined;
  readonly docPrefix?: string | undefined;
  readonly container?: string | undefined;
  readonly config: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A loaded artifact → its stored form. A view keeps the expansion the loader did, so it is rebuilt exactly. */
export function toStoredArtifact(a: RawArtifact): StoredArtifact {
  const body =
    a.type === 'view'
      ? ({ viewKind: a.viewKind, object: a.object, key: a.key, docPrefix: a.docPrefix, container: a.container, config: a.body } satisfies StoredView)
      : a.body;
  return { type: a.type, name: a.name, body, source: { ...(a.source.file !== undefined ? { file: a.source.file } : {}), pointer: a.source.pointer } };
}

/** A stored row → the RawArtifact buildGraph reads; `draft` tags it as a staged draft. */
export function fromStoredArtifact(row: { type: string; name: string; body: unknown; source: unknown }, draft: boolean): RawArtifact | undefined {
  if (!(ARTIFACT_TYPES as readonly string[]).includes(row.type)) return undefined;
  const type = row.type as ArtifactType;
  const src = isRecord(row.source) ? row.source : {};
  const source: ArtifactSource = { ...(typeof src.file === 'string' ? { file: src.file } : {}), pointer: typeof src.pointer === 'string' ? src.pointer : '' };
  if (type !== 'view') return { type, name: row.name, body: row.body, source, draft };
  const v = isRecord(row.body) ? (row.body as unknown as StoredView) : { config: row.body };
  return {
    type,
    name: row.name,
    body: v.config,
    source,
    draft,
    viewKind: v.viewKind === 'form' ? 'form' : v.viewKind === 'list' ? 'list' : undefined,
    object: typeof v.object === 'string' ? v.object : undefined,
    key: typeof v.key === 'string' ? v.key : undefined,
    docPrefix: typeof v.docPrefix === 'string' ? v.docPrefix : undefined,
    container: typeof v.container === 'string' ? v.container : undefined,
  };
}

/** A key JavaScript enumerates before every other (an array index): such keys come first, in numeric order. */
const isIndexKey = (k: string): boolean => {
  const c = k.charCodeAt(0);
  if (k.length === 0 || c < 48 || c > 57 || (c === 48 && k.length > 1) || k.length > 10) return false;
  for (let i = 1; i < k.length; i++) {
    const d = k.charCodeAt(i);
    if (d < 48 || d > 57) return false;
  }
  return Number(k) < 4294967295;
};

/** The keys of `v` in the order JSON.stringify writes an object built from them sorted: indices ascending, then the rest sorted. */
function sortedKeys(v: Record<string, unknown>): string[] {
  const keys = Object.keys(v).sort();
  let indices = 0;
  for (const k of keys) if (isIndexKey(k)) indices++;
  if (indices === 0) return keys;
  const ix = keys.filter(isIndexKey).sort((a, b) => Number(a) - Number(b));
  return indices === keys.length ? ix : [...ix, ...keys.filter((k) => !isIndexKey(k))];
}

/** `value`'s stable JSON, or undefined where JSON.stringify leaves a member out (undefined, a function, a symbol). */
function writeStable(value: unknown): string | undefined {
  let v = value;
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON: () => unknown }).toJSON();
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) {
        let s = '[';
        for (let i = 0; i < v.length; i++) s += `${i > 0 ? ',' : ''}${writeStable(v[i]) ?? 'null'}`;
        return `${s}]`;
      }
      const rec = v as Record<string, unknown>;
      let s = '{';
      for (const k of sortedKeys(rec)) {
        const member = writeStable(rec[k]);
        if (member !== undefined) s += `${s.length > 1 ? ',' : ''}${JSON.stringify(k)}:${member}`;
      }
      return `${s}}`;
    }
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    default:
      return undefined;
  }
}

/**
 * JSON with object keys sorted, so equal bodies hash equal whatever their key order. Exactly the text
 * `JSON.stringify` writes for the value with every object rebuilt from its sorted keys (index-like
 * keys first, as JavaScript enumerates them) — the form every stored content hash was taken of —
 * written in one pass, without rebuilding the objects.
 */
export function stableJson(value: unknown): string {
  return writeStable(value) ?? 'null';
}

/** The content hash of a stored body (sha256 of its stable JSON). */
export function contentHash(body: unknown): string {
  return createHash('sha256').update(stableJson(body)).digest('hex');
}

/** A body's stable JSON (what the store writes) and its content hash, from one serialisation. */
export function storedJson(body: unknown): { readonly text: string; readonly hash: string } {
  const text = stableJson(body);
  return { text, hash: createHash('sha256').update(text).digest('hex') };
}
