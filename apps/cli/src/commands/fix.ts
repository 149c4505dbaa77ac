import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { textsOf } from '@bvl/metadata';
import { fixTexts, MAX_FIX_ROUNDS } from '@bvl/verify';
import { createTwoFilesPatch } from 'diff';
import { checkedLine, checkInputs, configFor, readInputs } from '../check-input.ts';
import { type CliIo, EXIT, wantsColor } from '../cli-io.ts';
import { COMMAND_HELP } from '../command-help.ts';
import { oneStackArg, parseCommandArgs, parseFormat, UsageError } from '../parse-args.ts';
import { writeReport } from '../write-report.ts';

const FIX_FLAGS = {
  drafts: { type: 'string' },
  'dry-run': { type: 'boolean' },
  unsafe: { type: 'boolean' },
  config: { type: 'string' },
  format: { type: 'string' },
  output: { type: 'string', short: 'o' },
  all: { type: 'boolean' },
} as const;

/**
 * `bvl fix`: verify, apply every safe patch (or unsafe too, with --unsafe) to the file its
 * artifact came from — stack JSON, a folder file, an array file — as text edits that keep the
 * file's formatting, and repeat until nothing more is safe to fix (at most MAX_FIX_ROUNDS rounds).
 * With --dry-run the rounds run on the texts in memory and a diff is printed instead. Exit codes
 * as verify, for what remains.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, FIX_FLAGS, 'fix');
  const stack = oneStackArg(positionals, 'fix', COMMAND_HELP.fix.usage);
  if (stack === '-' || values.drafts === '-') throw new UsageError('bvl fix edits files and cannot edit standard input; pass the file');
  const format = parseFormat(values.format, ['pretty', 'json'] as const);
  const dryRun = values['dry-run'] === true;
  const config = configFor(io, stack, values.config);

  const result = await fixTexts(
    async (changed) => {
      const inputs = await readInputs(io, stack, values.drafts, changed);
      const checked = checkInputs(io, inputs, {}, config);
      const texts = textsOf([inputs.published, inputs.drafts]);
      return { ...checked, graph: checked.verification.graph, texts };
    },
    { unsafe: values.unsafe === true },
  );
  const { current, original, files, fixed, failed, rounds, stopped, last } = result;
  if (!dryRun) for (const file of files) writeFileSync(resolve(io.cwd, file), current.get(file)!);

  const remaining = last.issues;
  const errors = remaining.filter((i) => i.severity === 'error').length;
  const unsafeLeft = remaining.filter((i) => i.fixSafety === 'unsafe').length;
  const verb = dryRun ? 'would fix' : 'fixed';
  const report = {
    ok: errors === 0,
    dryRun,
    rounds,
    stopped,
    fixed,
    failed,
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
  for (const f of failed) lines.push(`could not fix ${f.file || f.artifact}: ${f.codes.join(', ')} of ${f.artifact}: ${f.error}`);
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
