import { type ComponentRegistry, RegistryError, SHAPE_PARTS, TEMPLATES } from './component-registry.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((p) => typeof p === 'string');

/**
 * Checks a parsed registry file and returns it typed. Throws {@link RegistryError} naming the first
 * bad key: a broken registry must stop the tool, not silently pass every view.
 */
export function parseRegistry(raw: unknown): ComponentRegistry {
  const fail = (where: string, what: string): never => {
    throw new RegistryError(`component registry: ${where} ${what}`);
  };
  if (!isRecord(raw)) return fail('(root)', 'is not an object');
  if (typeof raw.name !== 'string') fail('name', 'must be a string');
  if (!isRecord(raw.components)) fail('components', 'must be an object');
  const components = raw.components as Record<string, unknown>;
  const checkArity = (where: string, a: unknown): void => {
    if (a === undefined) return;
    if (!isRecord(a)) fail(where, 'must be {min?, max?}');
    const r = a as Record<string, unknown>;
    for (const k of ['min', 'max'])
      if (r[k] !== undefined && !(Number.isInteger(r[k]) && (r[k] as number) >= 0)) fail(`${where}.${k}`, 'must be a non-negative integer');
  };
  const checkShape = (where: string, s: unknown): void => {
    if (s === undefined) return;
    if (!isRecord(s)) fail(where, 'must be an object');
    const shape = s as Record<string, unknown>;
    for (const k of ['dimensions', 'measures', 'columns']) checkArity(`${where}.${k}`, shape[k]);
    if (shape.rules === undefined) return;
    if (!Array.isArray(shape.rules)) fail(`${where}.rules`, 'must be an array');
    (shape.rules as unknown[]).forEach((rule, i) => {
      const w = `${where}.rules.${i}`;
      if (!isRecord(rule) || !isRecord(rule.when) || Object.keys(rule.when).length === 0) return fail(w, 'must be {when: {part: {min?, max?}}, outcome, does}');
      for (const [part, a] of Object.entries(rule.when)) {
        if (!(SHAPE_PARTS as readonly string[]).includes(part)) fail(`${w}.when.${part}`, `is not one of ${SHAPE_PARTS.join(', ')}`);
        checkArity(`${w}.when.${part}`, a);
      }
      if (rule.outcome !== 'refuses' && rule.outcome !== 'degrades') fail(`${w}.outcome`, 'must be refuses or degrades');
      if (typeof rule.does !== 'string') fail(`${w}.does`, 'must be a string');
      if (rule.drawAs !== undefined && !(isRecord(rule.drawAs) && typeof rule.drawAs.component === 'string'))
        fail(`${w}.drawAs`, 'must be {component, variant?}');
    });
  };
  for (const [type, entry] of Object.entries(components)) {
    if (!isRecord(entry)) fail(`components.${type}`, 'must be an object');
    const e = entry as Record<string, unknown>;
    if (e.template !== undefined && !(TEMPLATES as readonly unknown[]).includes(e.template))
      fail(`components.${type}.template`, `must be one of ${TEMPLATES.join(', ')}`);
    if (e.requiredProps !== undefined && !isStringArray(e.requiredProps)) fail(`components.${type}.requiredProps`, 'must be a string array');
    if (e.requires !== undefined && !(Array.isArray(e.requires) && e.requires.every(isStringArray)))
      fail(`components.${type}.requires`, 'must be an array of string arrays');
    if (e.missing !== undefined && !(isRecord(e.missing) && e.missing.outcome === 'refuses' && typeof e.missing.does === 'string'))
      fail(`components.${type}.missing`, 'must be {outcome: refuses, does}');
    checkShape(`components.${type}.shape`, e.shape);
    if (e.variants !== undefined) {
      if (!isRecord(e.variants) || typeof e.variantProp !== 'string') fail(`components.${type}.variants`, 'needs an object of shapes and a string variantProp');
      for (const [v, s] of Object.entries(e.variants as Record<string, unknown>)) checkShape(`components.${type}.variants.${v}`, s);
    }
  }
  const checkTypes = (where: string, family: unknown, extra: (w: string, e: Record<string, unknown>) => void): void => {
    if (!isRecord(family) || typeof family.default !== 'string' || !isRecord(family.types)) return fail(where, 'must be {default: string, types: {…}}');
    if (!Object.hasOwn(family.types, family.default)) fail(`${where}.default`, `"${family.default}" is not one of its types`);
    for (const [t, entry] of Object.entries(family.types)) {
      if (!isRecord(entry) || typeof entry.component !== 'string') fail(`${where}.types.${t}`, 'must have a string component');
      extra(`${where}.types.${t}`, entry as Record<string, unknown>);
    }
    const unknown = family.unknown;
    if (unknown === undefined) return;
    if (!isRecord(unknown)) return fail(`${where}.unknown`, 'must be an object');
    if (unknown.outcome === 'degrades') {
      if (typeof unknown.as !== 'string' || !Object.hasOwn(family.types, unknown.as)) fail(`${where}.unknown.as`, 'must name one of its types');
      if (typeof unknown.does !== 'string') fail(`${where}.unknown.does`, 'must be a string');
    } else if (unknown.outcome !== 'red-box') fail(`${where}.unknown.outcome`, 'must be red-box or degrades');
  };
  if (!isRecord(raw.views)) fail('views', 'must be an object');
  const views = raw.views as Record<string, unknown>;
  const viewExtra = (w: string, e: Record<string, unknown>): void => {
    if (e.block !== undefined && typeof e.block !== 'string') fail(`${w}.block`, 'must be a string');
    if (e.bind === undefined) return;
    if (!isRecord(e.bind) || e.block === undefined) fail(`${w}.bind`, 'must be an object, and needs a block');
    for (const [p, b] of Object.entries(e.bind as Record<string, unknown>)) {
      if (!isRecord(b) || typeof b.from !== 'string' || !['field', 'fields', 'value'].includes(b.kind as string))
        fail(`${w}.bind.${p}`, 'must be {from: string, kind: field|fields|value}');
      const spec = b as Record<string, unknown>;
      if (spec.infer !== undefined && spec.infer !== 'status-field') fail(`${w}.bind.${p}.infer`, 'must be status-field');
      if (
        spec.alsoFrom !== undefined &&
        !(Array.isArray(spec.alsoFrom) && spec.alsoFrom.every((a) => isRecord(a) && typeof a.block === 'string' && typeof a.from === 'string'))
      )
        fail(`${w}.bind.${p}.alsoFrom`, 'must be [{block, from}]');
    }
  };
  checkTypes('views.list', views.list, viewExtra);
  checkTypes('views.form', views.form, viewExtra);
  checkTypes('widgets', raw.widgets, (w, e) => {
    if (e.variant !== undefined && typeof e.variant !== 'string') fail(`${w}.variant`, 'must be a string');
  });
  return raw as unknown as ComponentRegistry;
}
