// In-process L1 + L2: `verify(published)` — graph build, lint, render contract, sorted issues —
// the function every surface calls, on stacks already read (collectStack is timed apart).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sortIssues } from '@bvl/build-issue';
import { lintGraph } from '@bvl/graph-lint';
import { type ArtifactSet, buildGraph, collectStack, readSource, rebaseViewPaths } from '@bvl/metadata';
import { checkRender } from '@bvl/render-contract';
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
  goals.push(...(await retainedMemory(generated, log)));

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
 * readSource (the set; the file's text is read again for locations, not held) and verify() (the
 * graph, the issues) — both after a full collection. Beside it, the peak: the live heap at each
 * phase boundary of that work (see {@link peakMemory}). Peak RSS of the whole process is
 * bench-process's figure.
 */
async function retainedMemory(doc: Record<string, unknown[]>, log: (line: string) => void): Promise<Goal[]> {
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
    // In a function of its own, so nothing it held is alive when the peak is measured.
    const { held, issues } = await (async () => {
      const set = await readSource(file);
      const verification = verify(set);
      return { held: heap() - h2, issues: verification.issues.length, set };
    })();
    const input = h1 - h0;
    log(
      `memory: the parsed stack takes ${(input / 2 ** 20).toFixed(1)} MB of heap (its ${(text.length / 2 ** 20).toFixed(1)} MB text apart); after readSource + verify ${(held / 2 ** 20).toFixed(1)} MB is held (set, graph, ${issues} issues; the text is read again for locations) → ×${(held / input).toFixed(2)}`,
    );
    const peak = peakMemory(file, heap, heap());
    log(
      `memory: peak live heap during readSource + verify ${(peak.bytes / 2 ** 20).toFixed(1)} MB (at ${peak.phase}; by phase: ${peak.phases}) → ×${(peak.bytes / input).toFixed(2)} the parsed stack`,
    );
    return [
      { name: 'heap held by readSource + verify ÷ heap of the parsed stack (issue 21)', value: held / input, limit: 2, unit: '×' },
      { name: 'peak live heap of readSource + verify ÷ heap of the parsed stack (issue 21)', value: peak.bytes / input, limit: 2, unit: '×' },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The peak of `bvl verify`'s live heap over the parsed input: its work on `file` step by step, as
 * readSource and verify() do it, with what each step keeps alive held at the step's end, and the
 * heap measured there after a full collection (`heap`, against `base`). Reading: the text and its
 * parse are alive at the end of the parse; the text is dropped before the set is collected.
 * Verifying: the set, then the graph, L1's issues, L2's result, the sorted stream. Scratch inside
 * a step (a rule's maps, L2's field cache, dropped when it ends) is not seen: a lower bound of the
 * true peak, which bench-process's peak RSS bounds from above.
 */
function peakMemory(file: string, heap: () => number, base: number): { bytes: number; phase: string; phases: string } {
  const at: Array<[string, number]> = [];
  const mark = (phase: string) => at.push([phase, heap() - base]);
  // As readSource: the text is read and parsed in a call of its own, and gone before the set is built.
  const parse = (): unknown => {
    const text = readFileSync(file, 'utf8');
    const doc: unknown = JSON.parse(text);
    mark('parse');
    return doc;
  };
  const read = (): ArtifactSet => {
    const set = collectStack(parse(), { file });
    mark('collect');
    return set;
  };
  const set = read();
  mark('read');
  const { graph, issues } = buildGraph(set);
  mark('graph');
  const l1 = lintGraph(graph);
  mark('L1');
  const l2 = checkRender(graph);
  mark('L2');
  const sorted = sortIssues(rebaseViewPaths(graph, [...issues, ...l1, ...l2.issues]));
  mark('sorted');
  if (sorted.length !== 0) throw new Error('the generated stack is not clean');
  const [phase, bytes] = at.reduce((max, x) => (x[1] > max[1] ? x : max));
  return { bytes, phase, phases: at.map(([p, b]) => `${p} ${(b / 2 ** 20).toFixed(1)}`).join(', ') };
}
