import type { ComponentSchema } from '../src/component-schema.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every field/dimension/measure name a schema's props mention, with its options when it has some. */
function names(schema: ComponentSchema): Map<string, string[] | undefined> {
  const out = new Map<string, string[] | undefined>();
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!isRecord(v)) return;
    if (typeof v.name === 'string') {
      const options = Array.isArray(v.options) ? v.options.flatMap((o) => (isRecord(o) && typeof o.value === 'string' ? [o.value] : [])) : undefined;
      out.set(v.name, options);
    }
    for (const [k, x] of Object.entries(v)) if (k !== 'options') visit(x);
  };
  visit(schema.props);
  for (const key of ['values', 'dimensions'])
    for (const n of Array.isArray(schema.props[key]) ? (schema.props[key] as unknown[]) : []) if (typeof n === 'string') out.set(n, undefined);
  return out;
}

/** `count` deterministic rows for a schema, each value derived from `text` (so hostile text can be injected). */
export function sampleRows(
  schema: ComponentSchema,
  count = 2,
  text: (name: string, i: number) => string = (n, i) => `${n} ${i}`,
): Array<Record<string, unknown>> {
  const fields = names(schema);
  return Array.from({ length: count }, (_, i) => {
    const row: Record<string, unknown> = {};
    for (const [name, options] of fields) row[name] = options?.length ? options[i % options.length] : text(name, i);
    return row;
  });
}
