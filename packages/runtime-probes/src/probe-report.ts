import type { ArtifactRef, BuildIssue } from '@bvl/build-issue';

/** The planes L3 probes, in report order. */
export const PLANES = ['seeds', 'views', 'widgets', 'objects'] as const;
/** One of {@link PLANES}. */
export type Plane = (typeof PLANES)[number];

/** An artifact (or widget) that was not probed, and why. */
export interface SkippedProbe {
  readonly plane: Plane;
  readonly artifact: ArtifactRef;
  readonly member?: string;
  readonly reason: string;
  /** Not probed again: unchanged since this publish, whose result for it stands (see planCarry). */
  readonly carriedFrom?: number;
}

/**
 * What L3 did. Per plane: `total` artifacts of that plane in the graph, `checked` ones a query
 * actually ran for, `skipped` ones with their reason (total = checked + skipped), and
 * `unavailable` planes the runtime could not probe at all. So a plane that *found nothing*
 * (`total: 0`) reads differently from one that *probed nothing* (`total: 37, checked: 0`, and
 * `unavailable.widgets` says why).
 */
export interface ProbeReport {
  readonly issues: BuildIssue[];
  readonly checked: Record<Plane, number>;
  readonly total: Record<Plane, number>;
  readonly skipped: SkippedProbe[];
  readonly unavailable: Partial<Record<Plane, string>>;
}

/** A zero count per plane. */
export function zeroPlanes(): Record<Plane, number> {
  return { seeds: 0, views: 0, widgets: 0, objects: 0 };
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Skipped probes in a stable order: plane, artifact type, name, member. */
export function sortSkipped(skipped: readonly SkippedProbe[]): SkippedProbe[] {
  return [...skipped].sort(
    (a, b) =>
      PLANES.indexOf(a.plane) - PLANES.indexOf(b.plane) ||
      cmp(a.artifact.type, b.artifact.type) ||
      cmp(a.artifact.name, b.artifact.name) ||
      cmp(a.member ?? '', b.member ?? ''),
  );
}
