// In-process L1 + L2: `verify(published)` — graph build, lint, render contract, sorted issues —
// the function every surface calls, on stacks already read (collectStack is timed apart).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { lintGraph } from '@bvl/graph-lint';
import { type ArtifactSet, buildGraph, collectStack, readSource } from '@bvl/metadata';
import { corpusFile, fixtureDoc, generateStack, locateCorpora } from '@bvl/test-support';
import { verify } from '@bvl/verify';
import { type Goal, ms, show, timeIt } from './measure.ts';

function clean(set: ArtifactSet, label: string): void {
  const { issues } = verify(set);
  if (issues.length > 0) throw new Error(`${label} is not clean: ${JSON.stringify(issues.slice(0, 3))}`);
}

/** verify() on the generated 12.4k-artifact stack and, warm, on app-showcase (or field-service). */
export async function benchVerify(log: (line: string) => void): Promise<Goal[]> {
  const goals: Goal[] = [];
  const generated = generateStack(12_400);
  const read = await timeIt(5, () => collectStack(generated));
  const set = collectStack(generated);
  clean(set, 'the generated stack');
  // Warm the JIT on a mid-size stack first, so the figure is steady state.
  const warm = collectStack(generateStack(3_000));
  await timeIt(3, () => verify(warm));
  const big = await timeIt(11, () => verify(set), 2);
  log(
    `verify (L1+L2) on ${set.artifacts.length} generated artifacts: ${show(big)} (${((big.median * 1000) / set.artifacts.length).toFixed(1)} µs/artifact); collectStack ${ms(read.median)} more`,
  );
  goals.push({ name: 'in-process L1+L2 on 12.4k generated artifacts', value: big.median, best: big.min, limit: 200, unit: 'ms' });
  goals.push({ name: 'in-process L1+L2 on 12.4k generated artifacts (issue 21)', value: big.median, best: big.min, limit: 100, unit: 'ms' });
  goals.push(await retainedMemory(generated, log));

  const fixture = collectStack(fixtureDoc('field-service'));
  clean(fixture, 'field-service');
  const f = await timeIt(50, () => verify(fixture), 50);
  log(`verify (L1+L2) on field-service (${fixture.artifacts.length} artifacts), warm: ${show(f)}`);
  if (locateCorpora().present) {
    const showcase = collectStack(JSON.parse(readFileSync(corpusFile('app-showcase'), 'utf8')));
    clean(showcase, 'app-showcase');
    const s = await timeIt(50, () => verify(showcase), 50);
    log(`verify (L1+L2) on app-showcase (${showcase.artifacts.length} artifacts), warm: ${show(s)}`);
    goals.push({ name: 'in-process L1+L2 on app-showcase, warm', value: s.median, best: s.min, limit: 15, unit: 'ms' });
  } else goals.push({ name: 'in-process L1+L2 on field-service, warm (app-showcase absent)', value: f.median, best: f.min, limit: 15, unit: 'ms' });
  return goals;
}

/** How L1 and L1+L2 grow from 1k to 10k generated artifacts, and a field-heavy real shape at 10k. */
export async function benchGrowth(log: (line: string) => void): Promise<void> {
  const rows: Array<{ artifacts: number; l1: number; l12: number }> = [];
  for (const size of [1_000, 10_000]) {
    const set = collectStack(generateStack(size));
    const l1 = await timeIt(9, () => lintGraph(buildGraph(set).graph), 1);
    const l12 = await timeIt(9, () => verify(set), 1);
    rows.push({ artifacts: set.artifacts.length, l1: l1.median, l12: l12.median });
    log(
      `${set.artifacts.length} generated artifacts: L1 ${ms(l1.median)}, L1+L2 ${ms(l12.median)} (${((l12.median * 1000) / set.artifacts.length).toFixed(1)} µs/artifact)`,
    );
  }
  const [small, large] = rows as [(typeof rows)[0], (typeof rows)[0]];
  log(
    `growth 1k → 10k: artifacts ×${(large.artifacts / small.artifacts).toFixed(1)}, L1 ×${(large.l1 / small.l1).toFixed(1)}, L1+L2 ×${(large.l12 / small.l12).toFixed(1)} (linear ≈ equal factors)`,
  );

  // A field-heavy real shape: app-showcase (24 objects, up to 50 fields each) when the corpora are
  // present, else the field-service fixture, copied under new names to ~10k artifacts.
  const present = locateCorpora().present;
  const [label, text, prefix] = present
    ? ['app-showcase', readFileSync(corpusFile('app-showcase'), 'utf8'), 'showcase_']
    : ['field-service', JSON.stringify(fixtureDoc('field-service')), 'fs_'];
  const keys = ['objects', 'views', 'dashboards', 'datasets', 'apps', 'data'] as const;
  const base = JSON.parse(text) as Record<string, unknown[]>;
  const one = JSON.stringify(Object.fromEntries(keys.map((k) => [k, base[k] ?? []])));
  const big: Record<string, unknown[]> = Object.fromEntries(keys.map((k) => [k, []]));
  for (let i = 0; collectStack(big).artifacts.length < 10_000; i++) {
    const copy = JSON.parse(one.replaceAll(prefix, `sc${i}_`)) as Record<string, unknown[]>;
    for (const k of keys) big[k]!.push(...(copy[k] ?? []));
  }
  const set = collectStack(big);
  const t = await timeIt(5, () => verify(set), 1);
  log(
    `${set.artifacts.length} artifacts of ${label} copies (field-heavy): L1+L2 ${ms(t.median)} (${((t.median * 1000) / set.artifacts.length).toFixed(1)} µs/artifact)`,
  );
}

/**
 * Memory against the parsed input (issue 21: at most 2×): the heap the parsed stack file takes
 * (JSON.parse of its text), and the heap still held after `bvl verify`'s work on the same file —
 * readSource (the set, the file's text kept for locations) and verify() (the graph, the issues) —
 * both after a full collection. Peak memory of the whole process is bench-process's figure.
 */
async function retainedMemory(doc: Record<string, unknown[]>, log: (line: string) => void): Promise<Goal> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const heap = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  const dir = mkdtempSync(join(tmpdir(), 'bvl-bench-mem-'));
  try {
    const file = join(dir, 'generated-12.4k.json');
    const text = JSON.stringify(doc);
    writeFileSync(file, text);
    const h0 = heap();
    const parsed: unknown[] = [JSON.parse(text)];
    const h1 = heap();
    parsed.pop();
    const h2 = heap();
    const set = await readSource(file);
    const verification = verify(set);
    const h3 = heap();
    const input = h1 - h0;
    const held = h3 - h2;
    log(
      `memory: the parsed stack takes ${(input / 2 ** 20).toFixed(1)} MB of heap (its ${(text.length / 2 ** 20).toFixed(1)} MB text apart); after readSource + verify ${(held / 2 ** 20).toFixed(1)} MB is held (set, text, graph, ${verification.issues.length} issues) → ×${(held / input).toFixed(2)}`,
    );
    return { name: 'heap held by readSource + verify ÷ heap of the parsed stack (issue 21)', value: held / input, limit: 2, unit: '×' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
