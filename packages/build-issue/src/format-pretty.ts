import { type BuildIssue, LAYERS } from './build-issue.ts';
import { compareIssues, sortIssues } from './sort-issues.ts';
import { terminalText as t } from './terminal-text.ts';

/** Options for {@link formatPretty}. */
export interface PrettyOptions {
  /** Emit ANSI colours (the CLI decides from the terminal, NO_COLOR and FORCE_COLOR). */
  readonly color?: boolean;
  /** Print at most this many issues (errors first), then "… and N more". JSON is never capped. */
  readonly max?: number;
}

const paint = (on: boolean, code: string, s: string): string => (on ? `\u001b[${code}m${s}\u001b[0m` : s);
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const NO_FILE = '';

/**
 * Terminal text (what came from input is printed through {@link terminalText}): issues grouped by file, then by artifact, each on one line with its
 * `line:column`, code and message, then its fix and (when the message does not already say them)
 * its did-you-mean candidates on one line each; then a summary with counts per layer and how many
 * `bvl fix` can fix. With `max`, the first `max` issues in the total order are printed (errors
 * first) and the rest are counted.
 */
export function formatPretty(issues: readonly BuildIssue[], options: PrettyOptions = {}): string {
  if (issues.length === 0) return 'no issues\n';
  const color = options.color ?? false;
  const sorted = sortIssues(issues);
  const shown = options.max !== undefined && options.max < sorted.length ? sorted.slice(0, Math.max(0, options.max)) : sorted;
  const files = new Map<string, Map<string, BuildIssue[]>>();
  for (const issue of shown) {
    const file = issue.location?.file ?? NO_FILE;
    const artifact = `${issue.artifact.type} ${issue.artifact.name}`;
    let byArtifact = files.get(file);
    if (!byArtifact) files.set(file, (byArtifact = new Map()));
    byArtifact.set(artifact, [...(byArtifact.get(artifact) ?? []), issue]);
  }
  const lines: string[] = [];
  const fileOrder = [...files.keys()].sort((a, b) => (a === NO_FILE ? 1 : b === NO_FILE ? -1 : a < b ? -1 : a > b ? 1 : 0));
  for (const file of fileOrder) {
    lines.push(paint(color, '4', file === NO_FILE ? 'not read from a file' : t(file)));
    const byArtifact = files.get(file)!;
    const firstLine = (list: BuildIssue[]) => Math.min(...list.map((i) => i.location?.line ?? Number.MAX_SAFE_INTEGER));
    const artifacts = [...byArtifact.entries()].sort(([a, x], [b, y]) => firstLine(x) - firstLine(y) || (a < b ? -1 : a > b ? 1 : 0));
    for (const [artifact, list] of artifacts) {
      const draft = list.some((i) => i.draft) ? paint(color, '2', ' (draft)') : '';
      lines.push(`  ${paint(color, '1', t(artifact))}${draft}`);
      list.sort((a, b) => (a.location?.line ?? 0) - (b.location?.line ?? 0) || (a.location?.column ?? 0) - (b.location?.column ?? 0) || compareIssues(a, b));
      const at = (i: BuildIssue) => (i.location?.line ? `${t(file)}:${i.location.line}:${i.location.column ?? 1}` : '');
      for (const issue of list) {
        const sev = issue.severity === 'error' ? paint(color, '31', 'error') : paint(color, '33', 'warning');
        const member = issue.ref?.member ? ` › ${t(issue.ref.member)}` : '';
        const where = at(issue) || (issue.path ? t(issue.path) : '');
        lines.push(`    ${sev} ${paint(color, '36', t(issue.code))}${member}  ${paint(color, '2', where)}`);
        lines.push(`      ${t(issue.message)}`);
        if (issue.fix)
          lines.push(`      ${paint(color, '32', 'fix:')} ${t(issue.fix)}${issue.fixSafety === 'safe' ? paint(color, '2', '  (bvl fix applies it)') : ''}`);
        if (issue.suggestions?.length && !/did you mean/i.test(issue.message)) lines.push(`      did you mean: ${t(issue.suggestions.join(', '))}`);
      }
    }
    lines.push('');
  }
  const hidden = sorted.length - shown.length;
  if (hidden > 0) {
    const hiddenErrors = sorted.slice(shown.length).filter((i) => i.severity === 'error').length;
    lines.push(
      `… and ${plural(hidden, 'more issue')} (${hiddenErrors} error${hiddenErrors === 1 ? '' : 's'}) not shown: --all prints every one, --format json lists them all.`,
      '',
    );
  }
  lines.push(...summaryLines(sorted, color));
  return `${lines.join('\n')}\n`;
}

/** The summary: totals, counts per layer, and how many issues `bvl fix` fixes. */
function summaryLines(issues: readonly BuildIssue[], color: boolean): string[] {
  const errors = issues.filter((i) => i.severity === 'error').length;
  const head = summaryLine(issues);
  const out = [errors > 0 ? paint(color, '31;1', `✖ ${head}`) : paint(color, '33;1', `⚠ ${head}`)];
  const perLayer = LAYERS.flatMap((layer) => {
    const mine = issues.filter((i) => i.layer === layer);
    if (mine.length === 0) return [];
    const e = mine.filter((i) => i.severity === 'error').length;
    const parts = [e ? plural(e, 'error') : '', mine.length - e ? plural(mine.length - e, 'warning') : ''].filter(Boolean);
    return [`${layer} ${parts.join(', ')}`];
  });
  out.push(`  by layer: ${perLayer.join(' · ')}`);
  const safe = issues.filter((i) => i.fixSafety === 'safe').length;
  const unsafe = issues.filter((i) => i.fixSafety === 'unsafe').length;
  if (safe + unsafe > 0)
    out.push(`  ${safe} fixable with \`bvl fix\`${unsafe ? `, ${unsafe} more with \`bvl fix --unsafe\` (a best guess: review the diff)` : ''}`);
  return out;
}

/** "2 errors, 1 warning" — or "no issues". */
export function summaryLine(issues: readonly BuildIssue[]): string {
  const errors = issues.filter((i) => i.severity === 'error').length;
  const warnings = issues.length - errors;
  if (issues.length === 0) return 'no issues';
  return `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`;
}
