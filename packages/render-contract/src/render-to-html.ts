import { type ComponentRegistry, isRegistered, missingBindings, shapeOf, type Template } from './component-registry.ts';
import type { ComponentSchema, ResolvedField } from './component-schema.ts';
import { escapeHtml as e } from './escape-html.ts';
import { DEFAULT_REGISTRY } from './renderer-profiles.ts';
import { describeArity, shapeFindings } from './shape-findings.ts';

/** Rows to draw (records for views, query rows for widgets); without them components draw their empty state. */
export interface RenderData {
  readonly rows?: ReadonlyArray<Readonly<Record<string, unknown>>>;
}

/** Render options: the component registry the renderer knows (default objectui's). */
export interface RenderOptions {
  readonly registry?: ComponentRegistry;
}

/** The red box a renderer draws for a schema whose type it cannot resolve (objectui SchemaRenderer). */
export function renderErrorBox(type: string | undefined): string {
  return `<div class="bvl-render-error" role="alert">Unknown component type: ${e(type ?? '(none)')}</div>`;
}

/**
 * The reference renderer: semantic, accessible HTML for every registered component it has a
 * template for, escaped everywhere. An unknown or missing type draws the red error box; a
 * component missing a required binding prop, or given a query shape it refuses, draws an empty
 * widget (`bvl-empty-widget`) — what a real renderer's refusal or silent fallback amounts to; one
 * drawn in place of what was authored (another type, a picked field, part of the query) carries a
 * visible note (`bvl-degraded`).
 */
export function renderToHtml(schema: ComponentSchema, data?: RenderData, options: RenderOptions = {}): string {
  const registry = options.registry ?? DEFAULT_REGISTRY;
  if (!isRegistered(registry, schema.type)) return renderErrorBox(schema.type);
  const type = schema.type;
  const entry = registry.components[type] ?? {};
  const props = schema.props;
  const label = text(props.label ?? props.title ?? schema.id);
  const attrs = `data-bvl-component="${e(type)}" data-bvl-id="${e(schema.id)}"`;
  const missing = missingBindings(entry, (p) => props[p] !== undefined);
  if (missing) {
    const why = entry.missing ? entry.missing.does : `no ${missing.join(', ')} is bound`;
    return `<div class="bvl-empty-widget" role="status" ${attrs}>${e(label)}: nothing to show, ${e(why)}.</div>`;
  }
  const variant = entry.variantProp ? props[entry.variantProp] : undefined;
  const findings = shapeFindings(shapeOf(registry, type, variant), { dimensions: arrayOf(props.dimensions).length, measures: arrayOf(props.measures).length });
  const refusal = findings.find((f) => f.rule.outcome === 'refuses');
  if (refusal) {
    const why = refusal.arity ? `a ${String(variant ?? type)} needs ${describeArity(refusal.arity)} ${refusal.part}` : refusal.rule.does;
    return `<div class="bvl-empty-widget" role="status" ${attrs}>${e(label)}: nothing to show, ${e(why)}.</div>`;
  }
  // What the user sees instead of what was authored, said where they see it.
  const notes = [
    ...(isRecord(props.substitutedFor) ? [text(props.substitutedFor.does)] : []),
    ...(isRecord(props.inferred) ? Object.entries(props.inferred).map(([prop, field]) => `${prop} is the field "${text(field)}" the renderer picked`) : []),
    ...findings.filter((f) => !f.rule.drawAs).map((f) => f.rule.does),
  ];
  const degraded = notes.map((n) => `<p class="bvl-degraded" role="note">${e(n)}</p>`).join('');
  if (!entry.template) return `<section class="bvl-component" ${attrs} aria-label="${e(label)}">${degraded}</section>`;
  const body = TEMPLATES[entry.template]({ props, rows: data?.rows, id: schema.id, label });
  return `<section class="bvl-component bvl-${entry.template}" ${attrs} aria-label="${e(label)}">${degraded}${body}</section>`;
}

interface TemplateInput {
  readonly props: Readonly<Record<string, unknown>>;
  readonly rows: ReadonlyArray<Readonly<Record<string, unknown>>> | undefined;
  readonly id: string;
  readonly label: string;
}

const TEMPLATES = {
  grid: ({ props, rows, label }) => {
    const columns = fieldsOf(props.columns);
    const tree = field(props.parentField);
    return `<table${tree ? ` data-bvl-tree-parent="${e(tree.name)}"` : ''}><caption>${e(label)}</caption>${fieldTable(columns, rows)}</table>`;
  },
  kanban: ({ props, rows, label }) => {
    // objectui names the lane prop groupField (2026-02) or groupBy (2026-09).
    const group = (field(props.groupBy) ?? field(props.groupField)) as ResolvedField;
    const cards = fieldsOf(props.cardFields);
    const title = field(props.titleField) ?? cards[0];
    const lanes = group.options?.length
      ? group.options.map((o) => ({ value: o.value, label: o.label }))
      : distinct(rows, group.name).map((v) => ({ value: v, label: v }));
    if (lanes.length === 0 || !rows?.length) return `<h2>${e(label)}</h2>${noData()}`;
    const lane = (l: { value: string; label: string }) => {
      const mine = (rows ?? []).filter((r) => text(r[group.name]) === l.value);
      const items = mine.map((r) => `<li><article><h4>${e(text(title ? r[title.name] : r.name))}</h4>${definitionList(cards, r)}</article></li>`).join('');
      return `<li><h3>${e(l.label)}</h3>${items ? `<ul>${items}</ul>` : '<p class="bvl-empty-lane">No cards.</p>'}</li>`;
    };
    return `<h2>${e(label)}</h2><ul class="bvl-kanban-lanes" aria-label="${e(`${label} grouped by ${group.label}`)}">${lanes.map(lane).join('')}</ul>`;
  },
  calendar: (input) => events(input, 'bvl-calendar'),
  timeline: (input) => events(input, 'bvl-timeline'),
  gantt: ({ props, rows, label }) => {
    const title = field(props.titleField);
    const start = field(props.startDateField) as ResolvedField;
    const end = field(props.endDateField) as ResolvedField;
    const head = `<thead><tr><th scope="col">${e(title?.label ?? 'Task')}</th><th scope="col">${e(start.label)}</th><th scope="col">${e(end.label)}</th></tr></thead>`;
    const body = rows?.length
      ? rows
          .map((r) => `<tr><th scope="row">${e(text(title ? r[title.name] : r.name))}</th><td>${time(r[start.name])}</td><td>${time(r[end.name])}</td></tr>`)
          .join('')
      : `<tr><td colspan="3">${noData()}</td></tr>`;
    return `<table><caption>${e(label)}</caption>${head}<tbody>${body}</tbody></table>`;
  },
  gallery: ({ props, rows, label }) => {
    const cover = field(props.coverField);
    const title = field(props.titleField);
    const visible = fieldsOf(props.visibleFields);
    if (!rows?.length) return `<h2>${e(label)}</h2>${noData()}`;
    const card = (r: Readonly<Record<string, unknown>>) => {
      const name = text(title ? r[title.name] : r.name);
      const img = cover && r[cover.name] ? `<img src="${e(text(r[cover.name]))}" alt="${e(name)}">` : '';
      return `<li><figure>${img}<figcaption>${e(name)}</figcaption>${definitionList(visible, r)}</figure></li>`;
    };
    return `<h2>${e(label)}</h2><ul class="bvl-gallery">${rows.map(card).join('')}</ul>`;
  },
  map: ({ props, rows, label }) => {
    const where = field(props.locationField);
    const title = field(props.titleField);
    const items = (rows ?? []).map((r) => `<li>${e(text(title ? r[title.name] : r.name))}${where ? `: ${e(text(r[where.name]))}` : ''}</li>`).join('');
    return `<figure aria-label="${e(`Map of ${label}`)}"><figcaption>${e(label)}</figcaption>${items ? `<ul>${items}</ul>` : noData()}</figure>`;
  },
  'list-chart': ({ props, rows, label }) => {
    const dims = arrayOf(props.dimensions).map(text);
    const values = arrayOf(props.values).map(text);
    const describe = `${text(props.chartType ?? 'chart')} chart of ${values.join(', ') || 'nothing'}${dims.length ? ` by ${dims.join(', ')}` : ''}`;
    const columns = [...dims, ...values].map((n) => ({ name: n, label: n }));
    return `<figure aria-label="${e(describe)}"><figcaption>${e(label)}</figcaption><table>${tableBody([], columns, rows)}</table></figure>`;
  },
  form: ({ props, id, label }) => form(props, id, label),
  chart: ({ props, rows, label }) => {
    const dims = namedOf(props.dimensions);
    const measures = namedOf(props.measures);
    const describe = `${text(props.chartType ?? 'chart')} chart of ${measures.map((m) => m.label).join(', ')}${dims.length ? ` by ${dims.map((d) => d.label).join(', ')}` : ''}`;
    return `<figure class="bvl-chart" aria-label="${e(describe)}"><figcaption>${e(label)}</figcaption><table>${tableBody(dims, measures, rows)}</table></figure>`;
  },
  metric: ({ props, rows, label }) => {
    const measures = namedOf(props.measures);
    const row = rows?.[0];
    const values = measures.map((m) =>
      row && row[m.name] !== undefined && row[m.name] !== null ? `<data value="${e(text(row[m.name]))}">${e(text(row[m.name]))}</data>` : noData(),
    );
    return `<figure class="bvl-metric" aria-label="${e(label)}"><figcaption>${e(label)}</figcaption>${values.join('')}</figure>`;
  },
  table: ({ props, rows, label }) =>
    `<table data-bvl-variant="${e(text(props.variant ?? 'table'))}"><caption>${e(label)}</caption>${tableBody(namedOf(props.dimensions), namedOf(props.measures), rows)}</table>`,
} satisfies Record<Template, (input: TemplateInput) => string>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const arrayOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const field = (v: unknown): ResolvedField | undefined => (isRecord(v) && typeof v.name === 'string' ? (v as unknown as ResolvedField) : undefined);
const fieldsOf = (v: unknown): ResolvedField[] => arrayOf(v).flatMap((f) => field(f) ?? []);
const namedOf = (v: unknown): Array<{ name: string; label: string }> =>
  arrayOf(v).flatMap((x) => (isRecord(x) && typeof x.name === 'string' ? [{ name: x.name, label: text(x.label ?? x.name) }] : []));
const text = (v: unknown): string =>
  v === undefined || v === null ? '' : typeof v === 'string' ? v : typeof v === 'object' ? (JSON.stringify(v) ?? '') : String(v);
const noData = (): string => '<p class="bvl-no-data">No data to show.</p>';
const time = (v: unknown): string => (v === undefined || v === null || v === '' ? '' : `<time datetime="${e(text(v))}">${e(text(v))}</time>`);
const distinct = (rows: TemplateInput['rows'], key: string): string[] => [...new Set((rows ?? []).map((r) => text(r[key])))];

function definitionList(fields: readonly ResolvedField[], row: Readonly<Record<string, unknown>>): string {
  if (fields.length === 0) return '';
  return `<dl>${fields.map((f) => `<dt>${e(f.label)}</dt><dd>${e(text(row[f.name]))}</dd>`).join('')}</dl>`;
}

function fieldTable(columns: readonly ResolvedField[], rows: TemplateInput['rows']): string {
  const head = `<thead><tr>${columns.map((c) => `<th scope="col">${e(c.label)}</th>`).join('')}</tr></thead>`;
  const body = rows?.length
    ? rows.map((r) => `<tr>${columns.map((c) => `<td>${e(text(r[c.name]))}</td>`).join('')}</tr>`).join('')
    : `<tr><td colspan="${Math.max(1, columns.length)}">${noData()}</td></tr>`;
  return `${head}<tbody>${body}</tbody>`;
}

/** A data table's head and body: dimensions as row headers, measures as cells (the accessible fallback of every chart). */
function tableBody(
  dims: ReadonlyArray<{ name: string; label: string }>,
  measures: ReadonlyArray<{ name: string; label: string }>,
  rows: TemplateInput['rows'],
): string {
  const cols = [...dims, ...measures];
  const head = `<thead><tr>${cols.map((c) => `<th scope="col">${e(c.label)}</th>`).join('')}</tr></thead>`;
  const row = (r: Readonly<Record<string, unknown>>) =>
    `<tr>${dims.map((d) => `<th scope="row">${e(text(r[d.name]))}</th>`).join('')}${measures.map((m) => `<td>${e(text(r[m.name]))}</td>`).join('')}</tr>`;
  const body = rows?.length ? rows.map(row).join('') : `<tr><td colspan="${Math.max(1, cols.length)}">${noData()}</td></tr>`;
  return `${head}<tbody>${body}</tbody>`;
}

function events({ props, rows, label }: TemplateInput, cls: string): string {
  const start = field(props.startDateField) as ResolvedField;
  const end = field(props.endDateField);
  const title = field(props.titleField);
  const items = (rows ?? [])
    .map((r) => `<li>${time(r[start.name])}${end && r[end.name] ? `–${time(r[end.name])}` : ''} ${e(text(title ? r[title.name] : r.name))}</li>`)
    .join('');
  return `<h2>${e(label)}</h2>${items ? `<ol class="${cls}">${items}</ol>` : noData()}`;
}

const INPUT_TYPES: Readonly<Record<string, string>> = {
  number: 'number',
  currency: 'number',
  percent: 'number',
  rating: 'number',
  slider: 'range',
  progress: 'number',
  date: 'date',
  datetime: 'datetime-local',
  time: 'time',
  email: 'email',
  url: 'url',
  phone: 'tel',
  password: 'password',
  secret: 'password',
  color: 'color',
  boolean: 'checkbox',
  toggle: 'checkbox',
  image: 'file',
  file: 'file',
  avatar: 'file',
  video: 'file',
  audio: 'file',
};
const TEXTAREAS = new Set(['textarea', 'markdown', 'html', 'richtext', 'code', 'json', 'address']);
const CHOICES = new Set(['select', 'multiselect', 'radio', 'checkboxes']);
const RELATIONS = new Set(['lookup', 'master_detail', 'user', 'tree']);

function form(props: Readonly<Record<string, unknown>>, id: string, label: string): string {
  const layout = text(props.layout);
  const slug = id.replace(/[^A-Za-z0-9_-]/g, '-');
  const sections = arrayOf(props.sections).filter(isRecord);
  const sectionId = (i: number) => `${slug}--section-${i}`;
  const fieldsets = sections.map((s, i) => {
    // A field the object lacks is silently not rendered (ObjectStack #2578): L1 reports it.
    const inputs = fieldsOf(s.fields)
      .filter((f) => f.exists)
      .map((f) => input(f, `${slug}--${f.name.replace(/[^A-Za-z0-9_-]/g, '-')}`))
      .join('');
    const role = layout === 'tabbed' ? ` role="tabpanel" aria-labelledby="${sectionId(i)}-tab"` : '';
    return `<fieldset id="${sectionId(i)}"${role}><legend>${e(text(s.label ?? s.name ?? `Section ${i + 1}`))}</legend>${inputs}</fieldset>`;
  });
  const sectionName = (s: Record<string, unknown>, i: number) => e(text(s.label ?? s.name ?? `Section ${i + 1}`));
  const nav =
    layout === 'tabbed'
      ? `<div role="tablist">${sections.map((s, i) => `<button type="button" role="tab" id="${sectionId(i)}-tab" aria-controls="${sectionId(i)}">${sectionName(s, i)}</button>`).join('')}</div>`
      : layout === 'wizard'
        ? `<ol class="bvl-wizard-steps">${sections.map((s, i) => `<li><a href="#${sectionId(i)}">${sectionName(s, i)}</a></li>`).join('')}</ol>`
        : '';
  return `<form aria-label="${e(label)}" data-bvl-layout="${e(layout)}">${nav}${fieldsets.join('')}<button type="submit">Save</button></form>`;
}

function input(f: ResolvedField, id: string): string {
  const lbl = `<label for="${e(id)}">${e(f.label)}</label>`;
  const computed = f.type === 'formula' || f.type === 'summary' || f.type === 'autonumber';
  const name = ` id="${e(id)}" name="${e(f.name)}"${f.required && !computed ? ' required aria-required="true"' : ''}`;
  if (f.type === 'radio') {
    const opts = (f.options ?? [])
      .map(
        (o, i) => `<input type="radio" id="${e(`${id}-${i}`)}" name="${e(f.name)}" value="${e(o.value)}"><label for="${e(`${id}-${i}`)}">${e(o.label)}</label>`,
      )
      .join('');
    return `<fieldset><legend>${e(f.label)}</legend>${opts}</fieldset>`;
  }
  if (CHOICES.has(f.type)) {
    const multiple = f.type === 'multiselect' || f.type === 'checkboxes' || f.multiple ? ' multiple' : '';
    return `${lbl}<select${name}${multiple}>${(f.options ?? []).map((o) => `<option value="${e(o.value)}">${e(o.label)}</option>`).join('')}</select>`;
  }
  // Related records are loaded by the live renderer; the reference renderer names the target.
  if (RELATIONS.has(f.type)) return `${lbl}<select${name} data-bvl-reference="${e(f.reference ?? '')}"${f.multiple ? ' multiple' : ''}></select>`;
  if (TEXTAREAS.has(f.type)) return `${lbl}<textarea${name}></textarea>`;
  if (computed) return `${lbl}<output${name}></output>`;
  return `${lbl}<input type="${INPUT_TYPES[f.type] ?? 'text'}"${name}>`;
}
