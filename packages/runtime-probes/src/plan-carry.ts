import type { ArtifactRef, BuildIssue } from '@bvl/build-issue';
import type { Graph } from '@bvl/metadata';
import type { Plane, SkippedProbe } from './probe-report.ts';

/** The probe result of the package's previous publish, as stored. */
export interface PreviousProbes {
  /** Its publish log id: it must be the package's publish right before this one. */
  readonly publishId: number;
  readonly issues: readonly BuildIssue[];
  readonly skipped: readonly SkippedProbe[];
  readonly unavailable: Partial<Record<Plane, string>>;
}

/** What a republish carries over from the previous probe result instead of probing again (see {@link planCarry}). */
export interface Carried {
  readonly publishId: number;
  /** `type\0name` of the artifacts whose probes are not run again: objects, seeds, views, dashboards. */
  readonly artifacts: ReadonlySet<string>;
  /** The previous result's issues about those artifacts: they stand. */
  readonly issues: readonly BuildIssue[];
}

/** What {@link planCarry} needs. */
export interface CarryInput {
  readonly graph: Graph;
  /** Artifacts the publish changed: new or changed content, retired, and each table its DDL changed (as an object). */
  readonly changed: ReadonlyArray<ArtifactRef>;
  /** Objects whose rows the publish's seeds inserted, changed, deleted or failed to write (a changed seed's object counts without being named here). */
  readonly seededObjects: ReadonlySet<string>;
  readonly previous: PreviousProbes | undefined;
}

const slot = (type: string, name: string): string => `${type}\u0000${name}`;

/** The reason a carried probe gives in the report's `skipped`. */
export const carriedReason = (publishId: number): string =>
  `unchanged since publish #${publishId}, as is everything it reads (its metadata, its tables, the rows seeds wrote): that publish's probe result for it stands`;

/**
 * Which probes of a republish need not run again (issue 21: probes scale with what changed): an
 * artifact the publish did not change, none of whose inputs it changed, that the previous publish's
 * probes checked. An object's inputs are its table, its seeds and the rows they wrote; a view reads
 * its object and the objects its lookups point at; a dashboard's widgets read their datasets and
 * what those read (the base object, its lookups, and each object an `include` or a dotted field
 * path walks to); a seed is judged from its object's rows and its own report. What the previous
 * result skipped, or a plane it could not probe, is probed again; so is everything when there is no
 * previous result. The previous result's issues about what is carried stand (and stay reported).
 * Pure.
 */
export function planCarry(input: CarryInput): Carried | undefined {
  const { graph, previous } = input;
  if (!previous) return undefined;
  const changed = new Set(input.changed.map((a) => slot(a.type, a.name)));
  const dirtyObjects = new Set<string>(input.seededObjects);
  for (const a of input.changed) {
    if (a.type === 'object') dirtyObjects.add(a.name);
    // A changed seed's records are its object's rows now.
    const seeded = a.type === 'seed' ? graph.seeds.get(a.name)?.object : undefined;
    if (seeded !== undefined) dirtyObjects.add(seeded);
  }
  const lookupsOf = (object: string): string[] => {
    const o = graph.objects.get(object);
    if (!o) return [];
    const out: string[] = [];
    for (const f of o.fields.values()) if (typeof f.def.reference === 'string') out.push(f.def.reference);
    return out;
  };
  // The objects a read of `object` touches: itself and its lookup targets, and those a path walks to.
  const reads = (object: string | undefined, paths: readonly string[] = []): string[] => {
    if (object === undefined) return [];
    const out = new Set([object, ...lookupsOf(object)]);
    for (const p of paths) {
      let at: string | undefined = object;
      for (const part of p.split('.')) {
        const ref: unknown = at === undefined ? undefined : graph.objects.get(at)?.fields.get(part)?.def.reference;
        if (typeof ref !== 'string') break;
        out.add(ref);
        at = ref;
      }
    }
    return [...out];
  };
  const clean = (objects: readonly string[]): boolean => objects.every((o) => !dirtyObjects.has(o) && graph.objects.has(o));
  const skippedBefore = new Set(previous.skipped.filter((s) => s.carriedFrom === undefined).map((s) => slot(s.artifact.type, s.artifact.name)));
  const usable = (plane: Plane, type: string, name: string): boolean =>
    previous.unavailable[plane] === undefined && !skippedBefore.has(slot(type, name)) && !changed.has(slot(type, name));

  const artifacts = new Set<string>();
  for (const o of graph.objects.values())
    if (!o.platform && usable('objects', 'object', o.name) && !dirtyObjects.has(o.name)) artifacts.add(slot('object', o.name));
  for (const s of graph.seeds.values()) if (usable('seeds', 'seed', s.name) && s.object !== undefined && clean([s.object])) artifacts.add(slot('seed', s.name));
  for (const v of graph.views.values())
    if (usable('views', 'view', v.name) && v.object !== undefined && clean(reads(v.object))) artifacts.add(slot('view', v.name));
  for (const d of graph.dashboards.values()) {
    if (!usable('widgets', 'dashboard', d.name)) continue;
    const ok = d.widgets.every((w) => {
      const name = typeof w.def.dataset === 'string' ? w.def.dataset : undefined;
      const ds = name === undefined ? undefined : graph.datasets.get(name);
      if (!ds || changed.has(slot('dataset', ds.name)) || ds.object === undefined) return false;
      const paths = [
        ...(ds.def.include ?? []),
        ...[...ds.dimensions.values()].flatMap((x) => (typeof x.field === 'string' ? [x.field] : [])),
        ...[...ds.measures.values()].flatMap((x) => (typeof x.field === 'string' ? [x.field] : [])),
      ];
      return clean(reads(ds.object, paths));
    });
    if (ok) artifacts.add(slot('dashboard', d.name));
  }
  const issues = previous.issues.filter((i) => i.layer === 'runtime' && artifacts.has(slot(i.artifact.type, i.artifact.name)));
  return { publishId: previous.publishId, artifacts, issues };
}
