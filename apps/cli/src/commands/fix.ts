import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type BuildIssue, fingerprint, type JsonPatchOp } from '@bvl/build-issue';
import { documentOf, rebasePatch, STDIN_NAME } from '@bvl/metadata';
import { planFixes } from '@bvl/verify';
import { createTwoFilesPatch } from 'diff';
import { type Checked, checkedLine, checkInputs, configFor, readInputs } from '../check-input.ts';
import { type CliIo, EXIT, wantsColor } from '../cli-io.ts';
import { commandNamed } from '../command-table.ts';
import { oneStackArg, parseCommandArgs, parseFormat, UsageError } from '../parse-args.ts';
import { patchJsonText } from '../patch-json-text.ts';
import { writeReport } from '../write-report.ts';

/** Rounds of verify → fix at most; each round fixes what the previous one uncovered. */
export const MAX_FIX_ROUNDS = 10;

const FIX_FLAGS = {
  drafts: { type: 'string' },
  'dry-run': { type: 'boolean' },
  unsafe: { type: 'boolean' },
  config: { type: 'string' },
  format: { type: 'string' },
  output: { type: 'string', short: 'o' },
  all: { type: 'boolean' },
} as const;

/** One value `bvl fix` changed, and the issue it fixed. */
interface FixedValue {
  readonly file: string;
  readonly line?: number | undefined;
  readonly column?: number | undefined;
  readonly pointer: string;
  readonly code: string;
  readonly artifact: string;
  readonly member?: string | undefined;
  readonly op: JsonPatchOp['op'];
  readonly old?: unknown;
  readonly new?: unknown;
  readonly fixSafety: 'safe' | 'unsafe';
  readonly fingerprint: string;
}

/** A planned fix that could not be applied to its file, and why. */
interface FailedFix {
  readonly file: string;
  readonly artifact: string;
  readonly codes: readonly string[];
  readonly error: string;
}

/** Why the loop ended. */
type Stopped = 'nothing_more_to_fix' | 'round_limit' | 'no_change';

/**
 * `bvl fix`: verify, apply every safe patch (or unsafe too, with --unsafe) to the file its
 * artifact came from — stack JSON, a folder file, an array file — as text edits that keep the
 * file's formatting, and repeat until nothing more is safe to fix (at most MAX_FIX_ROUNDS rounds).
 * With --dry-run the rounds run on the texts in memory and a diff is printed instead. Exit codes
 * as verify, for what remains.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, FIX_FLAGS, 'fix');
  const stack = oneStackArg(positionals, 'fix', commandNamed('fix')!.usage);
  if (stack === '-' || values.drafts === '-') throw new UsageError('bvl fix edits files and cannot edit standard input; pass the file');
  const format = parseFormat(values.format, ['pretty', 'json'] as const);
  const dryRun = values['dry-run'] === true;
  const config = configFor(io, stack, values.config);

  const current = new Map<string, string>();
  const original = new Map<string, string>();
  const fixed: FixedValue[] = [];
  const failed = new Map<string, FailedFix>();
  const fail = (f: FailedFix) => failed.set(JSON.stringify(f), f);
  let rounds = 0;
  let stopped: Stopped = 'round_limit';
  let last: Checked | undefined;
  const seenStates = new Set<string>();
  for (;;) {
    const inputs = await readInputs(io, stack, values.drafts, current);
    last = checkInputs(io, inputs, {}, config);
    if (rounds === MAX_FIX_ROUNDS) break;
    const texts = new Map([...(inputs.published.texts ?? []), ...(inputs.drafts?.texts ?? [])]);
    const plan = planFixes(last.issues, { unsafe: values.unsafe === true });
    let changed = false;
    for (const fix of plan.fixes) {
      const place = documentOf(last.verification.graph, fix.artifact);
      const text = place && place.file !== STDIN_NAME ? (current.get(place.file) ?? texts.get(place.file)) : undefined;
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
      for (const issue of fix.fixes) fixed.push(...describeFix(issue, place.file, result.changes));
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
  if (!dryRun) for (const [file, text] of current) if (text !== original.get(file)) writeFileSync(resolve(io.cwd, file), text);

  const remaining = last.issues;
  const errors = remaining.filter((i) => i.severity === 'error').length;
  const unsafeLeft = remaining.filter((i) => i.fixSafety === 'unsafe').length;
  const files = [...current.keys()].filter((f) => current.get(f) !== original.get(f)).sort();
  const verb = dryRun ? 'would fix' : 'fixed';
  const report = {
    ok: errors === 0,
    dryRun,
    rounds,
    stopped,
    fixed,
    failed: [...failed.values()],
    files,
    issues: remaining,
    checked: last.verification.checked,
  };

  if (format === 'json') {
    writeReport(io, { command: 'fix', format, output: values.output, notices: last.notices }, report, []);
    return errors === 0 ? EXIT.clean : EXIT.errors;
  }
  const color = values.output === undefined && wantsColor(io.env, io.isTty);
  const lines: string[] = [];
  if (dryRun)
    for (const file of files)
      lines.push(colorDiff(createTwoFilesPatch(file, file, original.get(file)!, current.get(file)!, undefined, undefined, { context: 2 }), color));
  for (const f of fixed) {
    const where = f.line ? `${f.file}:${f.line}:${f.column ?? 1}` : `${f.file}#${f.pointer}`;
    const change = f.op === 'remove' ? `removed ${show(f.old)}` : f.old === undefined ? `added ${show(f.new)}` : `${show(f.old)} → ${show(f.new)}`;
    lines.push(`${verb} ${where}  ${f.code}  ${f.artifact}${f.member ? ` › ${f.member}` : ''}: ${change}${f.fixSafety === 'unsafe' ? ' (unsafe)' : ''}`);
  }
  for (const f of failed.values()) lines.push(`could not fix ${f.file || f.artifact}: ${f.codes.join(', ')} of ${f.artifact}: ${f.error}`);
  const summary =
    fixed.length === 0
      ? 'nothing to fix: no issue has a safe fix'
      : `${verb} ${fixed.length} issue${fixed.length === 1 ? '' : 's'} in ${files.length} file${files.length === 1 ? '' : 's'} (${rounds} round${rounds === 1 ? '' : 's'}${stopped === 'round_limit' ? `, stopped at the ${MAX_FIX_ROUNDS}-round limit` : ''})${dryRun ? '; no file was changed (--dry-run)' : ''}`;
  const footer = [checkedLine(last.verification.checked), summary];
  if (unsafeLeft > 0 && !values.unsafe)
    footer.push(
      `${unsafeLeft} remaining issue${unsafeLeft === 1 ? ' has' : 's have'} a best-guess fix: bvl fix --unsafe applies ${unsafeLeft === 1 ? 'it' : 'them'} (review the diff)`,
    );
  if (lines.length) lines.push('');
  if (remaining.length) lines.push('remaining issues:');
  writeReport(
    io,
    { command: 'fix', format: 'pretty', output: values.output, all: values.all, notices: last.notices, preamble: lines },
    { issues: remaining },
    footer,
  );
  return errors === 0 ? EXIT.clean : EXIT.errors;
}

const show = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
};

/** The values a fixed issue's patch changed, from the changes of its file's patch. */
function describeFix(issue: BuildIssue, file: string, changes: readonly { path: string; op: JsonPatchOp['op']; old?: unknown; new?: unknown }[]): FixedValue[] {
  const paths = new Set((issue.location?.patch ?? []).map((op) => op.path));
  const mine = changes.filter((c) => paths.has(c.path));
  return (mine.length ? mine : [{ path: issue.location?.pointer ?? '', op: issue.patch?.[0]?.op ?? 'replace' }]).map((c) => ({
    file,
    line: issue.location?.line,
    column: issue.location?.column,
    pointer: c.path,
    code: issue.code,
    artifact: `${issue.artifact.type} ${issue.artifact.name}`,
    member: issue.ref?.member,
    op: c.op,
    old: c.old,
    new: c.new,
    fixSafety: issue.fixSafety ?? 'safe',
    fingerprint: fingerprint(issue),
  }));
}

function colorDiff(patch: string, color: boolean): string {
  const body = patch.split('\n').slice(1).join('\n').trimEnd();
  if (!color) return body;
  return body
    .split('\n')
    .map((l) =>
      l.startsWith('+') && !l.startsWith('+++')
        ? `\u001b[32m${l}\u001b[0m`
        : l.startsWith('-') && !l.startsWith('---')
          ? `\u001b[31m${l}\u001b[0m`
          : l.startsWith('@@')
            ? `\u001b[36m${l}\u001b[0m`
            : l,
    )
    .join('\n');
}
