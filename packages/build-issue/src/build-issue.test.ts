import { describe, expect, it } from 'vitest';
import { type BuildIssue, BuildIssueSchema } from './build-issue.ts';
import { CATALOGUE, IMPACT_SEVERITY } from './catalogue.ts';
import { fingerprint } from './fingerprint.ts';
import { formatPretty } from './format-pretty.ts';
import { makeIssue } from './make-issue.ts';
import { sortIssues } from './sort-issues.ts';
import { terminalText } from './terminal-text.ts';

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

describe('formatPretty', () => {
  const located = (line: number, over: Partial<BuildIssue> = {}): BuildIssue =>
    issue({ location: { file: 'app/dashboards/d.json', pointer: `/widgets/${line}`, line, column: 3 }, ...over });
  it('groups by file and artifact, with file:line:column, the fix and suggestions once, and a per-layer summary', () => {
    const text = formatPretty([
      located(9, { ref: { type: 'dashboard', name: 'd', member: 'w1' }, draft: true, suggestions: ['total'], fix: 'Use "total".' }),
      located(4, { message: 'm. Did you mean "x"?', suggestions: ['x'] }),
      issue({ layer: 'runtime', code: 'empty_query', artifact: { type: 'seed', name: 's' } }),
      located(2, { severity: 'warning', layer: 'render', code: 'count_only_table', patch: [{ op: 'remove', path: '/widgets/2' }], fixSafety: 'safe' }),
    ]);
    const lines = text.split('\n');
    expect(lines[0]).toBe('app/dashboards/d.json');
    expect(lines[1]).toBe('  dashboard d (draft)');
    expect(lines.filter((l) => /^ {4}\S/.test(l)).map((l) => l.trim())).toEqual([
      'warning count_only_table  app/dashboards/d.json:2:3',
      'error unknown_measure  app/dashboards/d.json:4:3',
      'error unknown_measure › w1  app/dashboards/d.json:9:3',
      'error empty_query',
    ]);
    expect(text).not.toContain('did you mean: x');
    expect(text).toContain('      did you mean: total');
    expect(text).toContain('not read from a file\n  seed s');
    expect(lines.slice(-4)).toEqual([
      '✖ 3 errors, 1 warning',
      '  by layer: graph 2 errors · render 1 warning · runtime 1 error',
      '  1 fixable with `bvl fix`',
      '',
    ]);
    expect(formatPretty([])).toBe('no issues\n');
  });

  it('caps what it prints, errors first, and counts the rest; colours only when asked', () => {
    const many = Array.from({ length: 30 }, (_, i) => located(i + 1, i % 2 ? { severity: 'warning', code: 'count_only_table', layer: 'render' } : {}));
    const text = formatPretty(many, { max: 10 });
    expect(text.match(/^ {4}(error|warning)/gm)).toHaveLength(10);
    expect(text.match(/^ {4}warning/gm)).toBeNull();
    expect(text).toContain('… and 20 more issues (5 errors) not shown');
    expect(text).not.toContain('\u001b[');
    expect(formatPretty(many, { color: true })).toContain('\u001b[31m');
  });

  it('prints escape bytes from input as text: names, messages, fixes, files and suggestions', () => {
    const esc = '\u001b]0;owned\u0007\u001b[2J\u009b31m\u202e';
    const text = formatPretty(
      [
        located(1, {
          artifact: { type: 'dashboard', name: `d${esc}` },
          ref: { type: 'dashboard', name: 'd', member: `w${esc}` },
          message: `Widget "w${esc}" asks for "a\rb".`,
          fix: `Use "x${esc}".`,
          suggestions: [`s${esc}`],
          location: { file: `app/${esc}.json`, pointer: '', line: 1, column: 1 },
        }),
      ],
      { color: true },
    );
    // Only bvl's own colour sequences reach the terminal; every other control is spelled out.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
    expect(text.replace(/\u001b\[[0-9;]*m/g, '')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(text).toContain('Widget "w\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m\\u202e" asks for "a\\u000db".');
    expect(text).toContain('did you mean: s\\u001b');
  });
});

describe('terminalText', () => {
  it('spells out controls, keeps tab, newline and ordinary text (accents, emoji, CJK) as they are', () => {
    expect(terminalText('a\tb\nc')).toBe('a\tb\nc');
    expect(terminalText('café ✓ 🚀 表')).toBe('café ✓ 🚀 表');
    expect(terminalText('\u0000\u001b\u007f\u0085\u009b\u2066')).toBe('\\u0000\\u001b\\u007f\\u0085\\u009b\\u2066');
    // The spelling is a JSON escape of the same character.
    expect(JSON.parse(`"${terminalText('x\u001by')}"`)).toBe('x\u001by');
  });
});
