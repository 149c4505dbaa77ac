#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx: bvl has no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  env: process.env,
  cwd: process.cwd(),
  isTty: Boolean(process.stdout.isTTY),
});
