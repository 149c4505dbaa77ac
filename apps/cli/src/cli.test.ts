import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATALOGUE } from '@bvl/build-issue';
import { describe, expect, it } from 'vitest';
import type { CliIo } from './cli-io.ts';
import { COMMANDS } from './command-table.ts';
import { main } from './main.ts';
import { recordingIo } from './test-io.ts';

const EXAMPLE = join(import.meta.dirname, '../../../examples/expense-tracker');
const run = async (cwd: string, argv: string[], over: Partial<CliIo> = {}, env: Record<string, string> = {}) => {
  const io = { ...recordingIo(cwd, env), ...over };
  const rec = recordingIo(cwd, env);
  const wrapped: CliIo = { ...io, stdout: rec.stdout, stderr: rec.stderr };
  const code = await main(argv, wrapped);
  return { code, out: rec.out(), err: rec.err() };
};
const example = () => {
  const dir = mkdtempSync(join(tmpdir(), 'bvl-cli-'));
  cpSync(EXAMPLE, dir, { recursive: true });
  return dir;
};

describe('bvl --help', () => {
  it('lists every command of the table, exit 0', async () => {
    const r = await run(EXAMPLE, ['--help']);
    expect(r.code).toBe(0);
    for (const c of COMMANDS) expect(r.out).toContain(`  ${c.name.padEnd(12)} ${c.summary}`);
  });

  it.each(COMMANDS.map((c) => c.name))('bvl %s --help prints its usage and flags, exit 0', async (name) => {
    for (const flag of ['--help', '-h']) {
      const r = await run(EXAMPLE, [name, 'anything', flag]);
      expect(r.code).toBe(0);
      expect(r.out.startsWith(`usage: bvl ${name}`)).toBe(true);
      expect(r.out).toContain('-h, --help');
      expect(r.err).toBe('');
    }
    expect((await run(EXAMPLE, ['help', name])).out.startsWith(`usage: bvl ${name}`)).toBe(true);
  });

  it('loads no npm package before a command runs (the built main.js and the chunks it imports statically)', () => {
    const dist = join(import.meta.dirname, '../dist');
    const seen = new Set<string>();
    const packages = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(join(dist, file), 'utf8');
      for (const [, spec] of text.matchAll(/^(?:import|export)\b[^;]*?from\s*"([^"]+)"/gms)) {
        if (spec!.startsWith('./') || spec!.startsWith('../')) walk(join(file, '..', spec!));
        else if (!spec!.startsWith('node:')) packages.add(spec!);
      }
    };
    walk('main.js');
    expect([...packages]).toEqual([]);
    expect(seen.size).toBeLessThan(6);
  });

  it('bvl with no command prints the usage on stderr and exits 2', async () => {
    const r = await run(EXAMPLE, []);
    expect(r.code).toBe(2);
    expect(r.err).toContain('usage: bvl <command>');
  });
});

describe('bvl rules and explain', () => {
  it('rules lists every catalogue code with layer and default severity', async () => {
    const r = await run(EXAMPLE, ['rules']);
    expect(r.code).toBe(0);
    for (const [code, e] of Object.entries(CATALOGUE)) expect(r.out).toMatch(new RegExp(`^${code} +${e.layer} +${e.severity} +\\S`, 'm'));
    const json = JSON.parse((await run(EXAMPLE, ['rules', '--format', 'json'])).out);
    expect(json.rules).toHaveLength(Object.keys(CATALOGUE).length);
    expect(json.rules[0]).toMatchObject({
      code: 'invalid_artifact',
      meaning: expect.any(String),
      why: expect.any(String),
      helpUri: expect.stringContaining('#invalid_artifact'),
    });
    // The targets: a spec release (what it refuses is an error) plus a renderer profile.
    expect(json.targets).toEqual({
      specs: ['objectstack-17.4'],
      renderers: ['objectui-2026-02', 'objectui-2026-09'],
      default: { spec: 'objectstack-17.4', renderer: 'objectui-2026-09' },
    });
    expect(r.out).toContain('A target is a spec release plus a renderer profile (bvl verify --spec, --renderer; default objectstack-17.4 + objectui-2026-09).');
  });

  it('explain prints what a code means, why it breaks the app, an example and the fix; a typo gets a suggestion', async () => {
    const r = await run(EXAMPLE, ['explain', 'unknown_measure']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^unknown_measure \(graph, default severity error\)\n/);
    for (const part of ['Why it breaks the app:', 'Example:', 'How to fix:']) expect(r.out).toContain(part);
    const typo = await run(EXAMPLE, ['explain', 'unknown_mesure']);
    expect(typo.code).toBe(2);
    expect(typo.err).toBe('bvl: "unknown_mesure" is not a bvl code; did you mean unknown_measure? (bvl rules lists them)\n');
  });
});

describe('bvl verify manners', () => {
  const args = ['verify', 'app', '--drafts', 'drafts'];

  it('colours only on a terminal, unless NO_COLOR or FORCE_COLOR says otherwise', async () => {
    const esc = '\u001b[';
    expect((await run(EXAMPLE, args, { isTty: true })).out).toContain(esc);
    expect((await run(EXAMPLE, args, { isTty: true }, { NO_COLOR: '1' })).out).not.toContain(esc);
    expect((await run(EXAMPLE, args, { isTty: false })).out).not.toContain(esc);
    expect((await run(EXAMPLE, args, { isTty: false }, { FORCE_COLOR: '1' })).out).toContain(esc);
    expect((await run(EXAMPLE, args, { isTty: true }, { FORCE_COLOR: '0' })).out).not.toContain(esc);
  });

  it('groups by file with file:line:column and says it in the user’s words', async () => {
    const r = await run(EXAMPLE, args);
    expect(r.out).toContain(
      'drafts/dashboards/exp_spending.json\n  dashboard exp_spending (draft)\n    error unknown_measure › total  drafts/dashboards/exp_spending.json:4:110\n',
    );
    expect(r.out).toContain('  by layer: graph 3 errors\n');
    expect(r.out).toContain('8 component schemas rendered, 1 dataset compiled to SQL');
    for (const internal of ['ADR-0038', 'incident #', 'objectstack-format.md', 'compiledDatasets', '9 schemas', 'Invalid input'])
      expect(r.out).not.toContain(internal);
  });

  it('--quiet drops warnings, --max-warnings fails on too many, -o writes the report to a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bvl-warn-'));
    writeFileSync(
      join(dir, 'stack.json'),
      JSON.stringify({ objects: [{ name: 'o', fields: { name: { type: 'text' } } }], data: [{ object: 'o', mode: 'insert', records: [{ name: 'a' }] }] }),
    );
    const plain = await run(dir, ['verify', 'stack.json', '--format', 'json']);
    expect(JSON.parse(plain.out).issues.map((i: { code: string }) => i.code)).toEqual(['seed_insert_mode_replay']);
    expect(plain.code).toBe(0);
    expect(JSON.parse((await run(dir, ['verify', 'stack.json', '--format', 'json', '-q'])).out)).toMatchObject({ issues: [], hiddenWarnings: 1 });
    const strict = await run(dir, ['verify', 'stack.json', '--max-warnings', '0']);
    expect(strict.code).toBe(1);
    expect(strict.out).toContain('✖ 1 warning, more than --max-warnings 0\n');
    expect((await run(dir, ['verify', 'stack.json', '--max-warnings', '1'])).code).toBe(0);
    // -q changes what is printed, never the exit: the hidden warning still fails --max-warnings 0,
    // and the summary says it is there.
    const quietStrict = await run(dir, ['verify', 'stack.json', '-q', '--max-warnings', '0']);
    expect(quietStrict.code).toBe(1);
    expect(quietStrict.out).not.toContain('seed_insert_mode_replay');
    expect(quietStrict.out).toContain('✖ 1 warning, more than --max-warnings 0 (not shown: -q prints errors only)');
    const quietWithin = await run(dir, ['verify', 'stack.json', '-q', '--max-warnings', '1']);
    expect(quietWithin.code).toBe(0);
    expect(quietWithin.out).toContain('1 warning not shown (-q), within --max-warnings 1');
    expect((await run(dir, ['verify', 'stack.json', '-q'])).out).toContain('1 warning not shown (-q)');
    const toFile = await run(dir, ['verify', 'stack.json', '--format', 'sarif', '-o', 'out.sarif']);
    expect(toFile.out).toBe('');
    expect(JSON.parse(readFileSync(join(dir, 'out.sarif'), 'utf8')).runs[0].results).toHaveLength(1);
  });

  it('prints escape bytes from the input as text in every command output (names, messages, notices, errors)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bvl-esc-'));
    const esc = '\u001b]0;pwned\u0007\u001b[2J\u001b[31m';
    writeFileSync(
      join(dir, 'stack.json'),
      JSON.stringify({
        objects: [{ name: `o${esc}`, fields: { name: { type: 'text' } } }],
        views: [{ list: { type: 'grid', data: { object: `o${esc}` }, columns: [`nme${esc}`] } }],
      }),
    );
    const colored = await run(dir, ['verify', 'stack.json'], {}, { FORCE_COLOR: '1' });
    expect(colored.code).toBe(1);
    for (const text of [colored.out, colored.err]) {
      // bvl's own colours are the only escape sequences; the input's are spelled out.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
      expect(text.replace(/\u001b\[(?:0|1|2|4|31|32|33|36|31;1|33;1)m/g, '')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    }
    expect(colored.out).toContain('\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[31m');
    // A file name and an error line too.
    const bad = await run(dir, ['verify', `missing${esc}.json`]);
    expect(bad.code).toBe(2);
    expect(bad.err).toBe(`bvl: cannot read missing\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[31m.json: no such file or directory\n`);
    // JSON stays JSON, with the same strings.
    const json = JSON.parse((await run(dir, ['verify', 'stack.json', '--format', 'json'])).out);
    expect(json.issues.some((i: { message: string }) => i.message.includes(esc))).toBe(true);
  });

  it('reads a stack from standard input as -', async () => {
    const text = JSON.stringify({
      objects: [{ name: 'o', fields: { name: { type: 'text' } } }],
      views: [{ list: { type: 'grid', data: { object: 'o' }, columns: ['nme'] } }],
    });
    const r = await run(EXAMPLE, ['verify', '-', '--format', 'json'], { stdin: async () => text });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).issues[0]).toMatchObject({ code: 'unknown_field', location: { file: '<stdin>', line: 1 } });
  });

  it('warns (on stderr, and in the JSON) instead of staying silent about what it does not read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bvl-silent-'));
    writeFileSync(join(dir, 'empty.json'), '{}');
    const empty = await run(dir, ['verify', 'empty.json', '--format', 'json']);
    expect(empty.err).toMatch(/^bvl: warning: empty.json holds no artifacts bvl reads/);
    expect(JSON.parse(empty.out).notices).toHaveLength(1);
    expect(empty.code).toBe(0);
    const app = example();
    mkdirSync(join(app, 'app', 'view'));
    writeFileSync(join(app, 'app', 'view', 'x.json'), '{}');
    const folder = await run(app, ['verify', 'app']);
    expect(folder.err).toContain('bvl: warning: app/view/ is not read: it is not an artifact folder (did you mean views/?)');
  });

  it('github format writes workflow annotations with paths from the repository root', async () => {
    const r = await run(EXAMPLE, [...args, '--format', 'github']);
    expect(r.out).toMatch(
      /^::error file=examples\/expense-tracker\/drafts\/dashboards\/exp_spending\.json,line=4,col=110,endLine=4,endColumn=118,title=bvl unknown_measure%3A dashboard exp_spending › total::Widget/m,
    );
    expect(r.code).toBe(1);
  });

  it('caps pretty output with "… and N more"; JSON is never capped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bvl-cap-'));
    const views = Array.from({ length: 60 }, (_, i) => ({
      name: `o.v${i}`,
      object: 'o',
      viewKind: 'list',
      config: { type: 'grid', columns: [`missing_${i}`] },
    }));
    writeFileSync(join(dir, 'stack.json'), JSON.stringify({ objects: [{ name: 'o', fields: { name: { type: 'text' } } }], views }, null, 2));
    const pretty = await run(dir, ['verify', 'stack.json']);
    expect(pretty.out).toContain('… and 10 more issues (10 errors) not shown: --all prints every one, --format json lists them all.');
    expect(pretty.out).toContain('✖ 60 errors, 0 warnings');
    expect((await run(dir, ['verify', 'stack.json', '--all'])).out).not.toContain('more issues');
    expect(JSON.parse((await run(dir, ['verify', 'stack.json', '--format', 'json'])).out).issues).toHaveLength(60);
  });
});

describe('bvl.config.json and baselines', () => {
  it('a config found upward from the input turns rules off, sets severities and ignores files', async () => {
    const dir = example();
    writeFileSync(
      join(dir, 'bvl.config.json'),
      JSON.stringify({ rules: { invalid_artifact: 'warning', dangling_dataset: 'off' }, ignore: ['drafts/views/**'] }),
    );
    const r = await run(join(dir, 'drafts'), ['verify', '../app', '--drafts', '.', '--format', 'json']);
    expect(JSON.parse(r.out).issues.map((i: { code: string; severity: string }) => [i.code, i.severity])).toEqual([['unknown_measure', 'error']]);
    writeFileSync(join(dir, 'bvl.config.json'), JSON.stringify({ rules: { invalid_artifact: 'warning' } }));
    const downgraded = JSON.parse((await run(dir, ['verify', 'app', '--drafts', 'drafts', '--format', 'json'])).out).issues;
    expect(downgraded.find((i: { code: string }) => i.code === 'invalid_artifact').severity).toBe('warning');
  });

  it.each([
    [{ rules: { unknwn_field: 'off' } }, /rules."unknwn_field" is not a bvl code \(did you mean "unknown_field"\?\)/],
    [{ rules: { unknown_field: 'silent' } }, /rules."unknown_field" must be "error", "warning" or "off"/],
    [{ ignores: [] }, /unknown key "ignores" \(did you mean "ignore"\?\)/],
  ])('a bad config is exit 2 with the key named: %j', async (config, message) => {
    const dir = example();
    writeFileSync(join(dir, 'bvl.config.json'), JSON.stringify(config));
    const r = await run(dir, ['verify', 'app']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).toMatch(/^bvl: bvl.config.json: /);
  });

  it('a baseline hides the issues it recorded and shows a new one', async () => {
    const dir = example();
    const written = await run(dir, ['baseline', 'app', '--drafts', 'drafts']);
    expect(written.out).toContain('wrote 3 known issues to bvl-baseline.json');
    const file = JSON.parse(readFileSync(join(dir, 'bvl-baseline.json'), 'utf8'));
    expect(file).toMatchObject({ bvl: 'baseline', version: 1 });
    expect(file.issues.map((e: { code: string }) => e.code).sort()).toEqual(['dangling_dataset', 'invalid_artifact', 'unknown_measure']);

    const quiet = await run(dir, ['verify', 'app', '--drafts', 'drafts', '--baseline', 'bvl-baseline.json']);
    expect(quiet.code).toBe(0);
    expect(quiet.out).toContain('no issues');
    expect(quiet.out).toContain('baseline bvl-baseline.json: 3 known issues hidden');

    // A new defect: a second widget asks for a measure the dataset lacks (its chart axis follows).
    const dash = join(dir, 'drafts', 'dashboards', 'exp_spending.json');
    writeFileSync(dash, readFileSync(dash, 'utf8').replace('"values": [ "expense_count" ]', '"values": [ "expense_cnt" ]'));
    const fresh = await run(dir, ['verify', 'app', '--drafts', 'drafts', '--baseline', 'bvl-baseline.json', '--format', 'json']);
    expect(fresh.code).toBe(1);
    const out = JSON.parse(fresh.out);
    expect(out.issues.map((i: { code: string; ref?: { member?: string } }) => [i.code, i.ref?.member])).toEqual([
      ['chart_field_unknown', 'by_status'],
      ['unknown_measure', 'by_status'],
    ]);
    expect(out.baseline).toEqual({ file: 'bvl-baseline.json', hidden: 3, gone: 0 });
  });

  it('a missing baseline file is exit 2, naming how to make one', async () => {
    const r = await run(EXAMPLE, ['verify', 'app', '--baseline', 'nope.json']);
    expect(r.code).toBe(2);
    expect(r.err).toBe('bvl: cannot read baseline nope.json: no such file (bvl baseline writes one)\n');
  });
});
