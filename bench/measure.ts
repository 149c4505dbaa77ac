// Timing helpers of the bench. The machine is shared and noisy: every figure is the median of
// several runs and, beside it, the fastest run (what an idle machine does); limits are judged on the median.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The median and the minimum of some timings, in ms. */
export interface Timing {
  readonly median: number;
  readonly min: number;
  readonly runs: number;
  /** Whole processes: mean CPU time (user + system) per run, which other load on the machine barely changes. */
  readonly cpu?: number;
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

/**
 * Times a whole process, hyperfine-style: one untimed warm-up (disk cache), then `runs` spawns.
 * Throws when it exits with a status other than `expect`.
 */
export function timeProcess(argv: readonly string[], options: { runs: number; cwd: string; env?: NodeJS.ProcessEnv; expect?: number }): Timing {
  const run = () => {
    const t0 = performance.now();
    const r = spawnSync(argv[0]!, argv.slice(1), { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'] });
    const ms = performance.now() - t0;
    if (r.status !== (options.expect ?? 0)) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr?.toString().slice(0, 500)}`);
    return ms;
  };
  run();
  const before = childrenCpu();
  const xs: number[] = [];
  for (let i = 0; i < options.runs; i++) xs.push(run());
  const after = childrenCpu();
  return timing(xs, before !== undefined && after !== undefined ? (after - before) / options.runs : undefined);
}

export const ms = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(1)} ms`);
export const show = (t: Timing) => `${ms(t.median)} median, ${ms(t.min)} fastest of ${t.runs}${t.cpu !== undefined ? `; ${ms(t.cpu)} CPU per run` : ''}`;

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
