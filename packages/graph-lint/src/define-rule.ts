import type { BuildIssue, FixSafety, IssueCode, JsonPatchOp } from '@bvl/build-issue';
import type { Graph } from '@bvl/metadata';

/** What a rule reports; lintGraph turns it into a BuildIssue (layer, severity, draft flag). */
export interface Finding {
  readonly code: IssueCode;
  readonly artifact: { readonly type: string; readonly name: string };
  readonly ref?: { readonly type: string; readonly name: string; readonly member?: string } | undefined;
  readonly message: string;
  readonly fix?: string | undefined;
  readonly path?: string | undefined;
  readonly suggestions?: readonly string[] | undefined;
  readonly patch?: readonly JsonPatchOp[] | undefined;
  /** `unsafe` when the patch is the best of several guesses; default `safe`. */
  readonly fixSafety?: FixSafety | undefined;
}

/** A rule's metadata: its name, the codes it may emit and one line of docs. */
export interface RuleMeta {
  /** kebab-case, equal to the file name under rules/. */
  readonly name: string;
  readonly codes: readonly IssueCode[];
  readonly docs: string;
}

/** An L1 rule: data plus one pure function over the prebuilt graph. Never throws, never does I/O. */
export interface Rule {
  readonly meta: RuleMeta;
  check(graph: Graph): Iterable<Finding>;
}

/** Identity helper that types a rule literal. */
export function defineRule(rule: Rule): Rule {
  return rule;
}

/** Re-exported for rules' convenience. */
export type { BuildIssue };
