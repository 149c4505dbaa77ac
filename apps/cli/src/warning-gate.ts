import type { BuildIssue } from '@bvl/build-issue';

/** What `-q` and `--max-warnings` decide for a report. */
export interface WarningGate<T extends Pick<BuildIssue, 'severity'>> {
  /** The issues to print: every one, or the errors only under `-q`. */
  readonly shown: T[];
  /** Every warning, shown or not. */
  readonly warnings: number;
  /** Warnings `-q` left out of the report. */
  readonly hidden: number;
  /** More warnings than `--max-warnings`: the command exits 1. */
  readonly tooMany: boolean;
  /** The footer lines that say both. */
  readonly footer: string[];
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * `-q` decides what is printed, never what passes: `--max-warnings` counts every warning whether
 * `-q` shows it or not (as ESLint's --quiet with --max-warnings does), so adding -q to quieten a CI
 * log cannot turn a failing run green. The footer says how many warnings -q left out and, when
 * they are over the limit, that they are what failed the run.
 */
export function gateWarnings<T extends Pick<BuildIssue, 'severity'>>(
  issues: readonly T[],
  options: { readonly quiet?: boolean | undefined; readonly maxWarnings?: number | undefined },
): WarningGate<T> {
  const warnings = issues.filter((i) => i.severity === 'warning').length;
  const shown = options.quiet ? issues.filter((i) => i.severity === 'error') : [...issues];
  const hidden = issues.length - shown.length;
  const tooMany = options.maxWarnings !== undefined && warnings > options.maxWarnings;
  const footer: string[] = [];
  if (tooMany)
    footer.push(`✖ ${plural(warnings, 'warning')}, more than --max-warnings ${options.maxWarnings}${hidden > 0 ? ' (not shown: -q prints errors only)' : ''}`);
  else if (hidden > 0)
    footer.push(`${plural(hidden, 'warning')} not shown (-q)${options.maxWarnings !== undefined ? `, within --max-warnings ${options.maxWarnings}` : ''}`);
  return { shown, warnings, hidden, tooMany, footer };
}
