// Whole-process timings of the `bvl` binary (the built CLI in apps/cli/dist), as a user or a
// pre-commit hook runs it: node start, module loading, reading the stack, L1 + L2, printing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusFile, fixtureFile, generateStack, locateCorpora, REPO_ROOT } from '@bvl/test-support';
import { type Goal, show, timeProcess } from './measure.ts';

const BIN = join(REPO_ROOT, 'apps/cli/bin/bvl.js');
/** Spawns per figure. */
const RUNS = 15;

/** `bvl --help`, `bvl verify` on app-showcase (or the field-service fixture) and on a generated 12.4k-artifact stack. */
export function benchProcess(log: (line: string) => void, node = process.execPath): Goal[] {
  const tmp = mkdtempSync(join(tmpdir(), 'bvl-bench-'));
  const env = { ...process.env, DATABASE_URL: '' };
  const goals: Goal[] = [];
  try {
    const bvl = (...args: string[]) => [node, BIN, ...args];
    const help = timeProcess(bvl('--help'), { runs: RUNS, cwd: tmp, env });
    log(`bvl --help: ${show(help)}`);
    goals.push({
      name: 'whole process bvl --help',
      value: help.median,
      best: help.min,
      ...(help.cpu !== undefined ? { cpu: help.cpu } : {}),
      limit: 250,
      unit: 'ms',
    });

    const fixture = timeProcess(bvl('verify', fixtureFile('field-service')), { runs: RUNS, cwd: tmp, env });
    log(`bvl verify field-service (50 artifacts): ${show(fixture)}`);
    if (locateCorpora().present) {
      const showcase = timeProcess(bvl('verify', corpusFile('app-showcase')), { runs: RUNS, cwd: tmp, env });
      log(`bvl verify app-showcase (119 artifacts): ${show(showcase)}`);
      goals.push({
        name: 'whole process bvl verify app-showcase',
        value: showcase.median,
        best: showcase.min,
        ...(showcase.cpu !== undefined ? { cpu: showcase.cpu } : {}),
        limit: 500,
        unit: 'ms',
      });
    } else {
      log('bvl verify app-showcase: skipped (the ObjectStack corpora are not present); field-service stands in for the goal');
      goals.push({
        name: 'whole process bvl verify field-service (app-showcase absent)',
        value: fixture.median,
        best: fixture.min,
        ...(fixture.cpu !== undefined ? { cpu: fixture.cpu } : {}),
        limit: 500,
        unit: 'ms',
      });
    }

    const big = join(tmp, 'generated-12.4k.json');
    writeFileSync(big, JSON.stringify(generateStack(12_400)));
    const generated = timeProcess(bvl('verify', big), { runs: Math.ceil(RUNS / 2), cwd: tmp, env });
    log(`bvl verify generated stack (12.4k artifacts, 4 MB JSON): ${show(generated)}`);
    goals.push({
      name: 'whole process bvl verify 12.4k-artifact generated stack',
      value: generated.median,
      best: generated.min,
      ...(generated.cpu !== undefined ? { cpu: generated.cpu } : {}),
      limit: 1_200,
      unit: 'ms',
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return goals;
}
