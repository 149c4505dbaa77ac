import { type ObjectNode, optionValues, referenceOf, resolveField } from '@bvl/metadata';
import type { ResolvedField } from './component-schema.ts';

/**
 * Resolutions per object node: nodes are immutable, so a field resolves the same way every time.
 * Dropped by {@link forgetResolvedFields} when a check is done, or they would be held as long as
 * the graph is (the verification returns it).
 */
let cache = new WeakMap<ObjectNode, Map<string, ResolvedField>>();

/** Drops the memoized resolutions (checkRender, when it is done). */
export function forgetResolvedFields(): void {
  cache = new WeakMap();
}

/**
 * A field of `object` as a component sees it. Total: an unknown field (or a missing object)
 * resolves to `exists: false` with type `unknown`, because the renderer still gets the name.
 */
export function resolveFieldOf(object: ObjectNode | undefined, name: string, label?: string): ResolvedField {
  if (!object) return { name, label: label ?? name, type: 'unknown', exists: false };
  let byName = cache.get(object);
  if (!byName) cache.set(object, (byName = new Map()));
  let resolved = byName.get(name);
  if (!resolved) byName.set(name, (resolved = resolve(object, name)));
  return label === undefined || label === resolved.label ? resolved : { ...resolved, label };
}

function resolve(object: ObjectNode, name: string, label?: string): ResolvedField {
  const field = resolveField(object, name);
  if (!field) return { name, label: label ?? name, type: 'unknown', exists: false };
  const def = field.def;
  const values = optionValues(def);
  const options = values?.map((value, i) => {
    const o = def.options?.[i];
    return { value, label: typeof o === 'object' && o !== null && typeof o.label === 'string' ? o.label : value };
  });
  const reference = referenceOf(def);
  return {
    name,
    label: label ?? def.label ?? name,
    type: def.type,
    exists: true,
    ...(field.system ? { system: true } : {}),
    ...(def.required ? { required: true } : {}),
    ...(def.multiple ? { multiple: true } : {}),
    ...(reference ? { reference } : {}),
    ...(options ? { options } : {}),
  };
}
