import type { BuildIssue } from './build-issue.ts';
import { sortIssues } from './sort-issues.ts';

/** Options for {@link formatGithub}. */
export interface GithubOptions {
  /** Turns an issue's `location.file` into a path relative to the repository root; default: as it is. */
  readonly relativePath?: (file: string) => string | undefined;
  /** Warnings that are not issues (what bvl did not read). */
  readonly notices?: readonly string[];
}

// Workflow command escaping: data escapes %, CR, LF; property values also : and ,.
const data = (s: string): string => s.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
const prop = (s: string): string => data(s).replaceAll(':', '%3A').replaceAll(',', '%2C');

/**
 * GitHub Actions workflow commands (`::error file=…,line=…::message`), one per issue, so a
 * workflow step's findings show as annotations on the pull request's changed lines.
 */
export function formatGithub(issues: readonly BuildIssue[], options: GithubOptions = {}): string {
  const lines: string[] = [];
  for (const n of options.notices ?? []) lines.push(`::warning title=bvl::${data(n)}`);
  for (const issue of sortIssues(issues)) {
    const loc = issue.location;
    const file = loc ? (options.relativePath ? options.relativePath(loc.file) : loc.file) : undefined;
    const props: string[] = [];
    if (file) props.push(`file=${prop(file)}`);
    if (file && loc?.line) {
      props.push(`line=${loc.line}`, `col=${loc.column ?? 1}`);
      if (loc.endLine !== undefined) props.push(`endLine=${loc.endLine}`);
      if (loc.endColumn !== undefined && loc.endLine === loc.line) props.push(`endColumn=${loc.endColumn}`);
    }
    props.push(`title=${prop(`bvl ${issue.code}: ${issue.artifact.type} ${issue.artifact.name}${issue.ref?.member ? ` › ${issue.ref.member}` : ''}`)}`);
    const text = issue.fix ? `${issue.message}\nFix: ${issue.fix}` : issue.message;
    lines.push(`::${issue.severity === 'error' ? 'error' : 'warning'} ${props.join(',')}::${data(text)}`);
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}
