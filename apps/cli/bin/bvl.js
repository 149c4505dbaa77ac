#!/usr/bin/env node
// The `bvl` binary runs the built JavaScript in dist/ (npm run build; `npm ci` runs it through prepare).
import module from 'node:module';

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
