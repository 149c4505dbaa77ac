import type { Arity, ShapePart, ShapeRule, VariantShape } from './component-registry.ts';

/** A widget's query, as counts. */
export interface ShapeCounts {
  readonly dimensions: number;
  readonly measures: number;
}

/** One rule a query shape meets: the part that decided it, and its count. */
export interface ShapeFinding {
  readonly rule: ShapeRule;
  readonly part: ShapePart;
  readonly count: number;
  /** For a legacy count range: the range the count fell outside. */
  readonly arity?: Arity;
}

/** Counts per part. A chart draws one series per measure, or one per value of a second dimension when it has one measure. */
export function partCounts(c: ShapeCounts): Readonly<Record<ShapePart, number>> {
  return { dimensions: c.dimensions, measures: c.measures, columns: c.dimensions + c.measures, series: c.dimensions >= 2 && c.measures === 1 ? 2 : c.measures };
}

const within = (count: number, a: Arity): boolean => count >= (a.min ?? 0) && (a.max === undefined || count <= a.max);
const LEGACY_PARTS = ['dimensions', 'measures', 'columns'] as const;

/** A registry rule's `when` as entries, listed once per rule (every widget of a type asks for them). */
const partsOf = new WeakMap<ShapeRule, Array<[ShapePart, Arity]>>();
function whenParts(rule: ShapeRule): Array<[ShapePart, Arity]> {
  let parts = partsOf.get(rule);
  if (!parts) partsOf.set(rule, (parts = Object.entries(rule.when) as Array<[ShapePart, Arity]>));
  return parts;
}

/**
 * The rules of `shape` a query meets: the first legacy count range it falls outside (a refusal,
 * as the 2026-02 registry states shapes), then every rule whose `when` it satisfies, refusals first.
 */
export function shapeFindings(shape: VariantShape | undefined, counts: ShapeCounts): readonly ShapeFinding[] {
  if (!shape) return NONE;
  const { dimensions, measures } = counts;
  // Every widget of a type with the same counts meets the same rules: found once per shape and counts.
  if (!(Number.isInteger(dimensions) && Number.isInteger(measures) && dimensions >= 0 && measures >= 0 && dimensions < COUNT_LIMIT && measures < COUNT_LIMIT))
    return findAll(shape, counts);
  let byCounts = found.get(shape);
  if (!byCounts) found.set(shape, (byCounts = new Map()));
  const key = dimensions * COUNT_LIMIT + measures;
  let findings = byCounts.get(key);
  if (!findings) byCounts.set(key, (findings = Object.freeze(findAll(shape, counts))));
  return findings;
}

const NONE: readonly ShapeFinding[] = Object.freeze([]);
const COUNT_LIMIT = 2 ** 20;
const found = new WeakMap<VariantShape, Map<number, readonly ShapeFinding[]>>();

function findAll(shape: VariantShape, counts: ShapeCounts): ShapeFinding[] {
  const n = partCounts(counts);
  const out: ShapeFinding[] = [];
  for (const part of LEGACY_PARTS) {
    const arity = shape[part];
    if (!arity || within(n[part], arity)) continue;
    out.push({ rule: { when: { [part]: arity }, outcome: 'refuses', does: `it shows ${describeArity(arity)} ${part}` }, part, count: n[part], arity });
    break;
  }
  for (const rule of shape.rules ?? []) {
    const parts = whenParts(rule);
    if (parts.length === 0 || !parts.every(([part, a]) => within(n[part], a))) continue;
    out.push({ rule, part: parts[0]![0], count: n[parts[0]![0]] });
  }
  return out.sort((a, b) => (a.rule.outcome === b.rule.outcome ? 0 : a.rule.outcome === 'refuses' ? -1 : 1));
}

/** "exactly 1", "at least 1", "0 to 2", "no" — for messages. */
export function describeArity(arity: Arity): string {
  const min = arity.min ?? 0;
  if (arity.max === undefined) return `at least ${min}`;
  if (arity.max === 0) return 'no';
  if (min === arity.max) return `exactly ${min}`;
  return `${min} to ${arity.max}`;
}
