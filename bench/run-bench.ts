// `npm run bench`: verification speed on generated stacks, plus the runtime (L3) bench when present.

import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { lintGraph } from '@bvl/graph-lint';
import { buildGraph, collectStack } from '@bvl/metadata';
import { corpusFile, fixtureDoc, generateStack, locateCorpora } from '@bvl/test-support';

const RUNS = 15;
const log = (line: string) => console.log(line);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

type Layer = (graph: ReturnType<typeof buildGraph>['graph']) => unknown;

async function loadRender(): Promise<Layer | undefined> {
  try {
    const mod = (await import('@bvl/render-contract')) as { checkRender?: Layer };
    return mod.checkRender;
  } catch {
    return undefined;
  }
}

log(`machine: ${cpus()[0]?.model ?? 'unknown cpu'} × ${cpus().length}, node ${process.version} (shared and noisy: compare ratios)`);
const render = await loadRender();
// Warm the JIT on a mid-size stack so the 1k figure measures steady state, not compilation.
const warm = collectStack(generateStack(3_000));
for (let i = 0; i < 5; i++) {
  const { graph } = buildGraph(warm);
  lintGraph(graph);
  render?.(graph);
}
const rows: Array<{ size: number; artifacts: number; l1: number; l2?: number }> = [];
for (const size of [1_000, 10_000]) {
  const doc = generateStack(size);
  const set = collectStack(doc);
  const artifacts = set.artifacts.length;
  const l1: number[] = [];
  const l12: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const { graph, issues } = buildGraph(set);
    const found = lintGraph(graph);
    const t1 = performance.now();
    if (issues.length + found.length !== 0) throw new Error(`generated stack is not clean: ${JSON.stringify([...issues, ...found].slice(0, 3))}`);
    l1.push(t1 - t0);
    if (render) {
      render(graph);
      l12.push(performance.now() - t0);
    }
  }
  rows.push({ size, artifacts, l1: median(l1), ...(render ? { l2: median(l12) } : {}) });
  log(
    `${artifacts} artifacts: L1 (graph build + lint) ${median(l1).toFixed(1)} ms median of ${RUNS} (${((median(l1) * 1000) / artifacts).toFixed(2)} µs/artifact)${render ? `; L1+L2 ${median(l12).toFixed(1)} ms (${((median(l12) * 1000) / artifacts).toFixed(2)} µs/artifact)` : ''}`,
  );
}
const [small, big] = rows as [(typeof rows)[0], (typeof rows)[0]];
log(
  `growth 1k → 10k: artifacts ×${(big.artifacts / small.artifacts).toFixed(1)}, L1 time ×${(big.l1 / small.l1).toFixed(1)}${big.l2 && small.l2 ? `, L1+L2 time ×${(big.l2 / small.l2).toFixed(1)}` : ''} (linear ≈ equal factors)`,
);
log(
  `goal: 10k artifacts L1 < 200 ms → ${big.l1 < 200 ? 'met' : 'NOT met'}${big.l2 !== undefined ? `; L1+L2 < 400 ms → ${big.l2 < 400 ? 'met' : 'NOT met'}` : ''}`,
);

// A field-heavy real shape: app-showcase (24 objects, up to 50 fields each, 132 seed records) when
// the corpora are present, else the field-service fixture, copied under new names until ~10k
// artifacts. Slower per artifact than the generated stack.
{
  const located = locateCorpora();
  const [label, base, prefix] = located.present
    ? ['app-showcase', JSON.parse(readFileSync(corpusFile('app-showcase'), 'utf8')) as Record<string, unknown[]>, 'showcase_']
    : ['field-service', fixtureDoc('field-service') as Record<string, unknown[]>, 'fs_'];
  const keys = ['objects', 'views', 'dashboards', 'datasets', 'apps', 'data'] as const;
  const text = JSON.stringify(Object.fromEntries(keys.map((k) => [k, base[k] ?? []])));
  const big: Record<string, unknown[]> = Object.fromEntries(keys.map((k) => [k, []]));
  for (let i = 0; collectStack(big).artifacts.length < 10_000; i++) {
    const copy = JSON.parse(text.replaceAll(prefix, `sc${i}_`)) as Record<string, unknown[]>;
    for (const k of keys) big[k]!.push(...(copy[k] ?? []));
  }
  const set = collectStack(big);
  const l1: number[] = [];
  const l12: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    const { graph } = buildGraph(set);
    lintGraph(graph);
    l1.push(performance.now() - t0);
    render?.(graph);
    l12.push(performance.now() - t0);
  }
  log(
    `${set.artifacts.length} artifacts (${label} copies, field-heavy): L1 ${median(l1).toFixed(1)} ms (${((median(l1) * 1000) / set.artifacts.length).toFixed(2)} µs/artifact)${render ? `; L1+L2 ${median(l12).toFixed(1)} ms` : ''}`,
  );
}

const runtime = new URL('./bench-runtime.ts', import.meta.url);
if (existsSync(runtime) && process.env.BVL_BENCH_SKIP_RUNTIME !== '1') {
  const { benchRuntime } = (await import(runtime.href)) as { benchRuntime: (log: (l: string) => void) => Promise<void> };
  await benchRuntime(log);
}
