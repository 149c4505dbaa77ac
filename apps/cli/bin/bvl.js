#!/usr/bin/env node
// The `bvl` binary runs the built JavaScript in dist/ (npm run build; `npm ci` runs it through prepare).
import { main } from '../dist/main.js';

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
