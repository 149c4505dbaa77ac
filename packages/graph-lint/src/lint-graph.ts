import { type BuildIssue, makeIssue } from '@bvl/build-issue';
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

/**
 * L1: runs every rule over the prebuilt graph and returns their issues. A rule that throws is a
 * bug, not a finding about the metadata; it is reported once as an issue (never a crash) so the
 * rest of the verification still reaches the agent.
 */
export function lintGraph(graph: Graph, rules: readonly Rule[] = RULES): BuildIssue[] {
  const issues: BuildIssue[] = [];
  for (const rule of rules) {
    try {
      for (const f of rule.check(graph)) {
        if (!rule.meta.codes.includes(f.code)) throw new Error(`rule ${rule.meta.name} emitted ${f.code}, which its meta does not declare`);
        issues.push(toIssue(graph, f));
      }
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
  return issues;
}
