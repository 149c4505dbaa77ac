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
 */
export function fastCheck(schema: z.ZodType): Check | null {
  if (checks.has(schema)) return checks.get(schema)!;
  checks.set(schema, null); // a cycle (z.lazy) is resolved lazily below; guard while compiling
  const check = compile(schema);
  checks.set(schema, check);
  return check;
}

function compile(schema: z.ZodType): Check | null {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const valueChecks = (def.checks as Array<{ _zod: { def: Record<string, unknown> } }> | undefined) ?? [];
  switch (def.type) {
    case 'unknown':
    case 'any':
      return valueChecks.length === 0 ? () => true : null;
    case 'boolean':
      return valueChecks.length === 0 ? (v) => typeof v === 'boolean' : null;
    case 'number':
      return valueChecks.length === 0 ? (v) => typeof v === 'number' && Number.isFinite(v) : null;
    case 'enum': {
      const values = new Set(Object.values(def.entries as Record<string, unknown>));
      return valueChecks.length === 0 ? (v) => values.has(v) : null;
    }
    case 'string': {
      const parts = valueChecks.map((c) => lengthOrPattern(c._zod.def));
      if (parts.some((p) => p === null)) return null;
      const all = parts as Check[];
      return (v) => {
        if (typeof v !== 'string') return false;
        for (const p of all) if (!p(v)) return false;
        return true;
      };
    }
    case 'array': {
      const element = fastCheck(def.element as z.ZodType);
      const parts = valueChecks.map((c) => arrayLength(c._zod.def));
      if (!element || parts.some((p) => p === null)) return null;
      const all = parts as Check[];
      return (v) => {
        if (!Array.isArray(v)) return false;
        for (const p of all) if (!p(v)) return false;
        for (let i = 0; i < v.length; i++) if (!element(v[i])) return false; // indices, not every(): holes are undefined to zod too
        return true;
      };
    }
    case 'object': {
      if (valueChecks.length > 0) return null;
      const shape = Object.entries((schema as unknown as z.ZodObject).shape).map(([k, s]) => [k, fastCheck(s as z.ZodType)] as const);
      if (shape.some(([, c]) => c === null)) return null;
      const keys = shape.map(([k]) => k);
      const values = shape.map(([, c]) => c as Check);
      // Loose and strip objects accept the same values: unknown keys are copied or dropped, never judged.
      const catchall = def.catchall as z.ZodType | undefined;
      if (catchall && catchall._zod.def.type !== 'unknown') return null;
      // A plain object's own value, or undefined: only a key Object.prototype also has needs hasOwn.
      const inherited = keys.map((k) => k in Object.prototype);
      return (v) => {
        if (!isPlainRecord(v)) return false;
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i]!;
          if (!values[i]!(inherited[i] && !Object.hasOwn(v, k) ? undefined : v[k])) return false;
        }
        return true;
      };
    }
    case 'record': {
      const key = def.keyType as z.ZodType;
      const value = fastCheck(def.valueType as z.ZodType);
      if (key._zod.def.type !== 'string' || ((key._zod.def as { checks?: unknown[] }).checks ?? []).length > 0 || !value || valueChecks.length > 0) return null;
      return (v) => {
        // zod judges symbol keys too (a string key schema rejects them): leave those to it.
        if (!isPlainRecord(v) || Object.getOwnPropertySymbols(v).length > 0) return false;
        for (const k in v) if (Object.hasOwn(v, k) && !value(v[k])) return false;
        return true;
      };
    }
    case 'optional': {
      const inner = fastCheck(def.innerType as z.ZodType);
      return inner ? (v) => v === undefined || inner(v) : null;
    }
    case 'default': {
      const inner = fastCheck(def.innerType as z.ZodType);
      return inner ? (v) => v === undefined || inner(v) : null;
    }
    case 'nullable': {
      const inner = fastCheck(def.innerType as z.ZodType);
      return inner ? (v) => v === null || inner(v) : null;
    }
    case 'union': {
      const options = (def.options as z.ZodType[]).map(fastCheck);
      if (options.some((o) => o === null)) return null;
      const all = options as Check[];
      return (v) => {
        for (const o of all) if (o(v)) return true;
        return false;
      };
    }
    case 'lazy': {
      const getter = def.getter as () => z.ZodType;
      let inner: Check | null | undefined;
      return (v) => {
        inner ??= fastCheck(getter());
        return inner?.(v) === true;
      };
    }
    case 'custom': {
      const fn = def.fn as ((v: unknown) => unknown) | undefined;
      return fn && valueChecks.length === 0 ? (v) => Boolean(fn(v)) : null;
    }
    default:
      return null;
  }
}

/** A string check: length (counted in UTF-16 units, never more lenient than zod's code points), a pattern or a refinement. */
function lengthOrPattern(c: Record<string, unknown>): Check | null {
  if (c.check === 'max_length') return (v) => (v as string).length <= (c.maximum as number);
  // A string of n units has at least ceil(n / 2) code points; below that only zod can count.
  if (c.check === 'min_length')
    return (v) => (v as string).length >= 2 * (c.minimum as number) || ((c.minimum as number) <= 1 && (v as string).length >= (c.minimum as number));
  // A refinement (FieldName's): zod's verdict is the function's, whatever its message.
  if (c.check === 'custom' && typeof c.fn === 'function' && c.when === undefined) {
    const fn = c.fn as (v: unknown) => unknown;
    return (v) => fn(v) === true;
  }
  if (c.check === 'string_format' && c.format === 'regex' && c.pattern instanceof RegExp) {
    const pattern = c.pattern;
    return (v) => {
      pattern.lastIndex = 0;
      return pattern.test(v as string);
    };
  }
  return null;
}

function arrayLength(c: Record<string, unknown>): Check | null {
  if (c.check === 'max_length') return (v) => (v as unknown[]).length <= (c.maximum as number);
  if (c.check === 'min_length') return (v) => (v as unknown[]).length >= (c.minimum as number);
  return null;
}

/**
 * Validates with the schema, taking the compiled {@link fastCheck} path when it proves the value
 * valid: the result is the schema's verdict and, on failure, its issues. Callers keep the raw value
 * as the definition, which is the schema's output wherever the schema has no defaults or transforms.
 */
export function validate(schema: z.ZodType, value: unknown): { success: true } | { success: false; error: z.ZodError } {
  const fast = fastCheck(schema);
  if (fast?.(value)) return { success: true };
  const r = schema.safeParse(value);
  return r.success ? { success: true } : { success: false, error: r.error };
}

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
