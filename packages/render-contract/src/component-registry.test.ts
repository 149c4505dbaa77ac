import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import objectui from '../registry/objectui.json' with { type: 'json' };
import { type Arity, type ComponentRegistry, isRegistered, parseRegistry, RegistryError, shapeOf } from './component-registry.ts';
import { DEFAULT_REGISTRY } from './default-registry.ts';

/** ListView and FormView `type` enums (objectstack-format.md §1.2). */
const LIST_TYPES = ['grid', 'kanban', 'gallery', 'calendar', 'timeline', 'gantt', 'map', 'chart', 'tree'];
const FORM_TYPES = ['simple', 'tabbed', 'wizard', 'split', 'drawer', 'modal'];

const arity = (a: Arity | undefined): string =>
  !a ? 'any' : a.max === undefined ? `≥ ${a.min ?? 0}` : (a.min ?? 0) === a.max ? `${a.max}` : `${a.min ?? 0}–${a.max}`;
const code = (s: string | undefined): string => (s ? `\`${s}\`` : '—');

/** The README's mapping tables, as the registry file says they are. */
function tables(r: ComponentRegistry): string[] {
  const views = Object.entries(r.views.list.types).map(([t, e]) => {
    const required = (r.components[e.component]?.requiredProps ?? []).map((p) => e.bind?.[p]?.from ?? p);
    return `| \`${t}\` | \`${e.component}\` | ${code(e.block)} | ${required.length ? required.map((x) => `\`${x}\``).join(', ') : '—'} |`;
  });
  const widgets = Object.entries(r.widgets.types).map(([t, e]) => {
    const s = shapeOf(r, e.component, e.variant) ?? {};
    const extra = `${s.columns ? ` (≥ ${s.columns.min ?? 0} column)` : ''}${e.warnCountOnly ? '; count-only warning' : ''}`;
    return `| \`${t}\` | \`${e.component}\` | ${code(e.variant)} | ${arity(s.dimensions)} | ${arity(s.measures)}${extra} |`;
  });
  return [
    ['| list view type | component | binding block | required binding |', '|---|---|---|---|', ...views].join('\n'),
    ['| widget type | component | variant | dimensions | measures |', '|---|---|---|---|---|', ...widgets].join('\n'),
  ];
}

describe('the objectui registry', () => {
  it('parses, and is the default registry', () => expect(parseRegistry(objectui)).toEqual(DEFAULT_REGISTRY));

  it('translates exactly the format view types, to registered components', () => {
    expect(Object.keys(DEFAULT_REGISTRY.views.list.types).sort()).toEqual([...LIST_TYPES].sort());
    expect(Object.keys(DEFAULT_REGISTRY.views.form.types).sort()).toEqual([...FORM_TYPES].sort());
    for (const family of [DEFAULT_REGISTRY.views.list, DEFAULT_REGISTRY.views.form, DEFAULT_REGISTRY.widgets]) {
      for (const [t, e] of Object.entries(family.types)) expect(isRegistered(DEFAULT_REGISTRY, e.component), t).toBe(true);
    }
  });

  it('every required prop is bound from the view block, and every variant a widget names exists', () => {
    for (const [t, e] of Object.entries(DEFAULT_REGISTRY.views.list.types)) {
      for (const p of DEFAULT_REGISTRY.components[e.component]?.requiredProps ?? []) expect(e.bind?.[p], `${t} binds ${p}`).toBeDefined();
    }
    for (const [t, e] of Object.entries(DEFAULT_REGISTRY.widgets.types)) {
      const c = DEFAULT_REGISTRY.components[e.component];
      if (e.variant !== undefined) expect(c?.variants?.[e.variant], t).toBeDefined();
      expect(shapeOf(DEFAULT_REGISTRY, e.component, e.variant), `${t} declares a shape`).toBeDefined();
    }
  });

  it('the README tables are the registry', () => {
    // Compared cell by cell: the formatter pads markdown tables.
    const cells = (line: string) =>
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
    const rows = (text: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith('|') && !/^\|[\s|:-]+\|$/.test(l))
        .map((l) => cells(l).join(' | '));
    const readme = new Set(rows(readFileSync(new URL('../README.md', import.meta.url), 'utf8')));
    for (const table of tables(DEFAULT_REGISTRY)) expect(rows(table).filter((r) => !readme.has(r))).toEqual([]);
  });
});

describe('parseRegistry', () => {
  const broken: ReadonlyArray<[string, (r: Record<string, unknown>) => void, RegExp]> = [
    ['not an object', () => undefined, /\(root\)/],
    ['components missing', (r) => delete r.components, /components must be an object/],
    [
      'an unknown template',
      (r) => ((r.components as Record<string, Record<string, unknown>>)['object-grid']!.template = 'spreadsheet'),
      /object-grid\.template/,
    ],
    [
      'a negative arity',
      (r) => ((r.components as Record<string, Record<string, unknown>>).metric!.shape = { measures: { min: -1 } }),
      /metric\.shape\.measures\.min/,
    ],
    ['a default that is not a type', (r) => ((r.views as Record<string, Record<string, unknown>>).list!.default = 'list'), /views\.list\.default/],
    [
      'a bind without from',
      (r) => ((r.views as { list: { types: { kanban: { bind: Record<string, unknown> } } } }).list.types.kanban.bind.groupField = { kind: 'field' }),
      /bind\.groupField/,
    ],
    ['a widget without component', (r) => ((r.widgets as { types: Record<string, unknown> }).types.bar = {}), /widgets\.types\.bar/],
  ];
  it.each(broken)('throws RegistryError on %s', (_, breakIt, message) => {
    const raw = structuredClone(objectui) as unknown as Record<string, unknown>;
    breakIt(raw);
    const input = _ === 'not an object' ? 'nope' : raw;
    expect(() => parseRegistry(input)).toThrow(RegistryError);
    expect(() => parseRegistry(input)).toThrow(message);
  });

  it('own keys only: "constructor" is not a registered component', () => {
    expect(isRegistered(DEFAULT_REGISTRY, 'constructor')).toBe(false);
    expect(isRegistered(DEFAULT_REGISTRY, undefined)).toBe(false);
  });
});
