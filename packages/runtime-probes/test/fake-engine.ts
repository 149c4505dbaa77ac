// Test support: an in-memory ProbeEngine. Rows per object; views and datasets answer from tables
// the test supplies, so each judge can be driven to every outcome without a database.
import type { DatasetNode } from '@bvl/metadata';
import type { DatasetSelection } from '@bvl/render-contract';
import type { DatasetRun, ProbeEngine, ProbeOutcome, ViewRead } from '../src/index.ts';

export interface FakeSpec {
  /** Row count per object; an Error makes the count fail; missing objects have 0 rows. */
  readonly rows?: Record<string, number | Error>;
  /** A view read's answer (default: one row). */
  readonly readView?: ((object: string, read: ViewRead) => ProbeOutcome<{ rows: number; sql?: string }>) | null;
  /** A dataset run's answer (default: one row). */
  readonly runDataset?: ((dataset: DatasetNode, selection: DatasetSelection) => ProbeOutcome<DatasetRun>) | null;
  /** Delay per call (ms), to observe concurrency. */
  readonly delayMs?: number;
}

/** A fake engine plus what it was asked. */
export function fakeEngine(spec: FakeSpec = {}): ProbeEngine & { calls: string[]; maxInFlight: () => number } {
  const calls: string[] = [];
  let inFlight = 0;
  let max = 0;
  const run = async <T>(label: string, answer: () => T): Promise<T> => {
    calls.push(label);
    inFlight++;
    max = Math.max(max, inFlight);
    try {
      if (spec.delayMs) await new Promise((r) => setTimeout(r, spec.delayMs));
      return answer();
    } finally {
      inFlight--;
    }
  };
  const engine: ProbeEngine & { calls: string[]; maxInFlight: () => number } = {
    calls,
    maxInFlight: () => max,
    countRows: (object) =>
      run(`count ${object}`, () => {
        const n = spec.rows?.[object] ?? 0;
        return n instanceof Error ? { ok: false, error: n.message } : { ok: true, value: n };
      }),
  };
  if (spec.readView !== null)
    engine.readView = (object, read) => run(`view ${object}`, () => spec.readView?.(object, read) ?? { ok: true, value: { rows: 1 } });
  if (spec.runDataset !== null)
    engine.runDataset = (dataset, selection) =>
      run(`dataset ${dataset.name}`, () => spec.runDataset?.(dataset, selection) ?? { ok: true, value: { rows: 1, sql: 'select 1' } });
  return engine;
}
