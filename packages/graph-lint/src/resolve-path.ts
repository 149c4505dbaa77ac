import { type FieldNode, type Graph, type ObjectNode, RELATION_TYPES, referenceOf, resolveField } from '@bvl/metadata';

/** Most relationship hops a dotted field path may take (ADR-0071). */
export const MAX_HOPS = 3;

/** Result of resolving `a.b.c` from an object. */
export type PathResolution =
  | { readonly ok: true; readonly field: FieldNode; readonly object: ObjectNode }
  | {
      readonly ok: false;
      readonly object: ObjectNode;
      readonly segment: string;
      readonly reason: 'unknown' | 'not_relation' | 'unknown_target' | 'too_deep' | 'opaque';
    };

/**
 * Resolves a possibly dotted field path (`account.owner.name`) from `object` through to-one relation
 * fields. `opaque` when a hop's target object is invalid (its fields cannot be judged).
 */
export function resolvePath(graph: Graph, object: ObjectNode, path: string): PathResolution {
  // Most paths are one field: no split.
  if (typeof path === 'string' && !path.includes('.')) {
    const field = resolveField(object, path);
    return field ? { ok: true, field, object } : { ok: false, object, segment: path, reason: 'unknown' };
  }
  const segments = path.split('.');
  let current = object;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if (i > MAX_HOPS) return { ok: false, object: current, segment: seg, reason: 'too_deep' };
    const field = resolveField(current, seg);
    if (!field) return { ok: false, object: current, segment: seg, reason: 'unknown' };
    if (i === segments.length - 1) return { ok: true, field, object: current };
    if (!RELATION_TYPES.has(field.def.type)) return { ok: false, object: current, segment: seg, reason: 'not_relation' };
    const target = referenceOf(field.def);
    const next = target ? graph.objects.get(target) : undefined;
    if (!next) return { ok: false, object: current, segment: seg, reason: 'unknown_target' };
    if (next.invalid) return { ok: false, object: next, segment: seg, reason: 'opaque' };
    current = next;
  }
  return { ok: false, object: current, segment: path, reason: 'unknown' };
}
