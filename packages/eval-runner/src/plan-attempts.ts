import { createHash } from 'node:crypto';
import { applyPatch } from '@bvl/verify';
import type { Blueprint } from './case-file.ts';
import { CLEAN_VARIANT, DEFAULT_PROMPT, type EvalCase } from './eval-agent.ts';
import { type EvalSubject, subjectId } from './eval-subject.ts';
import type { GoldenCase } from './golden-case.ts';

/** Which defect sets a batch runs besides each clean blueprint: all, those the fixer repairs, those only an agent repairs, or none. */
export const DEFECT_FILTERS = ['all', 'fixer', 'agent', 'none'] as const;
export type DefectFilter = (typeof DEFECT_FILTERS)[number];

/**
 * One entry of a batch: a case at a version, in one variant (`clean` or a defect set) and one
 * prompt variant (`default`: the case's own prompt). pass@k is computed per entry and subject.
 */
export interface PlanEntry {
  readonly case: string;
  readonly version: string;
  readonly variant: string;
  readonly prompt: string;
}

/** One attempt: an entry run by one subject in one epoch (1-based). One row of `ai_eval_runs` each. */
export interface AttemptKey {
  readonly case: string;
  readonly variant: string;
  readonly prompt: string;
  /** The subject's id (see subjectId). */
  readonly subject: string;
  readonly epoch: number;
}

const byName = <T>([a]: [string, T], [b]: [string, T]) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The entries of a batch: each case's clean blueprint, then each of its defect sets (by name)
 * that the filter keeps, each in the case's default prompt and then each of its prompt variants.
 * A case recorded from a session has only its clean variant.
 */
export function planEntries(cases: readonly GoldenCase[], defects: DefectFilter = 'all'): PlanEntry[] {
  const entries: PlanEntry[] = [];
  for (const c of [...cases].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const prompts = [
      DEFAULT_PROMPT,
      ...Object.entries(c.prompts ?? {})
        .sort(byName)
        .map(([name]) => name),
    ];
    const variants = [
      CLEAN_VARIANT,
      ...Object.entries(c.defects)
        .sort(byName)
        .filter(([, set]) => defects === 'all' || defects === set.repair)
        .map(([name]) => name),
    ];
    for (const variant of variants) for (const prompt of prompts) entries.push({ case: c.name, version: c.version, variant, prompt });
  }
  return entries;
}

/**
 * Every attempt of a batch, epoch by epoch (every entry once before any twice, so a cut-short run
 * has covered the most), each entry by each subject in turn. A subject that does not read the
 * prompt runs only the default prompt.
 */
export function planAttempts(entries: readonly PlanEntry[], subjects: readonly EvalSubject[], epochs: number): AttemptKey[] {
  const out: AttemptKey[] = [];
  for (let epoch = 1; epoch <= epochs; epoch++)
    for (const e of entries)
      for (const s of subjects)
        if (s.readsPrompt !== false || e.prompt === DEFAULT_PROMPT)
          out.push({ case: e.case, variant: e.variant, prompt: e.prompt, subject: subjectId(s), epoch });
  return out;
}

/** How many attempts a batch plans: every entry by every subject (that reads it) in every epoch. */
export const plannedAttempts = (batch: { readonly plan: readonly PlanEntry[]; readonly subjects: readonly EvalSubject[]; readonly epochs: number }): number =>
  planAttempts(batch.plan, batch.subjects, 1).length * batch.epochs;

/** A stable string for an attempt (map keys, logs): `case/variant#epoch`, with `~prompt` and ` @subject` when they are not the only ones. */
export const attemptId = (k: AttemptKey): string => `${k.case}/${k.variant}${k.prompt !== DEFAULT_PROMPT ? `~${k.prompt}` : ''}#${k.epoch} ${k.subject}`;

/** The tenant every eval attempt runs in is named with this prefix, its batch, and a hash of the attempt. */
export const EVAL_TENANT_PREFIX = 'bvl_eval_';
const TENANT = /^bvl_eval_(\d+)_[0-9a-f]{10}$/;

/**
 * The ephemeral tenant of an attempt: `bvl_eval_<batch>_<hash>`. Deterministic, so a retried or
 * resumed attempt first drops what a killed one left, and named by batch, so a later run can tell
 * an orphan (its batch finished or went silent) from a live attempt.
 */
export function attemptTenant(batch: number, key: AttemptKey): string {
  const hash = createHash('sha256')
    .update(`${key.case}\u0000${key.variant}\u0000${key.prompt}\u0000${key.subject}\u0000${key.epoch}`)
    .digest('hex')
    .slice(0, 10);
  return `${EVAL_TENANT_PREFIX}${batch}_${hash}`;
}

/** The batch an eval tenant belongs to, or undefined for any other tenant. */
export function batchOfTenant(tenant: string): number | undefined {
  const m = TENANT.exec(tenant);
  return m ? Number(m[1]) : undefined;
}

/** A case in one variant and prompt variant, as an agent receives it: the defect set's operations applied to the blueprint. */
export function evalCaseOf(c: GoldenCase, variant: string, promptVariant: string = DEFAULT_PROMPT): EvalCase {
  const prompt = promptVariant === DEFAULT_PROMPT ? c.prompt : c.prompts?.[promptVariant];
  if (prompt === undefined) throw new Error(`case ${c.name} has no prompt variant ${JSON.stringify(promptVariant)}`);
  const base = {
    name: c.name,
    version: c.version,
    prompt,
    promptVariant,
    tags: c.tags,
    maxRounds: c.maxRounds,
    ...(c.budget ? { budget: c.budget } : {}),
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
