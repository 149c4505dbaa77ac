import { type BuildIssue, type IssueCode, makeIssue } from '@bvl/build-issue';
import type { Graph } from '@bvl/metadata';
import type { Finding, Rule } from './define-rule.ts';
import { RULES } from './rules/index.ts';

/** Whether the artifact a finding is about is a staged draft. */
function isDraft(graph: Graph, type: string, name: string): boolean {
  switch (type) {
    case 'object':
      return graph.objects.get(name)?.draft ?? false;
    case 'view':
      return graph.views.get(name)?.draft ?? false;
    case 'dashboard':
      return graph.dashboards.get(name)?.draft ?? false;
    case 'dataset':
      return graph.datasets.get(name)?.draft ?? false;
    case 'app':
      return graph.apps.get(name)?.draft ?? false;
    case 'seed':
      return graph.seeds.get(name)?.draft ?? false;
    default:
      return false;
  }
}

/** Turns a rule's finding into a BuildIssue: catalogue layer/severity, draft flag. */
export function toIssue(graph: Graph, f: Finding): BuildIssue {
  return makeIssue({
    code: f.code,
    artifact: { type: f.artifact.type, name: f.artifact.name },
    ...(f.ref ? { ref: { ...f.ref } } : {}),
    message: f.message,
    ...(f.fix ? { fix: f.fix } : {}),
    ...(f.path !== undefined ? { path: f.path } : {}),
    draft: isDraft(graph, f.artifact.type, f.artifact.name),
    ...(f.suggestions ? { suggestions: [...f.suggestions] } : {}),
    ...(f.patch ? { patch: [...f.patch], fixSafety: f.fixSafety ?? 'safe' } : {}),
  });
}

/** L1 issues listed per artifact and code; the rest are counted in one issue of that code. */
export const MAX_ISSUES_PER_ARTIFACT_CODE = 100;
/** L1 issues listed per run; past it, one issue counts the rest (the report stays a readable size). */
export const MAX_LINT_ISSUES = 20_000;

/**
 * L1: runs every rule over the prebuilt graph and returns their issues. A rule that throws is a
 * bug, not a finding about the metadata; it is reported once as an issue (never a crash) so the
 * rest of the verification still reaches the agent. The output is bounded as the rules stream it
 * (a seed of 500,000 bad records is not 500,000 issues): at most {@link MAX_ISSUES_PER_ARTIFACT_CODE}
 * per artifact and code and {@link MAX_LINT_ISSUES} in all, each cut counted in one issue.
 */
export function lintGraph(graph: Graph, rules: readonly Rule[] = RULES): BuildIssue[] {
  const issues: BuildIssue[] = [];
  const listed = new Map<string, { first: BuildIssue; listed: number; more: number }>();
  let beyond: { first: BuildIssue; more: number } | undefined;
  const add = (issue: BuildIssue) => {
    const key = `${issue.code}\u0000${issue.artifact.type}\u0000${issue.artifact.name}`;
    const group = listed.get(key) ?? { first: issue, listed: 0, more: 0 };
    listed.set(key, group);
    if (group.listed >= MAX_ISSUES_PER_ARTIFACT_CODE) group.more++;
    else if (issues.length >= MAX_LINT_ISSUES) beyond = { first: beyond?.first ?? issue, more: (beyond?.more ?? 0) + 1 };
    else {
      group.listed++;
      issues.push(issue);
    }
  };
  for (const rule of rules) {
    try {
      const emit = (f: Finding) => {
        if (!rule.meta.codes.includes(f.code)) throw new Error(`rule ${rule.meta.name} emitted ${f.code}, which its meta does not declare`);
        add(toIssue(graph, f));
      };
      if (rule.run) rule.run(graph, emit);
      else for (const f of rule.check(graph)) emit(f);
    } catch (e) {
      issues.push(
        makeIssue({
          code: 'invalid_artifact',
          artifact: { type: 'stack', name: rule.meta.name },
          message: `bvl's rule ${rule.meta.name} crashed (${(e as Error).message}); its checks are incomplete. This is a bvl bug — please report it with the input.`,
        }),
      );
    }
  }
  for (const { first, more } of listed.values()) {
    if (more === 0) continue;
    issues.push(
      makeIssue({
        code: first.code as IssueCode,
        artifact: first.artifact,
        message: `${first.artifact.type} "${first.artifact.name}" has ${more.toLocaleString('en-US')} more ${first.code} issues like the ${MAX_ISSUES_PER_ARTIFACT_CODE} listed; bvl lists at most ${MAX_ISSUES_PER_ARTIFACT_CODE} per artifact and code.`,
        fix: 'Fix the listed ones (the rest share their cause, usually one wrong value repeated), then verify again.',
        draft: first.draft === true,
      }),
    );
  }
  if (beyond)
    issues.push(
      makeIssue({
        code: beyond.first.code as IssueCode,
        artifact: beyond.first.artifact,
        message: `${beyond.more.toLocaleString('en-US')} more issues were found and not listed; bvl lists at most ${MAX_LINT_ISSUES.toLocaleString('en-US')} graph issues per run.`,
        fix: 'Fix the listed issues, then verify again to see the rest.',
        draft: beyond.first.draft === true,
      }),
    );
  return issues;
}
