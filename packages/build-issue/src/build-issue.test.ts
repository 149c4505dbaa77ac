import { describe, expect, it } from 'vitest';
import { type BuildIssue, BuildIssueSchema } from './build-issue.ts';
import { CATALOGUE, IMPACT_SEVERITY } from './catalogue.ts';
import { fingerprint } from './fingerprint.ts';
import { formatPretty } from './format-pretty.ts';
import { formatSarif } from './format-sarif.ts';
import { makeIssue } from './make-issue.ts';
import { sortIssues } from './sort-issues.ts';

const issue = (over: Partial<BuildIssue> = {}): BuildIssue => ({
  layer: 'graph',
  severity: 'error',
  artifact: { type: 'dashboard', name: 'd' },
  code: 'unknown_measure',
  message: 'm',
  ...over,
});

describe('BuildIssue', () => {
  it('keeps ADR-0038 consumers working: the seven ADR fields alone are a valid issue', () => {
    expect(
      BuildIssueSchema.parse({
        layer: 'runtime',
        severity: 'error',
        artifact: { type: 'seed', name: 's' },
        ref: { type: 'object', name: 'o' },
        code: 'seed_not_applied',
        message: 'x',
        fix: 'y',
      }),
    ).toBeTruthy();
  });
  it('carries a fix safety exactly when it carries a patch; makeIssue makes a patch safe unless told', () => {
    const patch = [{ op: 'replace' as const, path: '/widgets/0/values/0', value: 'total' }];
    expect(BuildIssueSchema.safeParse(issue({ patch })).success).toBe(false);
    expect(BuildIssueSchema.safeParse(issue({ fixSafety: 'safe' })).success).toBe(false);
    expect(BuildIssueSchema.safeParse(issue({ patch, fixSafety: 'unsafe' })).success).toBe(true);
    expect(makeIssue({ code: 'unknown_measure', artifact: { type: 'dashboard', name: 'd' }, message: 'm', patch }).fixSafety).toBe('safe');
    expect(makeIssue({ code: 'unknown_measure', artifact: { type: 'dashboard', name: 'd' }, message: 'm', patch, fixSafety: 'unsafe' }).fixSafety).toBe(
      'unsafe',
    );
    expect(makeIssue({ code: 'unknown_measure', artifact: { type: 'dashboard', name: 'd' }, message: 'm' })).not.toHaveProperty('fixSafety');
  });
  it('rejects a path that is not a JSON pointer and an empty patch', () => {
    expect(BuildIssueSchema.safeParse(issue({ path: 'widgets.0' })).success).toBe(false);
    expect(BuildIssueSchema.safeParse(issue({ patch: [] })).success).toBe(false);
  });
  it('catalogue codes are snake_case and each layer has codes', () => {
    for (const code of Object.keys(CATALOGUE)) expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
    expect(new Set(Object.values(CATALOGUE).map((e) => e.layer))).toEqual(new Set(['graph', 'render', 'runtime', 'intent']));
  });
  it('every code follows the severity policy: its severity is the one its impact gives', () => {
    for (const [code, entry] of Object.entries(CATALOGUE)) expect(entry.severity, code).toBe(IMPACT_SEVERITY[entry.impact]);
    // Both sides of the policy are in use: some impacts block publish, some only warn.
    expect(new Set(Object.values(IMPACT_SEVERITY))).toEqual(new Set(['error', 'warning']));
  });
  it('makeIssue takes layer and severity from the catalogue and drops empty extras', () => {
    expect(makeIssue({ code: 'seed_insert_mode_replay', artifact: { type: 'seed', name: 's' }, message: 'x', suggestions: [], draft: false })).toEqual({
      layer: 'graph',
      severity: 'warning',
      artifact: { type: 'seed', name: 's' },
      code: 'seed_insert_mode_replay',
      message: 'x',
    });
  });
});

describe('fingerprint', () => {
  it('ignores the message and fix, but not the path, ref or code', () => {
    const a = issue({ path: '/widgets/0/values/0' });
    expect(fingerprint({ ...a, message: 'reworded', fix: 'f' })).toBe(fingerprint(a));
    expect(fingerprint({ ...a, path: '/widgets/1/values/0' })).not.toBe(fingerprint(a));
    expect(fingerprint({ ...a, code: 'unknown_dimension' })).not.toBe(fingerprint(a));
    expect(fingerprint({ ...a, ref: { type: 'dashboard', name: 'd', member: 'w' } })).not.toBe(fingerprint(a));
    expect(fingerprint(a)).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('sortIssues', () => {
  it('is a total order independent of input order: errors first, then layer, artifact, path', () => {
    const list = [
      issue({ severity: 'warning', code: 'count_only_table', layer: 'render' }),
      issue({ artifact: { type: 'view', name: 'b' }, code: 'unknown_field' }),
      issue({ layer: 'runtime', code: 'empty_query' }),
      issue({ path: '/widgets/1' }),
      issue({ path: '/widgets/0' }),
      issue({ path: '/widgets/0', message: 'a' }),
    ];
    const sorted = sortIssues(list);
    expect(sortIssues([...list].reverse())).toEqual(sorted);
    expect(sorted.map((i) => `${i.severity}:${i.layer}:${i.artifact.type}:${i.path ?? ''}:${i.message}`)).toEqual([
      'error:graph:dashboard:/widgets/0:a',
      'error:graph:dashboard:/widgets/0:m',
      'error:graph:dashboard:/widgets/1:m',
      'error:graph:view::m',
      'error:runtime:dashboard::m',
      'warning:render:dashboard::m',
    ]);
  });
});

describe('formatters', () => {
  it('pretty names artifact, member, code, draft flag and the summary', () => {
    const text = formatPretty([issue({ ref: { type: 'dashboard', name: 'd', member: 'w1' }, draft: true, suggestions: ['total'] })]);
    expect(text).toContain('dashboard d › w1');
    expect(text).toContain('unknown_measure (graph, draft)');
    expect(text).toContain('did you mean: total');
    expect(text.trim().endsWith('1 error, 0 warnings')).toBe(true);
    expect(formatPretty([])).toBe('no issues\n');
  });

  it('SARIF 2.1.0: ruleId = code, level from severity, logical + physical location, fingerprints', () => {
    const log = formatSarif([issue(), issue({ severity: 'warning', code: 'count_only_table', layer: 'render', path: '/widgets/0' })], {
      locate: (a) => (a.type === 'dashboard' ? 'app/dashboards/d.json' : undefined),
    }) as any;
    expect(log.version).toBe('2.1.0');
    const run = log.runs[0];
    expect(run.tool.driver.rules.map((r: any) => r.id)).toEqual(['count_only_table', 'unknown_measure']);
    expect(run.results.map((r: any) => [r.ruleId, r.level, r.ruleIndex])).toEqual([
      ['unknown_measure', 'error', 1],
      ['count_only_table', 'warning', 0],
    ]);
    expect(run.results[1].locations[0]).toEqual({
      physicalLocation: { artifactLocation: { uri: 'app/dashboards/d.json' } },
      logicalLocations: [{ name: 'd', fullyQualifiedName: 'dashboard/d/widgets/0', kind: 'dashboard' }],
    });
    expect(run.results[0].partialFingerprints['bvl/v1']).toMatch(/^[0-9a-f]{16}$/);
  });
});
