import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../main.ts';
import { recordingIo } from '../test-io.ts';

const EXAMPLE = join(import.meta.dirname, '../../../../examples/expense-tracker');
const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
const run = async (cwd: string, ...argv: string[]) => {
  const io = recordingIo(cwd);
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err(), json: () => JSON.parse(io.out()) };
};
const codes = async (cwd: string, ...input: string[]) =>
  (await run(cwd, 'verify', ...input, '--format', 'json')).json().issues.map((i: { code: string }) => i.code);

/** The example app as one stack file, with the drafts' defects, written in a 2-space layout. */
function stackFixture(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bvl-fix-stack-'));
  const folder = (sub: string) =>
    readdirSync(join(EXAMPLE, 'app', sub))
      .sort()
      .map((f) => JSON.parse(read(join(EXAMPLE, 'app', sub), f)));
  const stack = {
    objects: folder('objects'),
    views: [...folder('views'), JSON.parse(read(EXAMPLE, 'drafts/views/exp_expense_recent.json'))],
    dashboards: [JSON.parse(read(EXAMPLE, 'drafts/dashboards/exp_spending.json'))],
    datasets: folder('datasets'),
    apps: folder('apps'),
    data: folder('seeds'),
  };
  writeFileSync(join(dir, 'stack.json'), `${JSON.stringify(stack, null, 2)}\n`);
  return dir;
}

/** Lines of `after` that differ from `before` (same line count when the fix kept the layout). */
function changedLines(before: string, after: string): Array<[string, string]> {
  const a = before.split('\n');
  const b = after.split('\n');
  expect(b).toHaveLength(a.length);
  return a.flatMap((line, i) => (line === b[i] ? [] : [[line.trim(), b[i]!.trim()] as [string, string]]));
}

describe('bvl fix', () => {
  it('fixes a stack.json in place: the fixed issues are gone, every other line is unchanged', async () => {
    const dir = stackFixture();
    const before = read(dir, 'stack.json');
    expect(await codes(dir, 'stack.json')).toEqual(['unknown_measure', 'dangling_dataset', 'invalid_artifact']);
    const r = await run(dir, 'fix', 'stack.json');
    expect(r.err).toBe('');
    expect(r.out).toMatch(/^fixed stack\.json:\d+:\d+ {2}unknown_measure {2}dashboard exp_spending › total: "amount" → "total_amount"$/m);
    expect(r.out).toMatch(/^fixed stack\.json:\d+:\d+ {2}invalid_artifact {2}view exp_expense\.recent: "list" → "grid"$/m);
    expect(r.out).toContain('fixed 2 issues in 1 file (1 round)');
    expect(r.code).toBe(1); // dangling_dataset has no fix: an error remains
    expect(changedLines(before, read(dir, 'stack.json'))).toEqual([
      ['"type": "list",', '"type": "grid",'],
      ['"amount"', '"total_amount"'],
    ]);
    expect(await codes(dir, 'stack.json')).toEqual(['dangling_dataset']);
  });

  it('fixes a folder (the example drafts) and keeps each file’s own layout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bvl-fix-folder-'));
    cpSync(EXAMPLE, dir, { recursive: true });
    const dash = read(dir, 'drafts/dashboards/exp_spending.json');
    const r = await run(dir, 'fix', 'app', '--drafts', 'drafts', '--format', 'json');
    const out = r.json();
    expect(out).toMatchObject({
      ok: false,
      dryRun: false,
      rounds: 1,
      stopped: 'nothing_more_to_fix',
      files: ['drafts/dashboards/exp_spending.json', 'drafts/views/exp_expense_recent.json'],
    });
    expect(out.fixed.map((f: { code: string; pointer: string; old: unknown; new: unknown }) => [f.code, f.pointer, f.old, f.new])).toEqual([
      ['unknown_measure', '/widgets/0/values/0', 'amount', 'total_amount'],
      ['invalid_artifact', '/config/type', 'list', 'grid'],
    ]);
    expect(changedLines(dash, read(dir, 'drafts/dashboards/exp_spending.json'))).toHaveLength(1);
    expect(read(dir, 'drafts/dashboards/exp_spending.json')).toBe(dash.replace('[ "amount" ]', '[ "total_amount" ]'));
    expect(await codes(dir, 'app', '--drafts', 'drafts')).toEqual(['dangling_dataset']);
  });

  it('fixes artifacts inside array files, round after round until nothing more is safe to fix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bvl-fix-array-'));
    cpSync(join(EXAMPLE, 'app'), join(dir, 'app'), { recursive: true });
    mkdirSync(join(dir, 'more', 'views'), { recursive: true });
    mkdirSync(join(dir, 'more', 'dashboards'), { recursive: true });
    writeFileSync(
      join(dir, 'more', 'views', 'all.json'),
      `[\n\t{ "name": "exp_expense.a", "object": "exp_expense", "viewKind": "list", "config": { "type": "grid", "columns": ["title"] } },\n\t{ "name": "exp_expense.b", "object": "exp_expense", "viewKind": "list", "config": { "type": "list", "columns": ["title"] } }\n]\n`,
    );
    // Round 1 repairs the dataset name; only then can round 2 see (and fix) the measure.
    writeFileSync(
      join(dir, 'more', 'dashboards', 'all.json'),
      `[\n\t{ "name": "more", "label": "More", "widgets": [\n\t\t{ "id": "n", "type": "metric", "dataset": "exp_expense_metric", "values": ["totl_amount"] }\n\t] }\n]\n`,
    );
    const before = codes(dir, 'app', '--drafts', 'more');
    expect(await before).toEqual(['dangling_dataset', 'invalid_artifact']);
    const r = await run(dir, 'fix', 'app', '--drafts', 'more', '--format', 'json');
    const out = r.json();
    expect(out.fixed.map((f: { code: string; file: string; pointer: string }) => [f.code, f.file, f.pointer])).toEqual([
      ['dangling_dataset', 'more/dashboards/all.json', '/0/widgets/0/dataset'],
      ['invalid_artifact', 'more/views/all.json', '/1/config/type'],
      ['unknown_measure', 'more/dashboards/all.json', '/0/widgets/0/values/0'],
    ]);
    expect(out).toMatchObject({ ok: true, rounds: 2, stopped: 'nothing_more_to_fix', issues: [] });
    expect(r.code).toBe(0);
    expect(read(dir, 'more/views/all.json')).toContain(
      '\t{ "name": "exp_expense.b", "object": "exp_expense", "viewKind": "list", "config": { "type": "grid", "columns": ["title"] } }\n',
    );
    expect(read(dir, 'more/dashboards/all.json')).toContain(
      '\t\t{ "id": "n", "type": "metric", "dataset": "exp_expense_metrics", "values": ["total_amount"] }\n',
    );
    expect(await codes(dir, 'app', '--drafts', 'more')).toEqual([]);
  });

  it('--dry-run changes no file and prints a diff', async () => {
    const dir = stackFixture();
    const before = read(dir, 'stack.json');
    const r = await run(dir, 'fix', 'stack.json', '--dry-run');
    expect(read(dir, 'stack.json')).toBe(before);
    expect(r.out).toContain('--- stack.json\n+++ stack.json\n@@');
    expect(r.out).toMatch(/^- +"amount"$/m);
    expect(r.out).toMatch(/^\+ +"total_amount"$/m);
    expect(r.out).toContain('would fix 2 issues in 1 file (1 round); no file was changed (--dry-run)');
    expect(r.code).toBe(1);
  });

  it('leaves a best guess alone unless --unsafe, and refuses standard input', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bvl-fix-unsafe-'));
    // "code_c" is one edit from both code_a and code_b: the patch is a best guess (unsafe).
    const stack = {
      objects: [{ name: 'o', fields: { code_a: { type: 'text' }, code_b: { type: 'text' } } }],
      views: [{ list: { type: 'grid', data: { provider: 'object', object: 'o' }, columns: ['code_c'] } }],
    };
    writeFileSync(join(dir, 'stack.json'), JSON.stringify(stack, null, 2));
    const safe = await run(dir, 'fix', 'stack.json', '--format', 'json');
    expect(safe.json()).toMatchObject({ fixed: [], issues: [{ code: 'unknown_field', fixSafety: 'unsafe' }] });
    expect(safe.code).toBe(1);
    expect((await run(dir, 'fix', 'stack.json')).out).toContain('1 remaining issue has a best-guess fix: bvl fix --unsafe applies it');
    const forced = await run(dir, 'fix', 'stack.json', '--unsafe', '--format', 'json');
    expect(forced.json().fixed.map((f: { code: string; fixSafety: string; new: unknown }) => [f.code, f.fixSafety, f.new])).toEqual([
      ['unknown_field', 'unsafe', 'code_a'],
    ]);
    expect(forced.code).toBe(0);
    const stdin = await run(dir, 'fix', '-');
    expect(stdin.code).toBe(2);
    expect(stdin.err).toMatch(/cannot edit standard input/);
  });
});
