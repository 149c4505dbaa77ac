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

/** Where a streaming rule sends each finding, in order. */
export type Emit = (finding: Finding) => void;

/** An L1 rule: data plus one pure function over the prebuilt graph. Never throws, never does I/O. */
export interface Rule {
  readonly meta: RuleMeta;
  check(graph: Graph): Iterable<Finding>;
  /**
   * The same findings as {@link check}, in the same order, handed to `emit` as they are found: what
   * lintGraph calls when a rule has it. A plain function walks the graph without the iterator
   * result a generator allocates at every step of every loop (most of L1's garbage).
   */
  run?(graph: Graph, emit: Emit): void;
}

/** A rule as written: `check` (a generator), or `run` (streaming to `emit`; `check` is derived). */
export interface RuleDefinition {
  readonly meta: RuleMeta;
  check?(graph: Graph): Iterable<Finding>;
  run?(graph: Graph, emit: Emit): void;
}

/** Types a rule literal; a rule written with `run` gets the `check` that collects what it emits. */
export function defineRule(rule: RuleDefinition): Rule {
  const { meta, check, run } = rule;
  if (run)
    return {
      meta,
      run,
      check(graph) {
        const out: Finding[] = [];
        run(graph, (f) => out.push(f));
        return out;
      },
    };
  if (!check) throw new Error(`rule ${meta.name} has neither check nor run`);
  return { meta, check };
}

/** Re-exported for rules' convenience. */
export type { BuildIssue };
