// Byte-for-byte comparison of two builds of the `bvl` CLI (apps/cli/dist): every output of `bvl verify`
// (pretty/json/sarif/github, -q, --all, --layers, --renderer, --drafts, stdin, hostile inputs) and of
// `bvl fix` (--dry-run, and fixing a copy: the files it writes) on the fixtures, the example, the golden
// blueprints and defect sets, the corpora, seeded mutations of each, generated and broken stacks.
// Both builds are loaded into this one process (their own module instances) and run alternately.
//
//   npx tsx bench/compare-outputs.ts <dir of build A's dist> <dir of build B's dist>
//
// e.g. a copy of main's apps/cli/dist placed under apps/cli/ (so its npm imports resolve) against
// apps/cli/dist. Exit 1 on any difference. BVL_COMPARE_ONLY=<part of a name> limits the per-stack
// runs to those stacks; BVL_COMPARE_SHOW=<path> writes the first differing pair to <path>.a and .b.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateBrokenStack, generateStack, REPO_ROOT } from '@bvl/test-support';
import { cleanStacks, defectStacks, mutatedStacks } from '../packages/oracle/src/stacks.ts';

type Main = (argv: string[], io: unknown) => Promise<number>;
interface Run {
  readonly exit: number;
  readonly out: string;
}

const [distA, distB] = process.argv.slice(2);
if (distA === undefined || distB === undefined) {
  console.error('usage: compare-outputs.ts <distA> <distB>');
  process.exit(2);
}
const load = async (dist: string): Promise<Main> => ((await import(pathToFileURL(join(resolve(dist), 'main.js')).href)) as { main: Main }).main;
const mainA = await load(distA);
const mainB = await load(distB);

const tmp = mkdtempSync(join(tmpdir(), 'bvl-compare-'));
const run = async (main: Main, argv: string[], cwd: string, stdin = ''): Promise<Run> => {
  let out = '';
  const exit = await main(argv, {
    stdout: (s: string) => {
      out += `1>${s}`;
    },
    stderr: (s: string) => {
      out += `2>${s}`;
    },
    env: { NO_COLOR: '1' },
    cwd,
    isTty: false,
    stderrIsTty: false,
    stdin: async () => stdin,
  });
  return { exit, out };
};

/** Every file under a folder, by relative path, with its bytes. */
const tree = (dir: string, prefix = ''): string[] =>
  readdirSync(join(dir, prefix), { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? tree(dir, join(prefix, e.name)) : [`${join(prefix, e.name)}\n${readFileSync(join(dir, prefix, e.name), 'utf8')}`]));

let compared = 0;
let bytes = 0;
const differences: string[] = [];
const same = (what: string, a: string, b: string) => {
  compared++;
  bytes += a.length;
  if (a !== b) {
    if (differences.length === 0 && process.env.BVL_COMPARE_SHOW) {
      writeFileSync(`${process.env.BVL_COMPARE_SHOW}.a`, a);
      writeFileSync(`${process.env.BVL_COMPARE_SHOW}.b`, b);
    }
    differences.push(what);
  }
};

try {
  // Inputs, written once.
  const inputs = join(tmp, 'in');
  mkdirSync(inputs);
  const stacks: Array<{ name: string; file: string }> = [];
  const put = (name: string, doc: unknown) => {
    const file = join(inputs, `${name.replaceAll('/', '__')}.json`);
    writeFileSync(file, JSON.stringify(doc, null, 2));
    stacks.push({ name, file });
  };
  const clean = cleanStacks();
  for (const s of [...clean, ...defectStacks(), ...mutatedStacks(clean, 1), ...mutatedStacks(clean, 2)]) put(s.name, s.doc);
  for (const n of [40, 600, 12_400]) put(`generated/${n}`, generateStack(n));
  const broken = generateBrokenStack(60);
  put('broken/app', broken.app);
  const brokenDrafts = join(inputs, 'broken-drafts.json');
  writeFileSync(brokenDrafts, JSON.stringify(broken.drafts));
  // Hostile inputs: not JSON, not a stack, empty, escapes, a missing file, duplicate keys, a deep nest
  // (300 levels: past the 64-level refusal; at thousands, whether the refused artifact gets a line and
  // column depends on how much stack the JIT state leaves, so two builds in one process disagree).
  const hostile: Record<string, string> = {
    'not-json': '{ "objects": [ { "name": "a", ',
    array: '[1, 2, 3]',
    empty: '',
    escapes: JSON.stringify({ objects: [{ name: 'a\u001b[31mred\u0007', fields: { 't\u001b]0;x\u0007': { type: 'nope\u009b2J' } } }] }),
    'duplicate-keys': '{ "objects": [ { "name": "a", "name": "b", "fields": { "t": { "type": "text" }, "t": { "type": "number" } } } ] }',
    deep: `{"objects":[{"name":"a","fields":{"t":{"type":"text","x":${'['.repeat(300)}${']'.repeat(300)}}}}]}`,
    'wrong-types': JSON.stringify({ objects: { name: 1 }, views: 'x', dashboards: [null, 3, []], datasets: [{ name: {} }] }),
  };
  for (const [name, text] of Object.entries(hostile)) {
    const file = join(inputs, `hostile__${name}.json`);
    writeFileSync(file, text);
    stacks.push({ name: `hostile/${name}`, file });
  }

  const verifyFlags: string[][] = [
    [],
    ['--format', 'json'],
    ['--format', 'sarif'],
    ['--format', 'github'],
    ['-q'],
    ['--all'],
    ['--layers', 'graph'],
    ['--layers', 'render', '--format', 'json'],
    ['--renderer', 'objectui-2026-02', '--format', 'json'],
  ];
  const both = async (what: string, argv: string[], cwd = inputs, stdin = '') => {
    const a = await run(mainA, argv, cwd, stdin);
    const b = await run(mainB, argv, cwd, stdin);
    same(what, `${a.exit}\n${a.out}`, `${b.exit}\n${b.out}`);
  };

  const only = process.env.BVL_COMPARE_ONLY;
  for (const s of stacks) {
    if (only && !s.name.includes(only)) continue;
    for (const flags of verifyFlags) await both(`verify ${s.name} ${flags.join(' ')}`, ['verify', s.file, ...flags]);
    await both(`fix --dry-run ${s.name}`, ['fix', s.file, '--dry-run']);
    await both(`fix --dry-run --unsafe --format json ${s.name}`, ['fix', s.file, '--dry-run', '--unsafe', '--format', 'json']);
  }
  await both('verify broken + drafts', ['verify', join(inputs, 'broken__app.json'), '--drafts', brokenDrafts, '--format', 'json']);
  await both('verify missing file', ['verify', join(inputs, 'no-such.json')]);
  await both('verify stdin', ['verify', '-', '--format', 'json'], inputs, readFileSync(stacks[0]!.file, 'utf8'));
  const example = join(REPO_ROOT, 'examples/expense-tracker');
  for (const flags of verifyFlags) await both(`verify example folder ${flags.join(' ')}`, ['verify', 'app', '--drafts', 'drafts', ...flags], example);

  // `bvl fix` writing: each build fixes its own copy; the reports and the files written must agree.
  const fixable = stacks.filter((s) => !s.name.startsWith('hostile/') && statSync(s.file).size < 2_000_000);
  for (const s of fixable) {
    for (const unsafe of [[], ['--unsafe']]) {
      const dirA = join(tmp, 'fixA');
      const dirB = join(tmp, 'fixB');
      for (const d of [dirA, dirB]) {
        rmSync(d, { recursive: true, force: true });
        mkdirSync(d);
        cpSync(s.file, join(d, 'stack.json'));
      }
      const a = await run(mainA, ['fix', 'stack.json', ...unsafe], dirA);
      const b = await run(mainB, ['fix', 'stack.json', ...unsafe], dirB);
      same(`fix ${unsafe.join(' ')} ${s.name}`, `${a.exit}\n${a.out}`, `${b.exit}\n${b.out}`);
      same(`fix ${unsafe.join(' ')} ${s.name}: files written`, tree(dirA).join('\n'), tree(dirB).join('\n'));
    }
  }
  const exA = join(tmp, 'exA');
  const exB = join(tmp, 'exB');
  cpSync(example, exA, { recursive: true });
  cpSync(example, exB, { recursive: true });
  const a = await run(mainA, ['fix', 'app', '--drafts', 'drafts', '--unsafe'], exA);
  const b = await run(mainB, ['fix', 'app', '--drafts', 'drafts', '--unsafe'], exB);
  same('fix example folder', `${a.exit}\n${a.out}`, `${b.exit}\n${b.out}`);
  same('fix example folder: files written', tree(exA).join('\n'), tree(exB).join('\n'));

  console.log(`${stacks.length} inputs; ${compared} outputs compared (${(bytes / 2 ** 20).toFixed(1)} MB); ${differences.length} differ`);
  for (const d of differences.slice(0, 30)) console.log(`  differs: ${d}`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(differences.length === 0 ? 0 : 1);
