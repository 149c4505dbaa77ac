import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BuildIssue, formatGithub, formatPretty, formatSarif, summaryLine } from '@bvl/build-issue';
import { type LocatedNotice, STDIN_NAME } from '@bvl/metadata';
import manifest from '../package.json' with { type: 'json' };
import { noticeLine } from './check-input.ts';
import { type CliIo, wantsColor } from './cli-io.ts';
import type { Format } from './parse-args.ts';
import { repoPaths } from './repo-root.ts';
import { terminalSafe } from './terminal-safe.ts';

/** Issues pretty output prints unless --all. */
export const PRETTY_MAX = 50;

/** How a report is written. */
export interface ReportOptions {
  readonly command: string;
  readonly format: Format;
  /** `-o`: write to this file instead of standard output. */
  readonly output?: string | undefined;
  /** `--all`: no cap on pretty output. */
  readonly all?: boolean | undefined;
  readonly notices?: readonly LocatedNotice[];
  /** Pretty output only: lines printed before the issues (what `bvl fix` changed). */
  readonly preamble?: readonly string[];
}

/**
 * Writes a command's report: the whole report as JSON (never capped); its issues as SARIF or as
 * GitHub annotations (paths relative to the repository root); or as text — issues grouped by
 * file, then the command's footer lines. Notices (what bvl did not read) go to stderr as warnings
 * in every format, and into the JSON and SARIF too.
 */
export function writeReport<R extends { readonly issues: readonly BuildIssue[] }>(
  io: CliIo,
  options: ReportOptions,
  report: R,
  footer: readonly string[],
): void {
  const notices = options.notices ?? [];
  // GitHub annotations carry the notices themselves; every other format says them on stderr.
  if (options.format !== 'github') for (const n of notices) io.stderr(`bvl: warning: ${noticeLine(n)}\n`);
  const toFile = options.output !== undefined;
  const color = !toFile && wantsColor(io.env, io.isTty);
  let text: string;
  if (options.format === 'json') {
    text = `${JSON.stringify(notices.length ? { ...report, notices } : report, null, 2)}\n`;
  } else if (options.format === 'sarif') {
    const repo = repoPaths(io.cwd);
    const log = formatSarif(report.issues, {
      toolVersion: manifest.version,
      relativeUri: (f) => (f === STDIN_NAME ? undefined : (repo.relative(f) ?? pathToFileURL(resolve(io.cwd, f)).href)),
      srcRoot: repo.rootUri,
      automationId: `bvl/${options.command}/`,
      notices: notices.map(noticeLine),
    });
    text = `${JSON.stringify(log, null, 2)}\n`;
  } else if (options.format === 'github') {
    const repo = repoPaths(io.cwd);
    text = `${formatGithub(report.issues, { relativePath: (f) => repo.relative(f), notices: notices.map(noticeLine) })}${summaryLine(report.issues)}\n${footer.join('\n')}\n`;
  } else {
    const pre = options.preamble?.length ? `${options.preamble.join('\n')}\n` : '';
    text = `${pre}${formatPretty(report.issues, { color, ...(options.all ? {} : { max: PRETTY_MAX }) })}${footer.join('\n')}\n`;
  }
  // A report file is printed on a terminal too (cat): it gets what standard output gets.
  if (toFile) writeFileSync(resolve(io.cwd, options.output!), terminalSafe(text));
  else io.stdout(text);
}
