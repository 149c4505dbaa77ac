import { type ArtifactRef, type BuildIssue, formatPretty, formatSarif } from '@bvl/build-issue';
import type { CliIo } from './cli-io.ts';
import type { Format } from './parse-args.ts';

/**
 * Prints a command's report in the chosen format: the whole report as JSON; its issues as SARIF
 * (physical locations from `locate`); or the issues as text followed by the command's footer lines.
 */
export function writeReport<R extends { readonly issues: readonly BuildIssue[] }>(
  io: CliIo,
  format: Format,
  report: R,
  locate: (artifact: ArtifactRef) => string | undefined,
  footer: readonly string[],
): void {
  if (format === 'json') io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  else if (format === 'sarif') io.stdout(`${JSON.stringify(formatSarif(report.issues, { locate }), null, 2)}\n`);
  else io.stdout(`${formatPretty(report.issues, { color: io.isTty })}${footer.join('\n')}\n`);
}
