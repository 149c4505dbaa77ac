// Whole-process timings of the `bvl` binary (the built CLI in apps/cli/dist), as a user or a
// pre-commit hook runs it: node start, module loading, reading the stack, L1 + L2, printing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusFile, fixtureFile, generateStack, locateCorpora, REPO_ROOT } from '@bvl/test-support';
import { type Goal, show, type Timing, timeProcess, timeProcesses } from './measure.ts';

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

    // The 12.4k-artifact stack (bench-verify's, 4 MB) against the floor: node reading and parsing
    // the same file, timed in the same rounds (issue 21: the whole process within 4× of it, its peak
    // memory within 2×). Peak RSS beside it: bare node, and bvl verify on a one-object stack (its code).
    const big = join(tmp, 'generated-12.4k.json');
    writeFileSync(big, JSON.stringify(generateStack(12_400)));
    const floorScript = join(tmp, 'read-and-parse.mjs');
    writeFileSync(floorScript, "import { readFileSync } from 'node:fs';\nJSON.parse(readFileSync(process.argv[2], 'utf8'));\n");
    const tiny = join(tmp, 'one-object.json');
    writeFileSync(tiny, JSON.stringify({ objects: [{ name: 'one', fields: { title: { type: 'text' } } }] }));
    const [generated, floor, small, bare] = timeProcesses([bvl('verify', big), [node, floorScript, big], bvl('verify', tiny), [node, '-e', '0']], {
      runs: Math.ceil(RUNS / 2),
      cwd: tmp,
      env,
      memory: true,
    }) as [Timing, Timing, Timing, Timing];
    log(`bvl verify generated stack (12.4k artifacts, 4 MB JSON): ${show(generated)}`);
    log(`the floor, node reading + JSON.parse of the same file: ${show(floor)}`);
    log(`bvl verify one-object stack: ${show(small)}; bare node: ${show(bare)}`);
    const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined ? a / b : Number.NaN);
    log(
      `bvl verify 12.4k ÷ floor: ×${ratio(generated.median, floor.median).toFixed(2)} median, ×${ratio(generated.min, floor.min).toFixed(2)} fastest, ×${ratio(generated.cpu, floor.cpu).toFixed(2)} CPU; ` +
        `peak RSS ×${ratio(generated.rss, floor.rss).toFixed(2)} (above bvl's own code: ${((generated.rss ?? 0) - (small.rss ?? 0)).toFixed(0)} MB for the input vs the floor's ${((floor.rss ?? 0) - (bare.rss ?? 0)).toFixed(0)} MB above bare node)`,
    );
    goals.push({
      name: 'whole process bvl verify 12.4k-artifact generated stack',
      value: generated.median,
      best: generated.min,
      ...(generated.cpu !== undefined ? { cpu: generated.cpu } : {}),
      limit: 1_200,
      unit: 'ms',
    });
    goals.push({
      name: 'whole process bvl verify 12.4k ÷ node read+parse of the same file (issue 21)',
      value: ratio(generated.median, floor.median),
      best: ratio(generated.min, floor.min),
      ...(generated.cpu !== undefined && floor.cpu !== undefined ? { cpu: generated.cpu / floor.cpu } : {}),
      limit: 4,
      unit: '×',
    });
    goals.push({ name: 'peak RSS of bvl verify 12.4k ÷ that of node read+parse (issue 21)', value: ratio(generated.rss, floor.rss), limit: 2, unit: '×' });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return goals;
}
