import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { BuildIssue } from './build-issue.ts';
import { formatGithub } from './format-github.ts';
import { formatSarif } from './format-sarif.ts';

// The official OASIS SARIF 2.1.0 schema (sarif-spec Schemata/sarif-schema-2.1.0.json), copied byte
// for byte from the npm package @datadog/datadog-ci@2.48.0 (dist/commands/sarif/json-schema/),
// sha256 10666d46649b52e262001e70d43e6c52f7c0279ca3dbdfe9a7dc2e4071556454.
const schema = JSON.parse(readFileSync(join(import.meta.dirname, '../test/sarif-schema-2.1.0.json'), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);
const validate = ajv.compile(schema);

const measure: BuildIssue = {
  layer: 'graph',
  severity: 'error',
  artifact: { type: 'dashboard', name: 'exp_spending' },
  ref: { type: 'dashboard', name: 'exp_spending', member: 'total' },
  code: 'unknown_measure',
  message: 'Widget "total" asks for measure "amount".',
  fix: 'Use measure "total_amount".',
  path: '/widgets/0/values/0',
  draft: true,
  suggestions: ['total_amount'],
  patch: [{ op: 'replace', path: '/widgets/0/values/0', value: 'total_amount' }],
  fixSafety: 'safe',
  location: {
    file: '/repo/app/stack.json',
    pointer: '/dashboards/0/widgets/0/values/0',
    line: 12,
    column: 20,
    endLine: 12,
    endColumn: 28,
    patch: [{ op: 'replace', path: '/dashboards/0/widgets/0/values/0', value: 'total_amount' }],
  },
};
const warning: BuildIssue = { layer: 'render', severity: 'warning', artifact: { type: 'dashboard', name: 'd' }, code: 'count_only_table', message: 'one row' };
const runtime: BuildIssue = { layer: 'runtime', severity: 'error', artifact: { type: 'seed', name: 's' }, code: 'seed_not_applied', message: 'no rows' };

const log = formatSarif([warning, measure, runtime], {
  toolVersion: '1.2.3',
  srcRoot: 'file:///repo/',
  relativeUri: (f) => f.replace('/repo/', ''),
  automationId: 'bvl/verify/',
  notices: ['app/view/ is not read'],
}) as any;

describe('SARIF', () => {
  it('validates against the official SARIF 2.1.0 schema', () => {
    const ok = validate(log);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('is rejected by that schema when broken (the validation can fail)', () => {
    const broken = structuredClone(log);
    broken.runs[0].results[0].locations[0].physicalLocation.region.startLine = 0;
    broken.runs[0].results[0].level = 'fatal';
    expect(validate(broken)).toBe(false);
  });

  it('gives each result a region, a URI relative to the repository root and a fingerprint', () => {
    const run = log.runs[0];
    const result = run.results.find((r: any) => r.ruleId === 'unknown_measure');
    expect(result.locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'app/stack.json', uriBaseId: 'SRCROOT' },
      region: { startLine: 12, startColumn: 20, endLine: 12, endColumn: 28 },
    });
    expect(run.originalUriBaseIds).toEqual({ SRCROOT: { uri: 'file:///repo/' } });
    expect(run.automationDetails).toEqual({ id: 'bvl/verify/' });
    expect(run.tool.driver).toMatchObject({ name: 'bvl', version: '1.2.3', semanticVersion: '1.2.3' });
    expect(result.partialFingerprints['bvl/v1']).toMatch(/^[0-9a-f]{16}$/);
    expect(result.properties.filePatch).toEqual(measure.location!.patch);
    // An issue with no file keeps its logical location only.
    expect(run.results.find((r: any) => r.ruleId === 'seed_not_applied').locations[0].physicalLocation).toBeUndefined();
    expect(run.invocations[0].toolExecutionNotifications).toEqual([{ level: 'warning', message: { text: 'app/view/ is not read' } }]);
  });

  it('describes every rule it uses: short and full description, Markdown help, helpUri, default level', () => {
    const rules = log.runs[0].tool.driver.rules;
    expect(rules.map((r: any) => r.id)).toEqual(['count_only_table', 'seed_not_applied', 'unknown_measure']);
    const rule = rules.find((r: any) => r.id === 'unknown_measure');
    expect(rule.shortDescription.text).toMatch(/measure/);
    expect(rule.fullDescription.text.length).toBeGreaterThan(rule.shortDescription.text.length);
    expect(rule.help.markdown).toContain('**How to fix.**');
    expect(rule.help.text).toContain('How to fix:');
    expect(rule.helpUri).toMatch(/docs\/rules\.md#unknown_measure$/);
    expect(rule.defaultConfiguration).toEqual({ level: 'error' });
    for (const r of log.runs[0].results) expect(rules[r.ruleIndex].id).toBe(r.ruleId);
  });
});

describe('GitHub annotations', () => {
  it('writes one workflow command per issue with file, line, column and an escaped message', () => {
    const text = formatGithub([{ ...measure, message: 'a: b, c\nd 100%' }, runtime], { relativePath: (f) => f.replace('/repo/', '') });
    expect(text.split('\n').filter(Boolean)).toEqual([
      '::error file=app/stack.json,line=12,col=20,endLine=12,endColumn=28,title=bvl unknown_measure%3A dashboard exp_spending › total::a: b, c%0Ad 100%25%0AFix: Use measure "total_amount".',
      '::error title=bvl seed_not_applied%3A seed s::no rows',
    ]);
  });
});
