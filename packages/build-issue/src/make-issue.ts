import type { BuildIssue } from './build-issue.ts';
import { CATALOGUE, type IssueCode } from './catalogue.ts';

/** Everything of an issue but what the catalogue already fixes (layer, severity). */
export type IssueInput = Omit<BuildIssue, 'layer' | 'severity' | 'code'> & { code: IssueCode };

/** Longest artifact/ref name an issue carries; hostile names are cut so an issue stays small. */
export const MAX_NAME_LENGTH = 256;
const cut = (s: string): string => (s.length > MAX_NAME_LENGTH ? `${s.slice(0, MAX_NAME_LENGTH - 1)}…` : s);

/**
 * Builds an issue whose layer and severity come from the catalogue, dropping empty optional
 * fields so the JSON stays minimal and stable. A patch is `safe` unless the caller says otherwise.
 */
export function makeIssue(input: IssueInput): BuildIssue {
  const entry = CATALOGUE[input.code];
  const issue: BuildIssue = {
    layer: entry.layer,
    severity: entry.severity,
    artifact: { type: input.artifact.type, name: cut(input.artifact.name) },
    code: input.code,
    message: input.message,
  };
  if (input.ref)
    issue.ref =
      input.ref.member === undefined
        ? { type: input.ref.type, name: cut(input.ref.name) }
        : { type: input.ref.type, name: cut(input.ref.name), member: cut(input.ref.member) };
  if (input.fix) issue.fix = input.fix;
  if (input.path !== undefined) issue.path = input.path;
  if (input.draft) issue.draft = true;
  if (input.suggestions?.length) issue.suggestions = input.suggestions;
  if (input.patch?.length) {
    issue.patch = input.patch;
    issue.fixSafety = input.fixSafety ?? 'safe';
  }
  return issue;
}
