import { createHash } from 'node:crypto';
import { applyPatch } from '@bvl/verify';
import type { Blueprint } from './case-file.ts';
import { CLEAN_VARIANT, type EvalCase } from './eval-agent.ts';
import type { GoldenCase } from './golden-case.ts';

/** Which defect sets a batch runs besides each clean blueprint: all, those the fixer repairs, those only an agent repairs, or none. */
export const DEFECT_FILTERS = ['all', 'fixer', 'agent', 'none'] as const;
export type DefectFilter = (typeof DEFECT_FILTERS)[number];

/** One entry of a batch: a case at a version, in one variant (`clean` or a defect set). pass@k is computed per entry. */
export interface PlanEntry {
  readonly case: string;
  readonly version: string;
  readonly variant: string;
}

/** One attempt: an entry in one epoch (1-based). One row of `ai_eval_runs` each. */
export interface AttemptKey {
  readonly case: string;
  readonly variant: string;
  readonly epoch: number;
}

/**
 * The entries of a batch: each case's clean blueprint, then each of its defect sets (by name)
 * that the filter keeps. A case recorded from a session has only its clean variant.
 */
export function planEntries(cases: readonly GoldenCase[], defects: DefectFilter = 'all'): PlanEntry[] {
  const entries: PlanEntry[] = [];
  for (const c of [...cases].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    entries.push({ case: c.name, version: c.version, variant: CLEAN_VARIANT });
    for (const [name, set] of Object.entries(c.defects).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      if (defects === 'all' || defects === set.repair) entries.push({ case: c.name, version: c.version, variant: name });
  }
  return entries;
}

/** Every attempt of a batch, epoch by epoch (every entry once before any twice), so a cut-short run has covered the most. */
export function planAttempts(entries: readonly PlanEntry[], epochs: number): AttemptKey[] {
  const out: AttemptKey[] = [];
  for (let epoch = 1; epoch <= epochs; epoch++) for (const e of entries) out.push({ case: e.case, variant: e.variant, epoch });
  return out;
}

/** How many attempts a batch plans: every entry in every epoch. */
export const plannedAttempts = (batch: { readonly plan: readonly PlanEntry[]; readonly epochs: number }): number => batch.plan.length * batch.epochs;

/** A stable string for an attempt (map keys, logs). */
export const attemptId = (k: AttemptKey): string => `${k.case}/${k.variant}#${k.epoch}`;

/** The tenant every eval attempt runs in is named with this prefix, its batch, and a hash of the attempt. */
export const EVAL_TENANT_PREFIX = 'bvl_eval_';
const TENANT = /^bvl_eval_(\d+)_[0-9a-f]{10}$/;

/**
 * The ephemeral tenant of an attempt: `bvl_eval_<batch>_<hash>`. Deterministic, so a retried or
 * resumed attempt first drops what a killed one left, and named by batch, so a later run can tell
 * an orphan (its batch finished or went silent) from a live attempt.
 */
export function attemptTenant(batch: number, key: AttemptKey): string {
  const hash = createHash('sha256').update(`${key.case}\u0000${key.variant}\u0000${key.epoch}`).digest('hex').slice(0, 10);
  return `${EVAL_TENANT_PREFIX}${batch}_${hash}`;
}

/** The batch an eval tenant belongs to, or undefined for any other tenant. */
export function batchOfTenant(tenant: string): number | undefined {
  const m = TENANT.exec(tenant);
  return m ? Number(m[1]) : undefined;
}

/** A case in one variant, as an agent receives it: the defect set's operations applied to the blueprint. */
export function evalCaseOf(c: GoldenCase, variant: string): EvalCase {
  const base = {
    name: c.name,
    version: c.version,
    prompt: c.prompt,
    tags: c.tags,
    maxRounds: c.maxRounds,
    assertions: c.assertions,
    variant,
    recorded: c.origin !== undefined,
  };
  if (variant === CLEAN_VARIANT) return { ...base, start: c.blueprint };
  const defect = c.defects[variant];
  if (!defect) throw new Error(`case ${c.name} has no defect set ${JSON.stringify(variant)}`);
  const applied = applyPatch(c.blueprint, defect.ops);
  // parseGoldenCase checked that every defect set applies; failing here is a bug, not a finding.
  if (!applied.ok) throw new Error(`defect set ${variant} of case ${c.name} does not apply: ${applied.error}`);
  return { ...base, start: applied.value as Blueprint, defect };
}
