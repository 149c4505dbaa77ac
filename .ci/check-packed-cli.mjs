#!/usr/bin/env node
// Proves the CLI ships: `npm pack` of apps/cli, `npm i -g` of the tarball into an empty prefix, then
// `bvl --help`, `bvl verify` and `bvl publish` (embedded PGlite) from a temporary folder with no
// checkout around it — under every Node binary given as an argument (default: the one running this).
//
//   node .ci/check-packed-cli.mjs [/path/to/node ...]
//
// Plain Node, no dependencies: it runs before or without the workspace's dev tools. Exit 1 on the
// first failed check, naming it.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const nodes = process.argv.length > 2 ? process.argv.slice(2).map((n) => resolve(n)) : [process.execPath];
const started = performance.now();
const tmp = mkdtempSync(join(tmpdir(), 'bvl-packed-'));
let failed = false;

function check(what, ok, detail = '') {
  if (ok) return;
  console.error(`packed CLI: FAILED: ${what}${detail ? `\n${detail}` : ''}`);
  failed = true;
  throw new Error(what);
}

/** The environment of a user's shell: no npm_* variables of an enclosing `npm run`, no DATABASE_URL, no CI. */
function cleanEnv(path) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_|^DATABASE_URL$|^BVL_|^CI$|^NODE_OPTIONS$/i.test(k)) env[k] = v;
  env.PATH = path;
  return env;
}

try {
  // 1. Pack (prepack rebuilds dist/ from the sources).
  const packOut = execFileSync('npm', ['pack', '--json', '--pack-destination', tmp], {
    cwd: join(ROOT, 'apps/cli'),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [packed] = JSON.parse(packOut.slice(packOut.indexOf('[')));
  const tarball = join(tmp, packed.filename);
  const files = packed.files.map((f) => f.path);
  check(
    'the tarball holds bin/bvl.js, dist/main.js and package.json',
    ['bin/bvl.js', 'dist/main.js', 'package.json'].every((f) => files.includes(f)),
    files.join('\n'),
  );
  check('the tarball holds LICENSE (Apache-2.0, as package.json says)', files.includes('LICENSE'), files.join('\n'));
  const stray = files.filter((f) => !/^(bin\/|dist\/|package\.json$|README\.md$|LICENSE)/.test(f) || /\.ts$|\.test\./.test(f));
  check('the tarball holds nothing but bin/, dist/, package.json and README (no sources, no tests)', stray.length === 0, stray.join('\n'));

  // 2. Install globally into an empty prefix, from an empty folder.
  const prefix = join(tmp, 'prefix');
  const work = join(tmp, 'work');
  mkdirSync(prefix);
  mkdirSync(work);
  const install = spawnSync('npm', ['install', '--global', '--prefix', prefix, tarball, '--no-audit', '--no-fund'], {
    cwd: work,
    encoding: 'utf8',
    env: cleanEnv(process.env.PATH ?? ''),
  });
  check('npm install --global of the tarball succeeds', install.status === 0, install.stderr);
  check('the install prints no peer-dependency conflict', !/peer|ERESOLVE/i.test(install.stderr), install.stderr);
  const installed = join(prefix, 'lib/node_modules', packed.name);
  const deps = readdirSync(join(installed, 'node_modules'));
  const dev = ['@bvl', 'vitest', 'tsx', 'typescript', 'esbuild', 'turbo', '@biomejs'].filter((d) => deps.includes(d));
  check('no dev dependency is installed', dev.length === 0, dev.join(', '));

  // 3. Run it, with nothing of the checkout around: the example app is copied into the empty folder.
  cpSync(join(ROOT, 'examples/expense-tracker'), join(work, 'expense-tracker'), { recursive: true });
  for (const node of nodes) {
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    const env = cleanEnv(`${dirname(node)}:${join(prefix, 'bin')}:/usr/bin:/bin`);
    const bvl = (args, cwd = work) => spawnSync('bvl', args, { cwd, env, encoding: 'utf8' });
    const label = `node ${version}`;

    const help = bvl(['--help']);
    check(
      `${label}: bvl --help exits 0 and lists verify and publish`,
      help.status === 0 && /^ {2}verify\s/m.test(help.stdout) && /^ {2}publish\s/m.test(help.stdout),
      help.stderr,
    );
    const ver = bvl(['--version']);
    check(`${label}: bvl --version prints ${packed.version}`, ver.status === 0 && ver.stdout.trim() === packed.version, ver.stdout + ver.stderr);

    const clean = bvl(['verify', 'expense-tracker/app']);
    check(`${label}: bvl verify of the example app exits 0 with no issues`, clean.status === 0 && /no issues/.test(clean.stdout), clean.stdout + clean.stderr);
    const drafts = bvl(['verify', 'expense-tracker/app', '--drafts', 'expense-tracker/drafts', '--format', 'json']);
    const codes = drafts.status === 1 ? JSON.parse(drafts.stdout).issues.map((i) => i.code) : [];
    check(
      `${label}: bvl verify with the drafts exits 1 reporting incidents #1, #2 and #6`,
      JSON.stringify(codes) === JSON.stringify(['unknown_measure', 'dangling_dataset', 'invalid_artifact']),
      drafts.stdout + drafts.stderr,
    );

    const cwd = mkdtempSync(join(tmp, 'publish-'));
    const publish = bvl(['publish', join(work, 'expense-tracker/app'), '--format', 'json'], cwd);
    const out = publish.status === 0 ? JSON.parse(publish.stdout) : {};
    check(
      `${label}: bvl publish on PGlite exits 0, lands 9 seed rows and probes clean`,
      out.outcome === 'published' && out.seedApplied?.inserted === 9 && out.issues?.length === 0 && existsSync(join(cwd, '.bvl/data')),
      publish.stdout + publish.stderr,
    );
    console.log(`packed CLI: ${label}: --help, --version, verify (clean and with drafts), publish on PGlite: ok`);
  }
  console.log(
    `packed CLI: ${packed.filename} (${(packed.size / 1024).toFixed(0)} kB, ${files.length} files) installs and runs; ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
} catch (e) {
  if (!failed) console.error(`packed CLI: FAILED: ${e.message}`);
  process.exitCode = 1;
} finally {
  rmSync(tmp, { recursive: true, force: true });
  // npm pack's prepack rebuilt apps/cli/dist in place: it is the same build `npm run build` makes.
}
