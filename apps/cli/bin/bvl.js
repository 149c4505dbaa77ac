#!/usr/bin/env node
// The `bvl` binary runs the built JavaScript in dist/ (npm run build; `npm ci` runs it through prepare).
import module from 'node:module';

// The commands that read a stack, check it and exit keep V8's young generation at its starting size
// (1 MB semi-spaces) instead of letting it grow to 16 MB ones: `bvl verify` on a 12.4k-artifact stack
// peaks ~30 MB lower in RSS at no more CPU (more scavenges, each of fewer objects). The growth factor
// is read at each growth, so setting it now works; --max-semi-space-size would not (read once, at
// start). V8 11 to 13 (Node 20, 22, 24) have the flag; an unknown flag would print to stderr.
const ONE_SHOT = ['verify', 'fix', 'baseline'];
const v8Major = Number(process.versions.v8.split('.')[0]);
if (ONE_SHOT.includes(process.argv[2]) && v8Major >= 11 && v8Major <= 13) (await import('node:v8')).setFlagsFromString('--semi-space-growth-factor=1');

// Node ≥ 22.1 keeps the compiled bytecode of dist/ on disk between runs (bvl verify on app-showcase:
// ~20% less CPU on Node 24); Node 20 has no compile cache and skips this. Enabled before dist/ loads.
module.enableCompileCache?.();
const { main } = await import('../dist/main.js');

const readStdin = async () => {
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) text += chunk;
  return text;
};

process.exitCode = await main(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  env: process.env,
  cwd: process.cwd(),
  isTty: Boolean(process.stdout.isTTY),
  stderrIsTty: Boolean(process.stderr.isTTY),
  stdin: readStdin,
});
