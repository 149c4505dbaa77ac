import type { BuildIssue } from './build-issue.ts';
import { sortIssues } from './sort-issues.ts';

/** Options for {@link formatPretty}. */
export interface PrettyOptions {
  /** Emit ANSI colours (the CLI passes `process.stdout.isTTY`). */
  readonly color?: boolean;
}

const paint = (on: boolean, code: string, s: string): string => (on ? `\u001b[${code}m${s}\u001b[0m` : s);

/** Human-readable terminal text: one block per issue, sorted, then a one-line summary. */
export function formatPretty(issues: readonly BuildIssue[], options: PrettyOptions = {}): string {
  const color = options.color ?? false;
  const lines: string[] = [];
  for (const issue of sortIssues(issues)) {
    const sev = issue.severity === 'error' ? paint(color, '31', 'error  ') : paint(color, '33', 'warning');
    const where = `${issue.artifact.type} ${issue.artifact.name}${issue.ref?.member ? ` › ${issue.ref.member}` : ''}`;
    const tags = [issue.layer, issue.draft ? 'draft' : ''].filter(Boolean).join(', ');
    lines.push(`${sev} ${paint(color, '1', where)}  ${paint(color, '36', issue.code)} (${tags})${issue.path ? ` at ${issue.path}` : ''}`);
    lines.push(`        ${issue.message}`);
    if (issue.fix) lines.push(`        fix: ${issue.fix}`);
    if (issue.suggestions?.length) lines.push(`        did you mean: ${issue.suggestions.join(', ')}`);
  }
  lines.push(summaryLine(issues));
  return `${lines.join('\n')}\n`;
}

/** "2 errors, 1 warning" — or "no issues". */
export function summaryLine(issues: readonly BuildIssue[]): string {
  const errors = issues.filter((i) => i.severity === 'error').length;
  const warnings = issues.length - errors;
  if (issues.length === 0) return 'no issues';
  return `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`;
}
