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

/** JSON with object keys sorted, so equal bodies hash equal whatever their key order. */
export function stableJson(value: unknown): string {
  return (
    JSON.stringify(value, (_k, v: unknown) =>
      isRecord(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, v[k]]),
          )
        : v,
    ) ?? 'null'
  );
}

/** The content hash of a stored body (sha256 of its stable JSON). */
export function contentHash(body: unknown): string {
  return createHash('sha256').update(stableJson(body)).digest('hex');
}
