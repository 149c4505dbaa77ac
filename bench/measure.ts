// Timing helpers of the bench. The machine is shared and noisy: every figure is the median of
// several runs and, beside it, the fastest run (what an idle machine does); limits are judged on the median.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** The median and the minimum of some timings, in ms. */
export interface Timing {
  readonly median: number;
  readonly min: number;
  readonly runs: number;
  /** Whole processes: mean CPU time (user + system) per run, which other load on the machine barely changes. */
  readonly cpu?: number;
  /** Whole processes timed with `memory`: median peak RSS, MB. */
  readonly rss?: number;
}

export function timing(xs: readonly number[], cpu?: number): Timing {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, min: s[0]!, runs: s.length, ...(cpu !== undefined ? { cpu } : {}) };
}

/** CPU time (ms) of this process's waited-for children so far (Linux /proc; undefined elsewhere). */
function childrenCpu(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command name: state is field 3, cutime 16 and cstime 17 (proc(5)), in clock ticks of 10 ms.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

/** Times `fn` `runs` times (after `warm` untimed runs). */
export async function timeIt(runs: number, fn: () => unknown, warm = 0): Promise<Timing> {
  for (let i = 0; i < warm; i++) await fn();
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    xs.push(performance.now() - t0);
  }
  return timing(xs);
}

/** Preloaded into a timed process with `memory`: it writes the process's peak RSS (KB) to the file BVL_BENCH_RSS names. */
const RSS_PRELOAD = `data:text/javascript,${encodeURIComponent(
  "import{writeFileSync}from'node:fs';process.on('exit',()=>writeFileSync(process.env.BVL_BENCH_RSS,String(process.resourceUsage().maxRSS)))",
)}`;

/** Options of {@link timeProcess} and {@link timeProcesses}. */
export interface ProcessOptions {
  readonly runs: number;
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly expect?: number;
  /** Record each run's peak RSS (argv[0] must be node: a preload is added after it). */
  readonly memory?: boolean;
}

/**
 * Times a whole process, hyperfine-style: one untimed warm-up (disk cache), then `runs` spawns.
 * Throws when it exits with a status other than `expect`.
 */
export function timeProcess(argv: readonly string[], options: ProcessOptions): Timing {
  return timeProcesses([argv], options)[0]!;
}

/**
 * Times several commands run in turns (one run of each, then the next round), so that a change in
 * the machine's load falls on all of them alike: their ratios are fairer than separate series.
 * CPU time is each command's mean per run (waited-for children's ticks, 10 ms each); peak RSS (MB) the median of the runs.
 */
export function timeProcesses(argvs: ReadonlyArray<readonly string[]>, options: ProcessOptions): Timing[] {
  const rssFile = join(options.cwd, `.bench-rss-${process.pid}`);
  const run = (argv: readonly string[]): { ms: number; cpu?: number; rss?: number } => {
    const args = options.memory ? [`--import=${RSS_PRELOAD}`, ...argv.slice(1)] : argv.slice(1);
    const env = { ...(options.env ?? process.env), ...(options.memory ? { BVL_BENCH_RSS: rssFile } : {}) };
    const before = childrenCpu();
    const t0 = performance.now();
    const r = spawnSync(argv[0]!, args, { cwd: options.cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    const ms = performance.now() - t0;
    const after = childrenCpu();
    if (r.status !== (options.expect ?? 0)) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr?.toString().slice(0, 500)}`);
    return {
      ms,
      ...(before !== undefined && after !== undefined ? { cpu: after - before } : {}),
      ...(options.memory ? { rss: Number(readFileSync(rssFile, 'utf8')) / 1024 } : {}),
    };
  };
  for (const argv of argvs) run(argv);
  const xs = argvs.map(() => [] as number[]);
  const cpu = argvs.map(() => [] as number[]);
  const rss = argvs.map(() => [] as number[]);
  for (let i = 0; i < options.runs; i++)
    argvs.forEach((argv, k) => {
      const r = run(argv);
      xs[k]!.push(r.ms);
      if (r.cpu !== undefined) cpu[k]!.push(r.cpu);
      if (r.rss !== undefined) rss[k]!.push(r.rss);
    });
  if (options.memory) rmSync(rssFile, { force: true });
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  return xs.map((x, k) => {
    const t = timing(x, cpu[k]!.length === x.length ? mean(cpu[k]!) : undefined);
    return rss[k]!.length > 0 ? { ...t, rss: timing(rss[k]!).median } : t;
  });
}

export const ms = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(1)} ms`);
export const show = (t: Timing) =>
  `${ms(t.median)} median, ${ms(t.min)} fastest of ${t.runs}${t.cpu !== undefined ? `; ${ms(t.cpu)} CPU per run` : ''}${t.rss !== undefined ? `; peak RSS ${t.rss.toFixed(0)} MB` : ''}`;

/** One goal of issue 10: a figure against its limit. */
export interface Goal {
  readonly name: string;
  /** The measured value (ms, or a ratio when `unit` is ×). */
  readonly value: number;
  readonly limit: number;
  readonly unit: 'ms' | '×' | 'tokens' | 'yes';
  /** The value must reach the limit rather than stay under it (a yes/no check: 1 = yes). */
  readonly atLeast?: boolean;
  /** The fastest run's value, when the machine's noise matters. */
  readonly best?: number;
  /** Whole processes: CPU time per run. */
  readonly cpu?: number;
}

export function goalLine(g: Goal): string {
  const f = (v: number) => (g.unit === '×' ? `×${v.toFixed(2)}` : g.unit === 'tokens' ? `${v} tokens` : g.unit === 'yes' ? (v >= 1 ? 'yes' : 'no') : ms(v));
  const met = g.atLeast ? g.value >= g.limit : g.value <= g.limit;
  if (g.unit === 'yes') return `${met ? 'met    ' : 'NOT met'}  ${g.name}: ${f(g.value)}`;
  const ratio = g.value / g.limit;
  const extra = [g.best !== undefined ? `fastest ${f(g.best)}` : '', g.cpu !== undefined ? `CPU ${f(g.cpu)}` : ''].filter(Boolean).join(', ');
  return `${met ? 'met    ' : 'NOT met'}  ${g.name}: ${f(g.value)}${extra ? ` (${extra})` : ''} vs limit ${f(g.limit)} → ${ratio.toFixed(2)} of the limit`;
}
