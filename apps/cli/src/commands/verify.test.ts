import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BuildIssueSchema } from '@bvl/build-issue';
import { corpusFile, fixtureFile } from '@bvl/test-support';
import { describeCorpora } from '@bvl/test-support/vitest';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { main } from '../main.ts';
import { recordingIo } from '../test-io.ts';

const ROOT = join(import.meta.dirname, '../../../..');
// The official SARIF 2.1.0 schema, kept with build-issue's SARIF tests (where it came from is noted there).
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);
const validateSarif = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'packages/build-issue/test/sarif-schema-2.1.0.json'), 'utf8')));
const run = async (...argv: string[]) => {
  const io = recordingIo(ROOT);
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
};

describe('bvl verify', () => {
  it('exits 0 on the correct example app', async () => {
    const r = await run('verify', 'examples/expense-tracker/app');
    expect(r.err).toBe('');
    expect(r.out).toContain('no issues');
    expect(r.code).toBe(0);
  });

  it('reports ADR-0038 incidents #1 and #2 on the drafts as JSON, sorted, exit 1', async () => {
    const r = await run('verify', 'examples/expense-tracker/app', '--drafts', 'examples/expense-tracker/drafts', '--format', 'json', '--layers', 'graph');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out);
    expect(report.ok).toBe(false);
    expect(report.checked).toEqual({ objects: 3, views: 6, dashboards: 1, widgets: 3, datasets: 1, apps: 1, seeds: 3 });
    for (const i of report.issues) expect(BuildIssueSchema.parse(i)).toEqual(i);
    expect(report.issues.map((i: any) => [i.code, i.ref?.member ?? i.artifact.name, i.draft])).toEqual([
      ['unknown_measure', 'total', true],
      ['dangling_dataset', 'budget_left', true],
      // Incident #6: the spec refuses `type: "list"`, an L1 error whatever the renderer would draw.
      ['invalid_artifact', 'exp_expense.recent', true],
    ]);
    expect(report.issues[0].patch).toEqual([{ op: 'replace', path: '/widgets/0/values/0', value: 'total_amount' }]);
  });

  it('runs L1 + L2 by default, against the default target: the spec refuses incident #6 (an error with a patch) whatever objectui draws', async () => {
    const r = await run('verify', 'examples/expense-tracker/app', '--drafts', 'examples/expense-tracker/drafts', '--format', 'json');
    const report = JSON.parse(r.out);
    // The refused view is not translated: L2 judges only what the spec accepts.
    expect(report.checked).toMatchObject({ schemas: 8, compiledDatasets: 1 });
    const six = report.issues.find((i: any) => i.artifact.name === 'exp_expense.recent');
    // The draft is stored as a view item, so the path and patch address its config inside that document.
    expect(six).toMatchObject({ code: 'invalid_artifact', severity: 'error', layer: 'graph', path: '/config/type', draft: true });
    expect(six.patch).toEqual([{ op: 'replace', path: '/config/type', value: 'grid' }]);
    expect(report.issues.map((i: any) => i.code)).toEqual(['unknown_measure', 'dangling_dataset', 'invalid_artifact']);
  });

  it('--renderer and --spec select the target: incident #6 is the same spec error on objectui 2026-02', async () => {
    const r = await run(
      'verify',
      'examples/expense-tracker/app',
      '--drafts',
      'examples/expense-tracker/drafts',
      '--format',
      'json',
      '--renderer',
      'objectui-2026-02',
      '--spec',
      'objectstack-17.4',
    );
    const six = JSON.parse(r.out).issues.filter((i: any) => i.artifact.name === 'exp_expense.recent');
    expect(six.map((i: any) => [i.code, i.severity, i.path])).toEqual([['invalid_artifact', 'error', '/config/type']]);
  });

  it('--spec with an unknown release is a usage error naming the known ones (exit 2)', async () => {
    const r = await run('verify', 'examples/expense-tracker/app', '--spec', 'objectstack-1.0');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--spec takes one of objectstack-17.4 (got "objectstack-1.0")');
  });

  it('--renderer with an unknown profile is a usage error naming the known ones (exit 2)', async () => {
    const r = await run('verify', 'examples/expense-tracker/app', '--renderer', 'objectui-1999');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--renderer takes one of objectui-2026-02, objectui-2026-09 (got "objectui-1999")');
  });

  it('writes SARIF that the official 2.1.0 schema accepts: file from the repository root, region, rule help', async () => {
    const r = await run('verify', 'examples/expense-tracker/app', '--drafts', 'examples/expense-tracker/drafts', '--format', 'sarif');
    const log = JSON.parse(r.out);
    expect(validateSarif(log)).toBe(true);
    const run0 = log.runs[0];
    expect(run0.results[0].locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'examples/expense-tracker/drafts/dashboards/exp_spending.json', uriBaseId: 'SRCROOT' },
      region: { startLine: 4, startColumn: 110, endLine: 4, endColumn: 118 },
    });
    expect(run0.originalUriBaseIds.SRCROOT.uri).toMatch(/^file:\/\/.*\/$/);
    expect(run0.automationDetails).toEqual({ id: 'bvl/verify/' });
    const rule = run0.tool.driver.rules.find((x: any) => x.id === 'invalid_artifact');
    expect(rule.help.markdown).toContain('**How to fix.**');
    expect(rule.helpUri).toMatch(/#invalid_artifact$/);
  });

  it('places every issue in its file: pointer, line and column beside the artifact path, and the patch in file coordinates', async () => {
    const r = await run('verify', 'examples/expense-tracker/app', '--drafts', 'examples/expense-tracker/drafts', '--format', 'json');
    const [measure, , view] = JSON.parse(r.out).issues;
    expect(measure.location).toEqual({
      file: 'examples/expense-tracker/drafts/dashboards/exp_spending.json',
      pointer: '/widgets/0/values/0',
      line: 4,
      column: 110,
      endLine: 4,
      endColumn: 118,
      patch: [{ op: 'replace', path: '/widgets/0/values/0', value: 'total_amount' }],
    });
    expect(view).toMatchObject({
      path: '/config/type',
      location: { file: 'examples/expense-tracker/drafts/views/exp_expense_recent.json', pointer: '/config/type', line: 2 },
    });
  });

  it('verifies a stack JSON file (the field-service fixture) clean', async () => {
    const r = await run('verify', fixtureFile('field-service'), '--format', 'json');
    expect(JSON.parse(r.out)).toMatchObject({ ok: true, issues: [], checked: { objects: 7, views: 27, widgets: 26, schemas: 53 } });
    expect(r.code).toBe(0);
  });

  it.each([
    [['verify'], /missing the stack/],
    [['verify', 'nope.json'], /cannot read nope.json: no such file/],
    [['verify', 'examples/expense-tracker/app', '--format', 'xml'], /--format takes pretty, json, sarif, github/],
    [['verify', 'examples/expense-tracker/app', '--bogus'], /unknown flag --bogus for bvl verify/],
    [['verify', 'examples/expense-tracker/app', '--formt', 'json'], /unknown flag --formt for bvl verify; did you mean --format\?/],
    [['verify', 'examples/expense-tracker/app', '--format'], /--format needs a value/],
    [['verfy', 'examples/expense-tracker/app'], /unknown command "verfy"; did you mean "bvl verify"\?/],
    [['verify', 'examples/expense-tracker/app', '--max-warnings', 'many'], /--max-warnings takes a whole number/],
    [['verify', 'examples/expense-tracker/app', '--layers', 'graph,runtime'], /--layers takes/],
    [['frobnicate'], /unknown command/],
  ])('exits 2 with one clear line: %j', async (argv, message) => {
    const r = await run(...(argv as string[]));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err.trim().split('\n')[0]).toMatch(/^bvl: /);
  });

  it('reports a NUL character (which no Postgres text can hold) as invalid_artifact at its path, exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bvl-'));
    writeFileSync(
      join(dir, 'nul.json'),
      JSON.stringify({ objects: [{ name: 'o', fields: { name: { type: 'text' } } }], data: [{ object: 'o', records: [{ name: 'a\u0000b' }] }] }),
    );
    const io = recordingIo(dir);
    expect(await main(['verify', 'nul.json', '--format', 'json'], io)).toBe(1);
    expect(JSON.parse(io.out()).issues.map((i: any) => [i.code, i.artifact.name, i.path])).toEqual([['invalid_artifact', 'o', '/records/0/name']]);
  });

  it('exits 2 on a stack file that is not JSON, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bvl-'));
    writeFileSync(join(dir, 'bad.json'), '{"objects": [');
    const io = recordingIo(dir);
    expect(await main(['verify', 'bad.json'], io)).toBe(2);
    expect(io.err()).toMatch(/^bvl: bad.json is not valid JSON/);
  });

  it('runs as a real binary', async () => {
    const { stdout } = await promisify(execFile)(join(ROOT, 'node_modules/.bin/bvl'), ['verify', 'examples/expense-tracker/app', '--format', 'json'], {
      cwd: ROOT,
    });
    expect(JSON.parse(stdout).ok).toBe(true);
  });
});

describeCorpora('bvl verify on the corpora', () => {
  it('verifies a stack JSON file (app-showcase) clean', async () => {
    const r = await run('verify', corpusFile('app-showcase'), '--format', 'json');
    expect(JSON.parse(r.out).issues.filter((i: any) => i.severity === 'error')).toEqual([]);
    expect(r.code).toBe(0);
  });
});
