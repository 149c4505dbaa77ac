import { type Graph, resolveField } from '@bvl/metadata';
import { isIdentifier } from './identifier.ts';

/**
 * The field a lookup value is matched against on `target` (ObjectStack seed-loader l.338–348):
 * the target seed's externalId (a single field), else a field the object flags `externalId: true`,
 * else `name`. Undefined when none exists; the value is then only tried as an id. Pure.
 */
export function naturalKeyOf(graph: Graph, target: string): string | undefined {
  const object = graph.objects.get(target);
  if (!object) return undefined;
  const usable = (f: string | undefined): f is string => f !== undefined && isIdentifier(f) && resolveField(object, f) !== undefined;
  for (const seed of graph.seedsByObject.get(target) ?? []) {
    if (!seed.invalid && seed.externalId.length === 1 && usable(seed.externalId[0])) return seed.externalId[0];
  }
  for (const field of object.fields.values()) if (field.def.externalId === true && usable(field.name)) return field.name;
  return usable('name') ? 'name' : undefined;
}
