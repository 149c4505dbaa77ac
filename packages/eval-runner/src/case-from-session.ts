import type { BuildIssue } from '@bvl/build-issue';
import type { Assertion, Blueprint, CaseFile, CaseOrigin, ExpectedIssue } from './case-file.ts';

/** What a recorded case is made from: the session, the state it left, and the issues left in it. */
export interface SessionRecord {
  readonly origin: CaseOrigin;
  readonly goal: string;
  readonly maxRounds: number;
  /** The package as the session left it (published ⊕ drafts), as a stack document. */
  readonly stack: Blueprint;
  /** Every issue left (L1+L2 over the drafts, the latest L3). */
  readonly issues: readonly BuildIssue[];
}

/** Words of a goal kept in a case name made from it. */
const NAME_WORDS = 5;

/** A kebab-case case name from a goal and a session id: `track-expenses-with-a-spending-1a2b3c4d`. */
export function caseNameOf(goal: string, session: string): string {
  const ws = goal
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0)
    .slice(0, NAME_WORDS);
  const id = session
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 8);
  const head = ws.length > 0 && /^[a-z]/.test(ws[0]!) ? ws : ['session', ...ws];
  return [...head, id].filter((w) => w.length > 0).join('-');
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const names = (doc: Blueprint, key: string): string[] =>
  (Array.isArray(doc[key]) ? (doc[key] as unknown[]) : [])
    .map((a) => (typeof a === 'object' && a !== null ? str((a as Record<string, unknown>).name) : undefined))
    .filter((n): n is string => n !== undefined && /[a-z0-9]/i.test(n))
    .sort();
const role = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/^(?=[0-9])/, 'r_') || 'artifact';

/**
 * A golden case from a build session (pure): the session's goal as the prompt, the state it left
 * as the blueprint (the starting point, marked by `origin`: not a clean reference), and as
 * assertions the app the session built — each object and dashboard by its own name, published
 * through the gate, clean probes and DOM sweep, dashboards reachable, the session's round bound —
 * plus `issues_absent` for every error it left, so the incident cannot come back silently.
 */
export function caseFromSession(record: SessionRecord, name?: string): { caseFile: CaseFile; blueprint: Blueprint } {
  const objects = names(record.stack, 'objects');
  const dashboards = names(record.stack, 'dashboards');
  const taken = new Set<string>();
  const unique = (r: string) => {
    let out = r;
    for (let n = 2; taken.has(out); n++) out = `${r}_${n}`;
    taken.add(out);
    return out;
  };
  const errors = record.issues.filter((i) => i.severity === 'error');
  const left: ExpectedIssue[] = [
    ...new Map(
      errors.map((i) => {
        const e: ExpectedIssue = {
          code: i.code as ExpectedIssue['code'],
          artifact: { type: i.artifact.type, name: i.artifact.name },
          ...(i.path !== undefined ? { path: i.path } : {}),
        };
        return [JSON.stringify(e), e] as const;
      }),
    ).values(),
  ];
  const assertions: Assertion[] = [
    ...objects.map((o): Assertion => ({ kind: 'object_exists', role: unique(role(o)), match: [o] })),
    ...dashboards.map((d): Assertion => ({ kind: 'dashboard_exists', role: unique(role(d)), match: [d] })),
    ...(dashboards.length > 0 ? ([{ kind: 'widgets_return_rows' }, { kind: 'dashboards_reachable' }] as const) : []),
    { kind: 'no_error_boxes' },
    { kind: 'no_empty_widgets' },
    { kind: 'published' },
    { kind: 'probes_clean' },
    { kind: 'rounds_at_most', max: record.maxRounds },
    ...(left.length > 0 ? [{ kind: 'issues_absent' as const, issues: left }] : []),
  ];
  return {
    caseFile: {
      name: name ?? caseNameOf(record.goal, record.origin.session),
      prompt: record.goal,
      tags: ['from-session'],
      maxRounds: record.maxRounds,
      assertions,
      defects: {},
      origin: record.origin,
    },
    blueprint: record.stack,
  };
}
