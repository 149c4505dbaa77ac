import { z } from 'zod';

// Schemas are tolerant (unknown keys pass through) but typed where a wrong type makes the artifact
// unusable. Semantic checks (does this name resolve?) belong to the rules, not here.

type Check = (value: unknown) => boolean;
const checks = new WeakMap<z.ZodType, Check | null>();
const isPlainRecord = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * A plain predicate compiled from a schema's definition, for the common case of a valid body: when it
 * returns true the schema accepts the value; when it returns false, only the schema can tell (and
 * tell why). It is never looser than the schema — wherever it cannot match zod exactly it is stricter
 * (plain objects only; string lengths by UTF-16 units) — and a kind of schema or check it does not
 * know makes it `null`, so the schema alone is used. Zod allocates a result for every value it
 * visits; for tens of thousands of artifacts that was most of buildGraph's time and garbage.
 *
 * The predicate is generated as one JavaScript function per schema (objects, arrays, records,
 * strings and optionals inlined; unions, lazy and custom schemas called), which V8 runs several
 * times faster than a tree of closures: validation was the largest single cost of `verify`.
 */
export function fastCheck(schema: z.ZodType): Check | null {
  if (checks.has(schema)) return checks.get(schema)!;
  checks.set(schema, null); // a cycle (z.lazy) is resolved lazily below; guard while compiling
  const check = compileCheck(schema);
  checks.set(schema, check);
  return check;
}

/** The source of one generated predicate: its statements, and the values they refer to (ext[i]). */
class Gen {
  readonly ext: unknown[] = [];
  private vars = 0;
  /** A value the generated code refers to, as an expression. */
  ref(value: unknown): string {
    this.ext.push(value);
    return `ext[${this.ext.length - 1}]`;
  }
  fresh(): string {
    return `v${++this.vars}`;
  }
}

function compileCheck(schema: z.ZodType): Check | null {
  const gen = new Gen();
  const body = statements(gen, schema, 'v0');
  if (body === null) return null;
  // The source is generated from schema definitions only (never from input), see statements().
  // Where code generation is disallowed (--disallow-code-generation-from-strings), zod alone judges.
  try {
    const make = new Function('ext', 'isPlainRecord', `return function check(v0) {\n${body}\nreturn true;\n};`) as (
      ext: unknown[],
      plain: typeof isPlainRecord,
    ) => Check;
    return make(gen.ext, isPlainRecord);
  } catch {
    return null;
  }
}

/** A predicate for a nested schema, as an expression calling it (unions, lazy: tried as a whole). */
function callOf(gen: Gen, schema: z.ZodType, v: string): string | null {
  const check = fastCheck(schema);
  return check ? `${gen.ref(check)}(${v})` : null;
}

/**
 * Statements that `return false` unless the value in variable `v` passes `schema`, or null when
 * the schema has a kind or check this compiler does not know. Only names, numbers and JSON string
 * literals of the definition's keys reach the source; patterns, sets and functions are referenced.
 */
function statements(gen: Gen, schema: z.ZodType, v: string): string | null {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const valueChecks = (def.checks as Array<{ _zod: { def: Record<string, unknown> } }> | undefined) ?? [];
  switch (def.type) {
    case 'unknown':
    case 'any':
      return valueChecks.length === 0 ? '' : null;
    case 'boolean':
      return valueChecks.length === 0 ? `if (typeof ${v} !== 'boolean') return false;` : null;
    case 'number':
      return valueChecks.length === 0 ? `if (typeof ${v} !== 'number' || !Number.isFinite(${v})) return false;` : null;
    case 'enum': {
      const values = new Set(Object.values(def.entries as Record<string, unknown>));
      return valueChecks.length === 0 ? `if (!${gen.ref(values)}.has(${v})) return false;` : null;
    }
    case 'string': {
      const parts = valueChecks.map((c) => lengthOrPattern(gen, c._zod.def, v));
      if (parts.some((p) => p === null)) return null;
      return [`if (typeof ${v} !== 'string') return false;`, ...parts].join('\n');
    }
    case 'array': {
      const parts = valueChecks.map((c) => arrayLength(c._zod.def, v));
      const e = gen.fresh();
      const i = gen.fresh();
      const element = statements(gen, def.element as z.ZodType, e);
      if (element === null || parts.some((p) => p === null)) return null;
      // Indices, not every(): holes are undefined to zod too.
      return [
        `if (!Array.isArray(${v})) return false;`,
        ...parts,
        element === '' ? '' : `for (let ${i} = 0; ${i} < ${v}.length; ${i}++) {\nconst ${e} = ${v}[${i}];\n${element}\n}`,
      ].join('\n');
    }
    case 'object': {
      if (valueChecks.length > 0) return null;
      // Loose and strip objects accept the same values: unknown keys are copied or dropped, never judged.
      const catchall = def.catchall as z.ZodType | undefined;
      if (catchall && catchall._zod.def.type !== 'unknown') return null;
      const out = [`if (!isPlainRecord(${v})) return false;`];
      for (const [k, s] of Object.entries((schema as unknown as z.ZodObject).shape)) {
        const m = gen.fresh();
        const inner = statements(gen, s as z.ZodType, m);
        if (inner === null) return null;
        if (inner === '') continue;
        // zod reads `value[key]`, inherited members too: `{}` has a `constructor` (a function) to it.
        out.push(`{\nconst ${m} = ${v}[${JSON.stringify(k)}];\n${inner}\n}`);
      }
      return out.join('\n');
    }
    case 'record': {
      const key = def.keyType as z.ZodType;
      if (key._zod.def.type !== 'string' || ((key._zod.def as { checks?: unknown[] }).checks ?? []).length > 0 || valueChecks.length > 0) return null;
      const k = gen.fresh();
      const m = gen.fresh();
      const value = statements(gen, def.valueType as z.ZodType, m);
      if (value === null) return null;
      // zod judges symbol keys too (a string key schema rejects them): leave those to it.
      return [
        `if (!isPlainRecord(${v}) || Object.getOwnPropertySymbols(${v}).length > 0) return false;`,
        value === '' ? '' : `for (const ${k} in ${v}) {\nif (!Object.hasOwn(${v}, ${k})) continue;\nconst ${m} = ${v}[${k}];\n${value}\n}`,
      ].join('\n');
    }
    case 'optional':
    case 'default': {
      const inner = statements(gen, def.innerType as z.ZodType, v);
      return inner === null ? null : inner === '' ? '' : `if (${v} !== undefined) {\n${inner}\n}`;
    }
    case 'nullable': {
      const inner = statements(gen, def.innerType as z.ZodType, v);
      return inner === null ? null : inner === '' ? '' : `if (${v} !== null) {\n${inner}\n}`;
    }
    case 'union': {
      const options = (def.options as z.ZodType[]).map((o) => callOf(gen, o, v));
      if (options.some((o) => o === null)) return null;
      return `if (!(${options.join(' || ')})) return false;`;
    }
    case 'lazy': {
      const getter = def.getter as () => z.ZodType;
      let inner: Check | null | undefined;
      const lazy: Check = (x) => {
        inner ??= fastCheck(getter());
        return inner?.(x) === true;
      };
      return `if (!${gen.ref(lazy)}(${v})) return false;`;
    }
    case 'custom': {
      const fn = def.fn as ((v: unknown) => unknown) | undefined;
      return fn && valueChecks.length === 0 ? `if (!${gen.ref(fn)}(${v})) return false;` : null;
    }
    default:
      return null;
  }
}

const integer = (n: unknown): number | null => (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null);

/** A string check: length (counted in UTF-16 units, never more lenient than zod's code points), a pattern or a refinement. */
function lengthOrPattern(gen: Gen, c: Record<string, unknown>, v: string): string | null {
  if (c.check === 'max_length') {
    const max = integer(c.maximum);
    return max === null ? null : `if (${v}.length > ${max}) return false;`;
  }
  // A string of n units has at least ceil(n / 2) code points; below that only zod can count.
  if (c.check === 'min_length') {
    const min = integer(c.minimum);
    if (min === null) return null;
    return min <= 1 ? `if (${v}.length < ${min}) return false;` : `if (${v}.length < ${2 * min}) return false;`;
  }
  // A refinement (FieldName's): zod's verdict is the function's, whatever its message.
  if (c.check === 'custom' && typeof c.fn === 'function' && c.when === undefined) {
    return `if (${gen.ref(c.fn)}(${v}) !== true) return false;`;
  }
  if (c.check === 'string_format' && c.format === 'regex' && c.pattern instanceof RegExp) {
    const pattern = gen.ref(c.pattern);
    return c.pattern.global || c.pattern.sticky
      ? `${pattern}.lastIndex = 0;\nif (!${pattern}.test(${v})) return false;`
      : `if (!${pattern}.test(${v})) return false;`;
  }
  return null;
}

function arrayLength(c: Record<string, unknown>, v: string): string | null {
  const n = integer(c.check === 'max_length' ? c.maximum : c.minimum);
  if (n === null) return null;
  if (c.check === 'max_length') return `if (${v}.length > ${n}) return false;`;
  if (c.check === 'min_length') return `if (${v}.length < ${n}) return false;`;
  return null;
}

/**
 * Validates with the schema, taking the compiled {@link fastCheck} path when it proves the value
 * valid: the result is the schema's verdict and, on failure, its issues. Callers keep the raw value
 * as the definition, which is the schema's output wherever the schema has no defaults or transforms.
 */
export function validate(schema: z.ZodType, value: unknown): { readonly success: true } | { readonly success: false; readonly error: z.ZodError } {
  const fast = fastCheck(schema);
  if (fast?.(value)) return VALID;
  const r = schema.safeParse(value);
  return r.success ? VALID : { success: false, error: r.error };
}
const VALID = Object.freeze({ success: true } as const);

/** A name that becomes a SQL identifier: snake_case, at most 63 bytes (Postgres' limit). */
export const SnakeName = z
  .string()
  .min(1)
  .max(63, 'must be at most 63 characters (a Postgres identifier)')
  .regex(/^[a-z_][a-z0-9_]*$/, 'must be snake_case: lowercase letters, digits and _ , starting with a letter or _');

/**
 * The names of the columns bvl adds to a tenant's tables while a type change is published (the
 * platform's shadow-columns.ts): `bvl_sh_` (shadow) or `bvl_rt_` (retired) and 24 hex digits.
 */
export const BVL_COLUMN = /^bvl_(sh|rt)_([0-9a-f]{24})$/;

/** What is wrong with a field named like {@link BVL_COLUMN}, and what to do about it. */
export const BVL_COLUMN_PROBLEM = 'is one bvl keeps for the columns it adds during a type change (bvl_sh_ or bvl_rt_ and 24 hex digits)';
export const BVL_COLUMN_FIX =
  'Rename the field: a name of bvl_sh_ or bvl_rt_ and 24 hex digits is taken by the columns bvl adds while a type change is published.';

/** A field's name: a {@link SnakeName} that is not one bvl keeps for its own columns ({@link BVL_COLUMN}). */
export const FieldName = SnakeName.refine((name) => !BVL_COLUMN.test(name), `${BVL_COLUMN_PROBLEM}; rename the field`);

/** A metadata name that is not a SQL identifier (measures, widget ids, view keys, …). */
export const LooseName = z
  .string()
  .min(1)
  .max(128, 'must be at most 128 characters')
  .regex(/^[A-Za-z_][A-Za-z0-9_.:-]*$/, 'must start with a letter or _ and contain only letters, digits, _ . : -');

/** ObjectStack's FieldType enum (packages/spec/src/data/field.zod.ts). */
export const FIELD_TYPES = [
  'text',
  'textarea',
  'email',
  'url',
  'phone',
  'password',
  'secret',
  'markdown',
  'html',
  'richtext',
  'number',
  'currency',
  'percent',
  'date',
  'datetime',
  'time',
  'boolean',
  'toggle',
  'select',
  'multiselect',
  'radio',
  'checkboxes',
  'lookup',
  'master_detail',
  'tree',
  'user',
  'image',
  'file',
  'avatar',
  'video',
  'audio',
  'formula',
  'summary',
  'autonumber',
  'composite',
  'repeater',
  'record',
  'location',
  'address',
  'code',
  'json',
  'color',
  'rating',
  'slider',
  'signature',
  'qrcode',
  'progress',
  'tags',
  'vector',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** A select option: `{label, value}` or a bare value. */
// Object first: it is the common shape, and a failed union branch costs an issue allocation.
/** Option values are SystemIdentifiers: lowercase, as ObjectStack's SelectOptionSchema requires (mixed case is rejected). */
const OptionValue = z.union([
  z.string().regex(/^[a-z][a-z0-9_.]*$/, 'option values must be lowercase identifiers (a-z, 0-9, _ and .), e.g. "in_progress" for "In Progress"'),
  z.number(),
  z.boolean(),
]);
export const SelectOptionSchema = z.union([z.looseObject({ label: z.string().optional(), value: OptionValue }), z.string(), z.number(), z.boolean()]);

export const FieldSchema = z.looseObject({
  type: z.enum(FIELD_TYPES),
  name: z.string().optional(),
  label: z.string().optional(),
  required: z.boolean().optional(),
  multiple: z.boolean().optional(),
  reference: z.string().optional(),
  options: z.array(SelectOptionSchema).optional(),
  externalId: z.boolean().optional(),
  expression: z.unknown().optional(),
  summaryOperations: z.unknown().optional(),
  defaultValue: z.unknown().optional(),
});
export type FieldDef = z.infer<typeof FieldSchema>;

/** An object. Fields are validated one by one (see buildGraph), so one bad field spoils only itself. */
export const ObjectShellSchema = z.looseObject({
  name: SnakeName,
  label: z.string().optional(),
  nameField: z.string().optional(),
  ownership: z.string().optional(),
  fields: z.record(z.string(), z.unknown()).optional(),
});
export type ObjectDef = z.infer<typeof ObjectShellSchema> & { fields?: Record<string, FieldDef> };

const ColumnSchema = z.union([z.string(), z.looseObject({ field: z.string() })]);
const FilterRowSchema = z.looseObject({ field: z.string(), operator: z.string().optional(), value: z.unknown().optional() });
const SortEntrySchema = z.union([z.string(), z.looseObject({ field: z.string(), order: z.string().optional(), direction: z.string().optional() })]);
const DataSchema = z.looseObject({
  provider: z.string().optional(),
  object: z.string().optional(),
  objectName: z.string().optional(),
});
const Block = z.looseObject({});

/** ListView (packages/spec/src/ui/view.zod.ts ListViewSchema). `type` stays a string: L2 judges it. */
export const ListViewSchema = z.looseObject({
  type: z.string().optional(),
  label: z.string().optional(),
  data: DataSchema.optional(),
  objectName: z.string().optional(),
  object: z.string().optional(),
  columns: z.array(ColumnSchema).optional(),
  filter: z.union([z.array(FilterRowSchema), z.record(z.string(), z.unknown())]).optional(),
  sort: z.union([z.string(), z.array(SortEntrySchema)]).optional(),
  searchableFields: z.array(z.string()).optional(),
  grouping: z.looseObject({ fields: z.array(z.union([z.string(), z.looseObject({ field: z.string() })])).optional() }).optional(),
  kanban: Block.optional(),
  calendar: Block.optional(),
  timeline: Block.optional(),
  gantt: Block.optional(),
  gallery: Block.optional(),
  map: Block.optional(),
  tree: Block.optional(),
  chart: Block.optional(),
});
export type ListViewDef = z.infer<typeof ListViewSchema>;

const FormFieldSchema = z.union([z.string(), z.looseObject({ field: z.string() })]);
const SectionSchema = z.looseObject({ name: z.string().optional(), label: z.string().optional(), fields: z.array(FormFieldSchema).optional() });

/** FormView (FormViewSchema); `groups` is an alias of `sections`. */
export const FormViewSchema = z.looseObject({
  type: z.string().optional(),
  data: DataSchema.optional(),
  objectName: z.string().optional(),
  object: z.string().optional(),
  sections: z.array(SectionSchema).optional(),
  groups: z.array(SectionSchema).optional(),
});
export type FormViewDef = z.infer<typeof FormViewSchema>;

const FilterConditionSchema = z.record(z.string(), z.unknown());

export const WidgetSchema = z.looseObject({
  id: LooseName,
  type: z.string().optional(),
  title: z.string().optional(),
  dataset: z.string().optional(),
  dimensions: z.array(z.string()).optional(),
  values: z.array(z.string()).optional(),
  filter: FilterConditionSchema.optional(),
  filterBindings: z.record(z.string(), z.union([z.boolean(), z.string()])).optional(),
  chartConfig: z
    .looseObject({
      type: z.string().optional(),
      xAxis: z.looseObject({ field: z.string().optional() }).optional(),
      yAxis: z.union([z.array(z.looseObject({ field: z.string().optional() })), z.looseObject({ field: z.string().optional() })]).optional(),
      series: z.array(z.looseObject({ name: z.string().optional(), field: z.string().optional() })).optional(),
    })
    .optional(),
  options: z.record(z.string(), z.unknown()).optional(),
});
export type WidgetDef = z.infer<typeof WidgetSchema>;

/** A dashboard. Widgets are validated one by one (see buildGraph). */
export const DashboardShellSchema = z.looseObject({
  name: SnakeName,
  label: z.string().optional(),
  widgets: z.array(z.unknown()),
  dateRange: z.looseObject({ field: z.string().optional() }).optional(),
  globalFilters: z
    .array(
      z.looseObject({
        name: z.string().optional(),
        field: z.string(),
        object: z.string().optional(),
        scope: z.string().optional(),
        targetWidgets: z.array(z.string()).optional(),
      }),
    )
    .optional(),
});
export type DashboardDef = z.infer<typeof DashboardShellSchema>;

export const AGGREGATES = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max'] as const;
export const DERIVED_OPS = ['ratio', 'sum', 'difference', 'product'] as const;
export const DATE_GRANULARITIES = ['day', 'week', 'month', 'quarter', 'year'] as const;

export const DimensionSchema = z.looseObject({
  name: LooseName,
  label: z.string().optional(),
  field: z.string().min(1),
  type: z.string().optional(),
  dateGranularity: z.enum(DATE_GRANULARITIES).optional(),
});
export const MeasureSchema = z.looseObject({
  name: LooseName,
  label: z.string().optional(),
  aggregate: z.enum(AGGREGATES).optional(),
  field: z.string().optional(),
  filter: FilterConditionSchema.optional(),
  derived: z.looseObject({ op: z.enum(DERIVED_OPS), of: z.array(z.string()).min(1) }).optional(),
});
export type DimensionDef = z.infer<typeof DimensionSchema>;
export type MeasureDef = z.infer<typeof MeasureSchema>;

/** A dataset (ADR-0021/0071); `source`/`objectName` are aliases of `object`. */
export const DatasetSchema = z.looseObject({
  name: SnakeName,
  label: z.string().optional(),
  object: z.string().optional(),
  source: z.string().optional(),
  objectName: z.string().optional(),
  include: z.array(z.string()).optional(),
  filter: FilterConditionSchema.optional(),
  dimensions: z.array(DimensionSchema).default([]),
  measures: z.array(MeasureSchema).default([]),
});
export type DatasetDef = z.infer<typeof DatasetSchema>;

/** A navigation item; `group` items nest `children` (depth is bounded before parsing). */
export interface NavItemDef {
  id?: string | undefined;
  type: string;
  label?: string | undefined;
  objectName?: string | undefined;
  viewName?: string | undefined;
  dashboardName?: string | undefined;
  reportName?: string | undefined;
  pageName?: string | undefined;
  children?: NavItemDef[] | undefined;
  [key: string]: unknown;
}
export const NavItemSchema: z.ZodType<NavItemDef> = z.lazy(() =>
  z.looseObject({
    id: z.string().optional(),
    type: z.string(),
    label: z.string().optional(),
    objectName: z.string().optional(),
    viewName: z.string().optional(),
    dashboardName: z.string().optional(),
    reportName: z.string().optional(),
    pageName: z.string().optional(),
    children: z.array(NavItemSchema).optional(),
  }),
);

export const AppSchema = z.looseObject({
  name: SnakeName,
  label: z.string().optional(),
  navigation: z.array(NavItemSchema).optional(),
  areas: z.array(z.looseObject({ id: z.string().optional(), navigation: z.array(NavItemSchema).optional() })).optional(),
});
export type AppDef = z.infer<typeof AppSchema>;

export const SEED_MODES = ['insert', 'update', 'upsert', 'replace', 'ignore'] as const;
/** A seed; `data`/`rows` alias `records`, `key` aliases `externalId` (normalized by buildGraph). */
export const SeedSchema = z.looseObject({
  object: SnakeName,
  externalId: z.union([z.string(), z.array(z.string()).min(1)]).optional(),
  mode: z.enum(SEED_MODES).optional(),
  env: z.array(z.string()).optional(),
  records: z.array(z.record(z.string(), z.unknown())),
});
export type SeedDef = z.infer<typeof SeedSchema>;

/** Reports and pages are only nav targets here: their name is what matters. */
export const NamedSchema = z.looseObject({ name: z.string().min(1) });

/**
 * The named windows a dashboard date filter offers (ObjectStack `data/date-range-presets.ts`):
 * valid as `dateRange.defaultRange` and a date global filter's `defaultValue`, where the console
 * lowers them to date macros — and nowhere else (#8690: a bare preset as a filter comparand
 * matches nothing).
 */
export const DATE_RANGE_PRESETS = [
  'today',
  'yesterday',
  'this_week',
  'last_week',
  'this_month',
  'last_month',
  'this_quarter',
  'last_quarter',
  'this_year',
  'last_year',
  'last_7_days',
  'last_30_days',
  'last_90_days',
] as const;
export type DateRangePreset = (typeof DATE_RANGE_PRESETS)[number];

/** Each preset's window as date macros: [start, end] (end null: open up to now). */
export const DATE_RANGE_PRESET_WINDOWS: Readonly<Record<DateRangePreset, readonly [string, string | null]>> = {
  today: ['{today}', null],
  yesterday: ['{yesterday}', '{today}'],
  this_week: ['{week_start}', '{week_end}'],
  last_week: ['{last_week_start}', '{last_week_end}'],
  this_month: ['{month_start}', '{month_end}'],
  last_month: ['{last_month_start}', '{last_month_end}'],
  this_quarter: ['{quarter_start}', '{quarter_end}'],
  last_quarter: ['{last_quarter_start}', '{last_quarter_end}'],
  this_year: ['{year_start}', '{year_end}'],
  last_year: ['{last_year_start}', '{last_year_end}'],
  last_7_days: ['{7_days_ago}', null],
  last_30_days: ['{30_days_ago}', null],
  last_90_days: ['{90_days_ago}', null],
};

/** Whether `value` is a dashboard date-range preset name. */
export function isDateRangePreset(value: unknown): value is DateRangePreset {
  return typeof value === 'string' && (DATE_RANGE_PRESETS as readonly string[]).includes(value);
}

/** One option of a field whose value is not a lowercase identifier, and the value ObjectStack's Field.select would store for it. */
export interface BadOptionValue {
  /** Where the value sits inside the field: `["options", 2, "value"]`, or `["options", 2]` for a bare value. */
  readonly at: readonly (string | number)[];
  readonly value: unknown;
  /** The stored spelling (`In Progress` → `in_progress`), when there is one. */
  readonly suggestion?: string | undefined;
}

const OPTION_VALUE = /^[a-z][a-z0-9_.]*$/;

/**
 * Every option of a field whose string value is not a lowercase identifier (SelectOptionSchema),
 * with the value Field.select would derive from it (lowercase, spaces to `_`, other characters
 * dropped) — so one issue can name them all.
 */
export function badOptionValues(field: unknown): BadOptionValue[] {
  const options = typeof field === 'object' && field !== null ? (field as { options?: unknown }).options : undefined;
  if (!Array.isArray(options)) return [];
  const out: BadOptionValue[] = [];
  options.forEach((o, i) => {
    const bare = typeof o !== 'object' || o === null;
    const value = bare ? o : (o as { value?: unknown }).value;
    if (typeof value !== 'string' || OPTION_VALUE.test(value)) return;
    const derived = value
      .toLowerCase()
      .replace(/\s+/g, '_')
      .replace(/[^a-z0-9_.]/g, '');
    out.push({ at: bare ? ['options', i] : ['options', i, 'value'], value, ...(OPTION_VALUE.test(derived) ? { suggestion: derived } : {}) });
  });
  return out;
}
