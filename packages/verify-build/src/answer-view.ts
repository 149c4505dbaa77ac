import type { ArtifactRef, BuildIssue, FixSafety, JsonPatchOp } from '@bvl/build-issue';
import type { BuildCard } from './build-card.ts';
import { issueIds, patchIdOf } from './issue-ids.ts';
import { masksOf } from './mask-issues.ts';
import { DEFAULT_SUMMARY_LIMIT, type Detail, encodeCursor, filtersOf, resolvePage, type ViewFilters, type ViewOptions } from './view-options.ts';

// What an answer carries of its issues, for every surface (HTTP, both MCP transports, the built-in
// agent): each issue once, with an id that the card, the session's round and the index refer to.
// Pure.

/**
 * The compact issue: a BuildIssue's identifying fields, one message and its fix, the id of its
 * patch (apply_fix takes it) and how safe that patch is; `member` is the member it is about (a
 * widget id, a field); `masks` lists the checks it keeps from running on that member.
 */
export interface AnswerIssue {
  readonly id: string;
  readonly layer: BuildIssue['layer'];
  readonly severity: BuildIssue['severity'];
  readonly code: string;
  readonly artifact: ArtifactRef;
  readonly member?: string;
  /** RFC 6901 pointer to the member in the artifact's document. */
  readonly path?: string;
  readonly message: string;
  readonly fix?: string;
  readonly patchId?: string;
  readonly fixSafety?: FixSafety;
  readonly masks?: readonly string[];
  /** Where it is in the file its artifact was read from: `file:line:column` (a local verify). */
  readonly at?: string;
}

/** The full issue: every BuildIssue field, with its id, its patch id and what it masks. */
export type FullAnswerIssue = BuildIssue & { readonly id: string; readonly patchId?: string; readonly masks?: readonly string[] };

/** What an answer left out, and how to fetch it. */
export interface MoreIssues {
  readonly errors: number;
  readonly warnings: number;
  /** Pass it (with nothing else, or with the same filters) for the next page (an answer that is not paged has none). */
  readonly cursor?: string;
  readonly next: string;
}

/** Errors of one code that a summary does not list: the artifacts they are in (each once). */
export interface UnlistedErrors {
  readonly code: string;
  readonly count: number;
  readonly artifacts: readonly string[];
}

/** A page of issues and what it leaves out. */
export interface IssuePage {
  readonly detail: Detail;
  /** Issues matching the filters (all pages). */
  readonly matching: { readonly errors: number; readonly warnings: number };
  readonly issues: ReadonlyArray<AnswerIssue | FullAnswerIssue>;
  readonly more?: MoreIssues;
  /** Summary only: every matching error not on this page, by code. */
  readonly unlisted?: readonly UnlistedErrors[];
  /** Filters applied (echoed when any). */
  readonly filters?: ViewFilters;
}

/** Artifacts an index lists at most; past it, counts stand for the rest. */
export const MAX_UNLISTED_ARTIFACTS = 600;

const artifactText = (a: ArtifactRef) => `${a.type} ${a.name}`;
const matches = (i: BuildIssue, f: ViewFilters) =>
  (f.layer === undefined || i.layer === f.layer) &&
  (f.severity === undefined || i.severity === f.severity) &&
  (f.codes === undefined || f.codes.includes(i.code)) &&
  (f.artifact === undefined || f.artifact === i.artifact.name || f.artifact === artifactText(i.artifact));

/** The compact form of an issue (a patch id only when the answer is bound to a draft version). */
export function compactIssue(i: BuildIssue, id: string, draftVersion: string | undefined): AnswerIssue {
  const masked = masksOf(i);
  return {
    id,
    layer: i.layer,
    severity: i.severity,
    code: i.code,
    artifact: { type: i.artifact.type, name: i.artifact.name },
    ...(i.ref?.member !== undefined ? { member: i.ref.member } : {}),
    ...(i.path !== undefined ? { path: i.path } : {}),
    message: i.message,
    ...(i.fix ? { fix: i.fix } : {}),
    ...(i.patch && draftVersion !== undefined ? { patchId: patchIdOf(draftVersion, id) } : {}),
    ...(i.patch ? { fixSafety: i.fixSafety ?? 'unsafe' } : {}),
    ...(masked ? { masks: masked } : {}),
    ...(i.location ? { at: i.location.line !== undefined ? `${i.location.file}:${i.location.line}:${i.location.column ?? 1}` : i.location.file } : {}),
  };
}

/** The full form of an issue. */
export function fullIssue(i: BuildIssue, id: string, draftVersion: string | undefined): FullAnswerIssue {
  const masked = masksOf(i);
  return { ...i, id, ...(i.patch && draftVersion !== undefined ? { patchId: patchIdOf(draftVersion, id) } : {}), ...(masked ? { masks: masked } : {}) };
}

/**
 * One page of the issues (sorted: errors first) under the options: the filters (a filter naming
 * an unknown code is an AnswerError), a limit (summary: 20 by default; full: all) and a cursor
 * (bound to the draft version and the filters). A summary also indexes every matching error it
 * does not list, so each error's code and artifact is in the answer. Without a draft version
 * (an answer that does not grade drafts: publish) there are no patch ids and no cursor.
 */
export function pageIssues(
  issues: readonly BuildIssue[],
  ids: readonly string[],
  draftVersion: string | undefined,
  options: ViewOptions,
  defaultDetail: Detail,
): IssuePage {
  const detail = options.detail ?? defaultDetail;
  const { filters, offset } = draftVersion === undefined ? { filters: filtersOf(options), offset: 0 } : resolvePage(options, draftVersion);
  const picked: number[] = [];
  for (let k = 0; k < issues.length; k++) if (matches(issues[k]!, filters)) picked.push(k);
  const limit = options.limit ?? (detail === 'summary' ? DEFAULT_SUMMARY_LIMIT : Number.POSITIVE_INFINITY);
  const page = picked.slice(offset, offset + limit);
  const errorsOf = (ks: readonly number[]) => ks.filter((k) => issues[k]!.severity === 'error').length;
  const form = detail === 'summary' ? compactIssue : fullIssue;
  const after = picked.slice(offset + page.length);
  const skipped = picked.slice(0, offset);
  const left = [...skipped, ...after];
  const errors = errorsOf(picked);
  const filtered = Object.keys(filters).length > 0;
  return {
    detail,
    matching: { errors, warnings: picked.length - errors },
    issues: page.map((k) => form(issues[k]!, ids[k]!, draftVersion)),
    ...(after.length > 0
      ? {
          more: {
            errors: errorsOf(after),
            warnings: after.length - errorsOf(after),
            ...(draftVersion !== undefined ? { cursor: encodeCursor(draftVersion, filters, offset + page.length) } : {}),
            next: `${after.length} more issue(s) after these: call again with {"cursor": "<this cursor>"}, or filter by codes, severity, layer or artifact`,
          },
        }
      : {}),
    ...(detail === 'summary' && left.some((k) => issues[k]!.severity === 'error') ? { unlisted: indexErrors(left.map((k) => issues[k]!)) } : {}),
    ...(filtered ? { filters } : {}),
  };
}

/** Errors by code, each with the artifacts it is in (once each, in order), bounded. */
function indexErrors(issues: readonly BuildIssue[]): UnlistedErrors[] {
  const byCode = new Map<string, { count: number; artifacts: Set<string> }>();
  let listed = 0;
  for (const i of issues) {
    if (i.severity !== 'error') continue;
    let g = byCode.get(i.code);
    if (!g) byCode.set(i.code, (g = { count: 0, artifacts: new Set() }));
    g.count++;
    const a = artifactText(i.artifact);
    if (!g.artifacts.has(a) && listed < MAX_UNLISTED_ARTIFACTS) {
      g.artifacts.add(a);
      listed++;
    }
  }
  return [...byCode].map(([code, g]) => ({ code, count: g.count, artifacts: [...g.artifacts] }));
}

/** The card as answers carry it: its issues by artifact as ids (each issue is in the answer's `issues` once). */
export type CardView = Omit<BuildCard, 'byArtifact'> & {
  readonly byArtifact: ReadonlyArray<{ readonly artifact: ArtifactRef; readonly issues: readonly string[] }>;
};

/** The card with its issues referred to by id. */
export function cardView(card: BuildCard, idOf: (i: BuildIssue) => string): CardView {
  return { ...card, byArtifact: card.byArtifact.map((g) => ({ artifact: g.artifact, issues: g.issues.map(idOf) })) };
}

/** Ids of issues by identity (the card's issues are the answer's), falling back to the first id of an equal issue. */
export function idLookup(issues: readonly BuildIssue[], ids: readonly string[]): (i: BuildIssue) => string {
  const byRef = new Map<BuildIssue, string>();
  const byJson = new Map<string, string>();
  issues.forEach((i, k) => {
    byRef.set(i, ids[k]!);
    const key = JSON.stringify(i);
    if (!byJson.has(key)) byJson.set(key, ids[k]!);
  });
  return (i) => byRef.get(i) ?? byJson.get(JSON.stringify(i)) ?? issueIds([i])[0]!;
}

/** A patch of an answer's issue, found by its issue id. */
export function patchOfIssue(
  issues: readonly BuildIssue[],
  ids: readonly string[],
  id: string,
): { issue: BuildIssue; ops: readonly JsonPatchOp[] } | undefined {
  const k = ids.indexOf(id);
  const issue = issues[k];
  return issue?.patch ? { issue, ops: issue.patch } : undefined;
}
