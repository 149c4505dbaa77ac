import { type ArtifactRef, type BuildIssue, fingerprint, type JsonPatchOp } from '@bvl/build-issue';
import { documentOf, type Graph, rebasePatch, STDIN_NAME } from '@bvl/metadata';
import { patchJsonText } from './patch-json-text.ts';
import { planFixes, type SkippedFix } from './plan-fixes.ts';

/** Rounds of verify → fix at most; each round fixes what the previous one uncovered. */
export const MAX_FIX_ROUNDS = 10;

/** What one verification of the files gives the fixer: the issues to fix and where artifacts came from. */
export interface FileCheck {
  readonly issues: readonly BuildIssue[];
  readonly graph: Graph;
  /** The texts of the files read (file → text), to patch. */
  readonly texts: ReadonlyMap<string, string>;
}

/** One value the fixer changed in a file, and the issue it fixed. */
export interface FixedValue {
  readonly file: string;
  readonly line?: number | undefined;
  readonly column?: number | undefined;
  /** Where in the file (RFC 6901). */
  readonly pointer: string;
  readonly code: string;
  /** `type name`, for people. */
  readonly artifact: string;
  readonly artifactRef: ArtifactRef;
  readonly member?: string | undefined;
  readonly op: JsonPatchOp['op'];
  readonly old?: unknown;
  readonly new?: unknown;
  readonly fixSafety: 'safe' | 'unsafe';
  readonly fingerprint: string;
}

/** A planned fix that could not be applied to its file, and why. */
export interface FailedFix {
  readonly file: string;
  readonly artifact: string;
  readonly codes: readonly string[];
  readonly error: string;
}

/** Why the loop ended. */
export type FixStopped = 'nothing_more_to_fix' | 'round_limit' | 'no_change';

/** What {@link fixTexts} did: the files' texts before and after, every value changed, and the last check. */
export interface FixTextsResult<C extends FileCheck> {
  readonly original: ReadonlyMap<string, string>;
  readonly current: ReadonlyMap<string, string>;
  /** Files whose text changed, sorted. */
  readonly files: string[];
  readonly fixed: FixedValue[];
  readonly failed: FailedFix[];
  /** Patches the first round left to the agent (unsafe ones without `unsafe`, conflicting ones). */
  readonly skipped: readonly SkippedFix[];
  readonly rounds: number;
  readonly stopped: FixStopped;
  /** The verification of the files as they are after fixing. */
  readonly last: C;
}

/**
 * The deterministic fixer over files, for every surface that edits files (`bvl fix`, `bvl mcp`'s
 * fix tool): verify (`check`, given the texts changed so far), apply every patch planFixes allows to
 * the file its artifact came from — a stack JSON, a folder file, an array file — as text edits that
 * keep the file's formatting, and repeat until nothing more is safe to fix (at most MAX_FIX_ROUNDS).
 * Nothing is written: the caller writes `current` (or prints a diff). Standard input is never edited.
 */
export async function fixTexts<C extends FileCheck>(
  check: (changed: ReadonlyMap<string, string>) => Promise<C>,
  options: {
    readonly unsafe?: boolean | undefined;
    readonly maxRounds?: number | undefined;
    /** Only these issues' patches (apply_fix picks them by id); default every issue with a patch. */
    readonly select?: ((issue: BuildIssue) => boolean) | undefined;
  } = {},
): Promise<FixTextsResult<C>> {
  const maxRounds = options.maxRounds ?? MAX_FIX_ROUNDS;
  const current = new Map<string, string>();
  const original = new Map<string, string>();
  const fixed: FixedValue[] = [];
  const failed = new Map<string, FailedFix>();
  const fail = (f: FailedFix) => failed.set(JSON.stringify(f), f);
  let skipped: readonly SkippedFix[] = [];
  let rounds = 0;
  let stopped: FixStopped = 'round_limit';
  const seenStates = new Set<string>();
  let last: C;
  for (;;) {
    last = await check(current);
    if (rounds === maxRounds) break;
    const plan = planFixes(options.select ? last.issues.filter(options.select) : last.issues, { unsafe: options.unsafe === true });
    if (rounds === 0) skipped = plan.skipped;
    let changed = false;
    for (const fix of plan.fixes) {
      const place = documentOf(last.graph, fix.artifact);
      const text = place && place.file !== STDIN_NAME ? (current.get(place.file) ?? last.texts.get(place.file)) : undefined;
      const artifact = `${fix.artifact.type} ${fix.artifact.name}`;
      if (!place || text === undefined) {
        fail({ file: place?.file ?? '', artifact, codes: fix.fixes.map((i) => i.code), error: 'the artifact was not read from a file bvl can edit' });
        continue;
      }
      const result = patchJsonText(text, rebasePatch(place.pointer, fix.ops));
      if (!result.ok) {
        fail({ file: place.file, artifact, codes: fix.fixes.map((i) => i.code), error: result.error });
        continue;
      }
      if (!original.has(place.file)) original.set(place.file, text);
      current.set(place.file, result.text);
      changed = true;
      for (const issue of fix.fixes) fixed.push(...describeFix(issue, place.file, rebasePatch(place.pointer, issue.patch ?? []), result.changes));
    }
    if (!changed) {
      stopped = rounds === 0 || plan.fixes.length === 0 ? 'nothing_more_to_fix' : 'no_change';
      break;
    }
    rounds++;
    const state = JSON.stringify([...current.entries()].sort());
    if (seenStates.has(state)) {
      stopped = 'no_change';
      break;
    }
    seenStates.add(state);
  }
  const files = [...current.keys()].filter((f) => current.get(f) !== original.get(f)).sort();
  return { original, current, files, fixed, failed: [...failed.values()], skipped, rounds, stopped, last };
}

/** The values a fixed issue's patch changed, from the changes of its file's patch. */
function describeFix(
  issue: BuildIssue,
  file: string,
  inFile: readonly JsonPatchOp[],
  changes: readonly { path: string; op: JsonPatchOp['op']; old?: unknown; new?: unknown }[],
): FixedValue[] {
  const paths = new Set(inFile.map((op) => op.path));
  const mine = changes.filter((c) => paths.has(c.path));
  return (mine.length ? mine : [{ path: inFile[0]?.path ?? '', op: inFile[0]?.op ?? 'replace' }]).map((c) => ({
    file,
    line: issue.location?.line,
    column: issue.location?.column,
    pointer: c.path,
    code: issue.code,
    artifact: `${issue.artifact.type} ${issue.artifact.name}`,
    artifactRef: issue.artifact,
    member: issue.ref?.member,
    op: c.op,
    old: c.old,
    new: c.new,
    fixSafety: issue.fixSafety ?? 'safe',
    fingerprint: fingerprint(issue),
  }));
}
