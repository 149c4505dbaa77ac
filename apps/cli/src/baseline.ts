import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { type BuildIssue, fingerprint } from '@bvl/build-issue';
import { ConfigError } from './config.ts';

/** The default baseline file name. */
export const BASELINE_FILE = 'bvl-baseline.json';

/** One recorded issue: its fingerprint, and what it was, for a person reading the file. */
export interface BaselineEntry {
  readonly fingerprint: string;
  readonly code: string;
  readonly artifact: string;
  readonly path?: string;
}

/** A baseline file's content. */
export interface Baseline {
  readonly bvl: 'baseline';
  readonly version: 1;
  readonly issues: readonly BaselineEntry[];
}

/** The baseline of an issue stream: every issue's fingerprint, sorted, once. */
export function makeBaseline(issues: readonly BuildIssue[]): Baseline {
  const byFp = new Map<string, BaselineEntry>();
  for (const i of issues) {
    const fp = fingerprint(i);
    if (!byFp.has(fp))
      byFp.set(fp, { fingerprint: fp, code: i.code, artifact: `${i.artifact.type} ${i.artifact.name}`, ...(i.path !== undefined ? { path: i.path } : {}) });
  }
  const entries = [...byFp.values()].sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0));
  return { bvl: 'baseline', version: 1, issues: entries };
}

/** Reads a baseline file's fingerprints. */
export function readBaseline(file: string, cwd: string): Set<string> {
  const shown = relative(cwd, resolve(cwd, file)) || file;
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(resolve(cwd, file), 'utf8'));
  } catch (e) {
    throw new ConfigError(
      `cannot read baseline ${shown}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file (bvl baseline writes one)' : (e as Error).message}`,
    );
  }
  const issues = (doc as Partial<Baseline> | null)?.issues;
  if ((doc as Partial<Baseline> | null)?.bvl !== 'baseline' || !Array.isArray(issues) || issues.some((e) => typeof e?.fingerprint !== 'string'))
    throw new ConfigError(`${shown} is not a bvl baseline file (bvl baseline writes one)`);
  return new Set(issues.map((e) => e.fingerprint));
}

/** Splits issues into new ones and those the baseline records; counts baseline entries that no longer occur. */
export function applyBaseline(issues: readonly BuildIssue[], known: ReadonlySet<string>): { issues: BuildIssue[]; hidden: number; gone: number } {
  const seen = new Set<string>();
  const kept: BuildIssue[] = [];
  for (const i of issues) {
    const fp = fingerprint(i);
    if (known.has(fp)) seen.add(fp);
    else kept.push(i);
  }
  return { issues: kept, hidden: issues.length - kept.length, gone: known.size - seen.size };
}
