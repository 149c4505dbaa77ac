import { verify } from '@bvl/verify';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyFixes, defective, expectedRows, GOLDEN_DIR, GOLDEN_NAMES, isStatic, issueRows, stackOf } from '../test/golden-support.ts';
import { type GoldenCase, loadGoldenCases } from './golden-case.ts';

// The golden suite as data: every case loads, every blueprint is clean under verify (zero issues,
// warnings included), and every defect set makes verify report exactly what it declares. A set the
// fixer can repair carries a safe patch on every issue, and applying them restores a clean verify.
let cases: GoldenCase[];
beforeAll(async () => {
  cases = await loadGoldenCases(GOLDEN_DIR);
});

const SHAPES = ['crm', 'event-registration', 'expense-tracker', 'field-service', 'helpdesk', 'inventory', 'project-tracker', 'recruiting-pipeline'];

describe('the golden suite', () => {
  it('holds the eight app shapes, each with at least two defect sets; some the fixer repairs, some only an agent', () => {
    expect(cases.filter((c) => c.origin === undefined).map((c) => c.name)).toEqual(GOLDEN_NAMES);
    expect(GOLDEN_NAMES).toEqual(expect.arrayContaining(SHAPES));
    for (const c of cases) expect(Object.keys(c.defects).length, c.name).toBeGreaterThanOrEqual(2);
    const sets = cases.flatMap((c) => Object.values(c.defects));
    expect(sets.filter((d) => d.repair === 'fixer').length).toBeGreaterThanOrEqual(8);
    expect(sets.filter((d) => d.repair === 'agent').length).toBeGreaterThanOrEqual(1);
  });

  it('covers the ADR-0038 incidents that verification or the probes can see, and the defect classes', () => {
    const incidents = new Set(cases.flatMap((c) => Object.values(c.defects).flatMap((d) => (d.incident ? [d.incident] : []))));
    for (const n of [1, 2, 3, 6]) expect(incidents.has(n), `incident #${n}`).toBe(true);
    const codes = new Set<string>(cases.flatMap((c) => Object.values(c.defects).flatMap((d) => d.expect.map((e) => e.code))));
    for (const code of [
      'dangling_dataset',
      'unknown_measure',
      'invalid_artifact',
      'layout_binding_inferred',
      'seed_value_invalid',
      'seed_not_applied',
      'unknown_dimension',
      'chart_field_unknown',
      'dashboard_filter_field_unknown',
      'kanban_group_field_invalid',
      'dangling_nav_target',
      'unresolved_seed_reference',
      'seed_value_not_in_options',
      'inert_field',
      'query_shape_degraded',
    ])
      expect(codes.has(code), code).toBe(true);
  });

  it('gives every case a distinct version', () => {
    expect(new Set(cases.map((c) => c.version)).size).toBe(cases.length);
    for (const c of cases) expect(c.version).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe.each(GOLDEN_NAMES)('golden case %s', (name) => {
  const golden = () => cases.find((c) => c.name === name)!;

  it('its blueprint is clean under verify: zero issues, warnings included', () => {
    const v = verify(stackOf(golden().blueprint));
    expect(v.issues).toEqual([]);
    expect(v.checked.objects).toBeGreaterThanOrEqual(3);
    expect(v.checked.objects).toBeLessThanOrEqual(8);
    expect(v.checked.dashboards).toBeGreaterThanOrEqual(1);
  });

  it('its blueprint is a whole app: selects and lookups, a kanban and a form, datasets feeding widgets, navigation, seeds with lookups', () => {
    const { graph } = verify(stackOf(golden().blueprint));
    const fields = [...graph.objects.values()].filter((o) => !o.platform).flatMap((o) => [...o.fields.values()].map((f) => f.def));
    expect(fields.some((f) => f.type === 'select' && (f.options?.length ?? 0) > 1)).toBe(true);
    expect(fields.some((f) => (f.type === 'lookup' || f.type === 'master_detail') && f.reference)).toBe(true);
    const views = [...graph.views.values()];
    expect(views.some((v) => v.kind === 'list' && v.list?.type === 'kanban')).toBe(true);
    expect(views.some((v) => v.kind === 'form')).toBe(true);
    const widgets = [...graph.dashboards.values()].flatMap((d) => d.widgets.map((w) => w.def));
    expect(widgets.some((w) => (w.dimensions?.length ?? 0) > 0 && (w.values?.length ?? 0) > 0)).toBe(true);
    const navigated = new Set<string>();
    const walk = (items: ReadonlyArray<{ type: string; dashboardName?: string | undefined; children?: unknown }>) => {
      for (const i of items) {
        if (i.type === 'dashboard' && i.dashboardName) navigated.add(i.dashboardName);
        if (Array.isArray(i.children)) walk(i.children);
      }
    };
    for (const app of graph.apps.values()) [app.def.navigation ?? [], ...(app.def.areas ?? []).map((a) => a.navigation ?? [])].forEach(walk);
    expect([...graph.dashboards.keys()].filter((d) => !navigated.has(d))).toEqual([]);
    const lookups = new Map(
      [...graph.objects.values()].map((o) => [o.name, [...o.fields.values()].filter((f) => f.def.reference).map((f) => f.name)] as const),
    );
    expect([...graph.seeds.values()].some((s) => s.def.records.some((r) => (lookups.get(s.object) ?? []).some((f) => typeof r[f] === 'string')))).toBe(true);
  });

  it('each defect set makes verify report exactly its declared static issues', () => {
    for (const [defect, set] of Object.entries(golden().defects)) {
      const v = verify(stackOf(defective(golden(), defect)));
      const declared = set.expect.filter((e) => isStatic(e.code));
      expect(issueRows(v.issues, declared), defect).toEqual(expectedRows(declared));
    }
  });

  it('each fixer set carries a safe patch on every issue, and the patches restore a clean verify', () => {
    for (const [defect, set] of Object.entries(golden().defects)) {
      if (set.repair !== 'fixer') continue;
      const doc = defective(golden(), defect);
      const v = verify(stackOf(doc));
      for (const i of v.issues)
        expect({ defect, code: i.code, fixSafety: i.fixSafety, patched: i.patch !== undefined }).toMatchObject({ fixSafety: 'safe', patched: true });
      const repaired = verify(stackOf(applyFixes(doc, v.graph, v.issues)));
      expect(repaired.issues, defect).toEqual([]);
    }
  });

  it('each agent set is honest: some issue has no safe patch, or it is only seen at runtime', () => {
    for (const [defect, set] of Object.entries(golden().defects)) {
      if (set.repair !== 'agent') continue;
      const v = verify(stackOf(defective(golden(), defect)));
      const runtimeOnly = set.expect.every((e) => !isStatic(e.code));
      expect(runtimeOnly || v.issues.some((i) => i.fixSafety !== 'safe'), defect).toBe(true);
    }
  });
});
