import { INPUT_LIMITS, type RawArtifact } from '@bvl/metadata';
import type { OverlayRow } from '@bvl/platform';
import { ApiError } from './to-error-response.ts';

/** What a draft weighs against the CLI's input bounds ({@link INPUT_LIMITS}). */
export interface DraftWeight {
  readonly fields: number;
  readonly records: number;
  readonly bytes: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * JSON bytes of bodies already weighed, by body. Stored bodies come from the store's body cache, the
 * same object for the same content, so a package's drafts are serialised once, not at every write.
 */
const BYTES = new WeakMap<object, number>();

const jsonBytes = (body: unknown): number => {
  if (typeof body !== 'object' || body === null) return Buffer.byteLength(JSON.stringify(body ?? null) ?? '');
  let b = BYTES.get(body);
  if (b === undefined) BYTES.set(body, (b = Buffer.byteLength(JSON.stringify(body) ?? '')));
  return b;
};

/** Keys of a record, by record (an object body's fields: counting 100,000 keys anew at every write showed in profiles). */
const KEY_COUNTS = new WeakMap<object, number>();

/** How many keys `record` has (remembered per record object: bodies from the store's cache are shared, never mutated). */
export function keyCount(record: Record<string, unknown>): number {
  let n = KEY_COUNTS.get(record);
  if (n === undefined) KEY_COUNTS.set(record, (n = Object.keys(record).length));
  return n;
}

/** An artifact's fields (an object's), seed records (a seed's) and (`bytes`) JSON bytes, counted as the CLI counts them. */
export function weigh(type: string, body: unknown, bytes = true): DraftWeight {
  let fields = 0;
  let records = 0;
  if (isRecord(body)) {
    if (type === 'object' && isRecord(body.fields)) fields = keyCount(body.fields);
    if (type === 'seed') {
      const list = body.records ?? body.data ?? body.rows;
      if (Array.isArray(list)) records = list.length;
    }
  }
  return { fields, records, bytes: bytes ? jsonBytes(body) : 0 };
}

const n = (v: number): string => v.toLocaleString('en-US');
const label = (a: { type: string; name: string }) => `${a.type} ${JSON.stringify(a.name)}`;

/** A draft write refused for its size: 413, naming the artifact, the bound and the figure; nothing is written. */
const tooLarge = (message: string, path: string) => new ApiError('payload_too_large', message, [{ path, message }]);

/**
 * Refuses (413 `payload_too_large`) a draft (its body as staged, before expansion: an object keeps its
 * fields, a seed its records) that alone is past the CLI's bound for one input: more
 * fields than {@link INPUT_LIMITS}.fields or more seed records than `.records` (its bytes are
 * bounded by the request's body limit, far below `.fileBytes`). `at` is where the artifact is in
 * the request (`body`, `artifacts.3.body`).
 */
export function checkArtifactBounds(a: { readonly type: string; readonly name: string; readonly body: unknown }, at: string): void {
  const w = weigh(a.type, a.body, false);
  if (w.fields > INPUT_LIMITS.fields)
    throw tooLarge(
      `${label(a)} declares ${n(w.fields)} fields; a draft holds at most ${n(INPUT_LIMITS.fields)} (the bound bvl reads from one input). Split the object, or the app into packages; nothing was staged`,
      `${at}.fields`,
    );
  if (w.records > INPUT_LIMITS.records)
    throw tooLarge(
      `${label(a)} holds ${n(w.records)} seed records; a draft holds at most ${n(INPUT_LIMITS.records)} (the bound bvl reads from one input). Seed a sample, and load bulk data another way; nothing was staged`,
      `${at}.records`,
    );
}

/**
 * Refuses (413) a write that would take the package's drafts together past the CLI's bounds for one
 * input: {@link INPUT_LIMITS}.artifacts, `.fields`, `.records`, `.folderBytes`. `rows` is the store
 * as read before the write (the package's drafts in it count, less the slots the write replaces or
 * `dropped` discards); `adding` is what the write stages. The message names the write's artifacts,
 * the bound and the figure the package would reach.
 */
export function checkPackageBounds(pkg: string, rows: readonly OverlayRow[], adding: readonly RawArtifact[], dropped: ReadonlySet<string> = new Set()): void {
  const slot = (a: { type: string; name: string }) => `${a.type}\u0000${a.name}`;
  const replaced = new Set([...adding.map(slot), ...dropped]);
  let artifacts = 0;
  let fields = 0;
  let records = 0;
  let bytes = 0;
  const add = (type: string, body: unknown) => {
    const w = weigh(type, body);
    artifacts++;
    fields += w.fields;
    records += w.records;
    bytes += w.bytes;
  };
  for (const r of rows) if (r.state === 'draft' && r.package === pkg && !r.tombstone && !replaced.has(slot(r))) add(r.type, r.body);
  const before = { artifacts, fields, records, bytes };
  for (const a of adding) add(a.type, a.body);
  const what =
    adding.length === 1
      ? label(adding[0]!)
      : `these ${n(adding.length)} artifacts (${adding.slice(0, 3).map(label).join(', ')}${adding.length > 3 ? ', …' : ''})`;
  const over = (figure: number, had: number, bound: number, unit: string) =>
    tooLarge(
      `staging ${what} would bring package ${JSON.stringify(pkg)}'s drafts to ${n(figure)} ${unit} (${n(had)} staged before); a package's drafts hold at most ${n(bound)} (the bound bvl reads from one input). Publish or discard drafts first, or split the app into packages; nothing was staged`,
      'body',
    );
  if (artifacts > INPUT_LIMITS.artifacts) throw over(artifacts, before.artifacts, INPUT_LIMITS.artifacts, 'artifacts');
  if (fields > INPUT_LIMITS.fields) throw over(fields, before.fields, INPUT_LIMITS.fields, 'fields');
  if (records > INPUT_LIMITS.records) throw over(records, before.records, INPUT_LIMITS.records, 'seed records');
  if (bytes > INPUT_LIMITS.folderBytes) throw over(bytes, before.bytes, INPUT_LIMITS.folderBytes, 'bytes of JSON');
}
