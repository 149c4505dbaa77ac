import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import objectui202602 from '../registry/objectui-2026-02.json' with { type: 'json' };
import objectui202609 from '../registry/objectui-2026-09.json' with { type: 'json' };
import { type Arity, bindingSets, type ComponentRegistry, isRegistered, RegistryError, type ShapeRule, shapeOf } from './component-registry.ts';
import { parseRegistry } from './parse-registry.ts';
import { DEFAULT_REGISTRY, DEFAULT_RENDERER, RENDERER_PROFILES, rendererProfile } from './renderer-profiles.ts';

/** ListView and FormView `type` enums (objectstack-format.md §1.2). */
const LIST_TYPES = ['grid', 'kanban', 'gallery', 'calendar', 'timeline', 'gantt', 'map', 'chart', 'tree'];
const FORM_TYPES = ['simple', 'tabbed', 'wizard', 'split', 'drawer', 'modal'];

const range = (a: Arity): string =>
  a.max === undefined ? `≥ ${a.min ?? 0}` : (a.min ?? 0) === a.max ? `${a.max}` : (a.min ?? 0) === 0 ? `≤ ${a.max}` : `${a.min}–${a.max}`;
const code = (s: string | undefined): string => (s ? `\`${s}\`` : '—');
const when = (r: ShapeRule): string =>
  Object.entries(r.when)
    .map(([part, a]) => `${part} ${range(a as Arity)}`)
    .join(' & ') + (r.drawAs ? ` → \`${r.drawAs.component}\`` : '');

/** The README's tables for one profile, as its registry file says they are. */
function tables(r: ComponentRegistry): string[] {
  const views = Object.entries(r.views.list.types).map(([t, e]) => {
    const c = r.components[e.component];
    const named = (p: string): string => {
      const b = e.bind?.[p];
      const also = (b?.alsoFrom ?? []).map((a) => ` or \`${a.block}.${a.from}\``).join('');
      return `\`${b?.from ?? p}\`${also}${b?.infer ? ' (else a status field)' : ''}`;
    };
    const sets = bindingSets(c).map((set) => set.map(named).join(' + '));
    const without = sets.length ? (c?.missing ? 'refuses' : 'empty (literal-name fallback)') : '—';
    return `| \`${t}\` | \`${e.component}\` | ${code(e.block)} | ${sets.join(' or ') || '—'} | ${without} |`;
  });
  const unknownView = r.views.list.unknown?.outcome === 'degrades' ? `drawn as \`${r.views.list.unknown.as}\`` : 'red box';
  const unknownWidget = r.widgets.unknown?.outcome === 'degrades' ? `drawn as \`${r.widgets.unknown.as}\`` : 'red box';
  const widgets = Object.entries(r.widgets.types).map(([t, e]) => {
    const s = shapeOf(r, e.component, e.variant) ?? {};
    const legacy = (['dimensions', 'measures', 'columns'] as const).flatMap((p) => (s[p] ? [`${p} outside ${range(s[p])}`] : []));
    const rules = s.rules ?? [];
    const refuses = [...legacy, ...rules.filter((x) => x.outcome === 'refuses').map(when)];
    const degrades = [...rules.filter((x) => x.outcome === 'degrades').map(when), ...(e.warnCountOnly ? ['count-only, no dimension (warning)'] : [])];
    return `| \`${t}\` | \`${e.component}\` | ${code(e.variant)} | ${refuses.join('; ') || '—'} | ${degrades.join('; ') || '—'} |`;
  });
  return [
    [
      `| list view type (${r.name}; unknown: ${unknownView}) | component | binding block | required binding | without it |`,
      '|---|---|---|---|---|',
      ...views,
    ].join('\n'),
    [`| widget type (${r.name}; unknown: ${unknownWidget}) | component | variant | refuses when | degrades when |`, '|---|---|---|---|---|', ...widgets].join(
      '\n',
    ),
  ];
}

describe.each(Object.entries(RENDERER_PROFILES))('the %s profile', (name, registry) => {
  it('is named after its file and parses', () => {
    expect(registry.name).toBe(name);
    expect(parseRegistry(name === 'objectui-2026-02' ? objectui202602 : objectui202609)).toEqual(registry);
  });

  it('translates exactly the format view types, to registered components', () => {
    expect(Object.keys(registry.views.list.types).sort()).toEqual([...LIST_TYPES].sort());
    expect(Object.keys(registry.views.form.types).sort()).toEqual([...FORM_TYPES].sort());
    for (const family of [registry.views.list, registry.views.form, registry.widgets]) {
      for (const [t, e] of Object.entries(family.types)) expect(isRegistered(registry, e.component), t).toBe(true);
    }
  });

  it('every required prop is bound from the view block, every variant a widget names exists, every drawAs is registered', () => {
    for (const [t, e] of Object.entries(registry.views.list.types)) {
      for (const set of bindingSets(registry.components[e.component])) for (const p of set) expect(e.bind?.[p], `${t} binds ${p}`).toBeDefined();
    }
    for (const [t, e] of Object.entries(registry.widgets.types)) {
      const c = registry.components[e.component];
      if (e.variant !== undefined) expect(c?.variants?.[e.variant], t).toBeDefined();
      const shape = shapeOf(registry, e.component, e.variant);
      expect(shape, `${t} declares a shape`).toBeDefined();
      for (const rule of shape?.rules ?? []) if (rule.drawAs) expect(isRegistered(registry, rule.drawAs.component), `${t} draws as`).toBe(true);
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
    for (const table of tables(registry)) expect(rows(table).filter((r) => !readme.has(r))).toEqual([]);
  });
});

describe('renderer profiles', () => {
  it('the newest objectui is the default', () => {
    expect(DEFAULT_RENDERER).toBe('objectui-2026-09');
    expect(DEFAULT_REGISTRY).toBe(RENDERER_PROFILES[DEFAULT_RENDERER]);
  });
  it('a profile is looked up by name; an unknown name lists the known ones', () => {
    expect(rendererProfile('objectui-2026-02').name).toBe('objectui-2026-02');
    expect(() => rendererProfile('objectui-1999')).toThrow(RegistryError);
    expect(() => rendererProfile('objectui-1999')).toThrow('unknown renderer "objectui-1999" (known: objectui-2026-02, objectui-2026-09)');
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
      (r) => ((r.components as Record<string, Record<string, unknown>>)['dataset-kpi']!.shape = { measures: { min: -1 } }),
      /dataset-kpi\.shape\.measures\.min/,
    ],
    [
      'a rule on an unknown part',
      (r) =>
        ((r.components as Record<string, Record<string, unknown>>)['dataset-kpi']!.shape = {
          rules: [{ when: { rows: { min: 1 } }, outcome: 'refuses', does: 'x' }],
        }),
      /rules\.0\.when\.rows/,
    ],
    [
      'a rule without an outcome',
      (r) => ((r.components as Record<string, Record<string, unknown>>)['dataset-kpi']!.shape = { rules: [{ when: { measures: { min: 1 } }, does: 'x' }] }),
      /rules\.0\.outcome/,
    ],
    [
      'requires that is not sets of props',
      (r) => ((r.components as Record<string, Record<string, unknown>>)['object-map']!.requires = ['locationField']),
      /object-map\.requires/,
    ],
    ['a default that is not a type', (r) => ((r.views as Record<string, Record<string, unknown>>).list!.default = 'list'), /views\.list\.default/],
    [
      'a fallback that is not a type',
      (r) => ((r.views as Record<string, Record<string, unknown>>).list!.unknown = { outcome: 'degrades', as: 'table', does: 'x' }),
      /views\.list\.unknown\.as/,
    ],
    [
      'a bind without from',
      (r) => ((r.views as { list: { types: { kanban: { bind: Record<string, unknown> } } } }).list.types.kanban.bind.groupBy = { kind: 'field' }),
      /bind\.groupBy/,
    ],
    ['a widget without component', (r) => ((r.widgets as { types: Record<string, unknown> }).types.bar = {}), /widgets\.types\.bar/],
  ];
  it.each(broken)('throws RegistryError on %s', (_, breakIt, message) => {
    const raw = structuredClone(objectui202609) as unknown as Record<string, unknown>;
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
