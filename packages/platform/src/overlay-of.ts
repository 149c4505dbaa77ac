import type { LoadProblem, RawArtifact } from '@bvl/metadata';
import type { ItemState } from './database.ts';
import { fromStoredArtifact } from './stored-artifact.ts';

/** A metadata row as the overlay reads it. */
export interface OverlayRow {
  readonly type: string;
  readonly name: string;
  readonly package: string;
  readonly state: ItemState;
  readonly body: unknown;
  readonly source: unknown;
  /** A draft that retires the published artifact of its slot. */
  readonly tombstone?: boolean | undefined;
  /** The stored body's content hash, when read from the store. */
  readonly contentHash?: string | undefined;
}

/** The overlay's two halves, ready for `verify(published, drafts)` / `buildGraph(published, drafts)`. */
export interface Overlay {
  readonly published: { readonly artifacts: RawArtifact[]; readonly problems: LoadProblem[] };
  readonly drafts: { readonly artifacts: RawArtifact[]; readonly problems: LoadProblem[] };
  /** Published artifacts the drafts retire (tombstones): left out of `published`. */
  readonly retired: ReadonlyArray<{ readonly type: string; readonly name: string }>;
}

const slot = (type: string, name: string) => `${type}\u0000${name}`;

/**
 * The one place the store's overlay is assembled (verify_build reads it; publish gates and promotes
 * it): the tenant's active items ⊕ the drafts of `pkg` (of every package when `pkg` is undefined).
 * A draft of a slot that another package already publishes stays out, and is reported as one
 * `duplicate_artifact`: publishing it would make two packages own it. The owner's item stays in, so
 * nothing that reads it reports a cascade of follow-on errors. A tombstone draft retires its
 * package's published artifact: it is left out, so references to it dangle (as they will once
 * published).
 */
export function overlayOf(rows: readonly OverlayRow[], pkg: string | undefined): Overlay {
  const owners = new Map<string, string>();
  for (const r of rows) if (r.state === 'active') owners.set(slot(r.type, r.name), r.package);
  const tombstoned = new Set<string>();
  for (const r of rows) {
    if (r.state === 'draft' && r.tombstone && (pkg === undefined || r.package === pkg) && owners.get(slot(r.type, r.name)) === r.package)
      tombstoned.add(slot(r.type, r.name));
  }
  const published = rows.flatMap((r) => (r.state === 'active' && !tombstoned.has(slot(r.type, r.name)) ? (fromStoredArtifact(r, false) ?? []) : []));
  const drafts: RawArtifact[] = [];
  const problems: LoadProblem[] = [];
  for (const r of rows) {
    if (r.state !== 'draft' || r.tombstone || (pkg !== undefined && r.package !== pkg)) continue;
    const a = fromStoredArtifact(r, true);
    if (!a) continue;
    const owner = owners.get(slot(r.type, r.name));
    if (owner === undefined || owner === r.package) {
      drafts.push(a);
      continue;
    }
    problems.push({
      code: 'duplicate_artifact',
      type: a.type,
      name: a.name,
      message: `${a.type} "${a.name}" is already published by package "${owner}" of this tenant; package "${r.package}" cannot publish a second one.`,
      fix: `Rename the ${a.type} in package "${r.package}", or change it through package "${owner}".`,
      draft: true,
      source: a.source,
    });
  }
  const retired = rows.filter((r) => r.state === 'active' && tombstoned.has(slot(r.type, r.name))).map((r) => ({ type: r.type, name: r.name }));
  return { published: { artifacts: published, problems: [] }, drafts: { artifacts: drafts, problems }, retired };
}
