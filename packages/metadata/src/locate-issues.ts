import type { ArtifactRef, BuildIssue, IssueLocation, JsonPatchOp } from '@bvl/build-issue';
import type { ArtifactSet, SourceNotice } from './artifact.ts';
import { findJsonPositions, type JsonPosition } from './find-json-positions.ts';
import type { Graph } from './graph.ts';
import { textsOf } from './source-texts.ts';

/** Where an artifact's stored document sits: its file and the pointer to that document in the file. */
export interface DocumentPlace {
  readonly file: string;
  readonly pointer: string;
}

/** A notice with the line and column of its pointer, when its file was read. */
export type LocatedNotice = SourceNotice & { readonly line?: number; readonly column?: number };

const problemKey = (code: string, type: string, name: string, message: string) => `${code}\u0000${type}\u0000${name}\u0000${message}`;

/**
 * The document an artifact's issue paths address, in its file: the artifact's source pointer — for a
 * view, less the view's place inside its stored document (`/listViews/board` of a container), since
 * view paths address that document (see rebaseViewPaths).
 */
export function documentOf(graph: Graph, artifact: ArtifactRef): DocumentPlace | undefined {
  const source = graph.sourceOf(artifact.type, artifact.name);
  if (!source?.file) return undefined;
  const prefix = artifact.type === 'view' ? (graph.views.get(artifact.name)?.docPrefix ?? '') : '';
  const pointer = prefix && source.pointer.endsWith(prefix) ? source.pointer.slice(0, -prefix.length) : source.pointer;
  return { file: source.file, pointer };
}

/** `ops` moved under `base` (a pointer into the file). */
export const rebasePatch = (base: string, ops: readonly JsonPatchOp[]): JsonPatchOp[] =>
  ops.map((op) => ('from' in op ? { ...op, path: base + op.path, from: base + op.from } : { ...op, path: base + op.path }));

/**
 * Adds to every issue whose artifact was read from a file its `location`: the file, the pointer into
 * that file, line and column (one streaming pass per file that has issues), and the patch in the
 * file's coordinates. Load problems (a duplicate, a body that is not an object) are placed where
 * they were found, not where the surviving artifact is. Issues without a file (stored metadata) are
 * returned as they are.
 */
export function locateIssues(issues: readonly BuildIssue[], graph: Graph, sets: ReadonlyArray<ArtifactSet | undefined>): BuildIssue[] {
  const texts = textsOf(sets);
  const problems = new Map<string, DocumentPlace>();
  for (const set of sets) {
    if (!set) continue;
    for (const p of set.problems)
      if (p.source.file) problems.set(problemKey(p.code, p.type, p.name, p.message), { file: p.source.file, pointer: p.source.pointer + (p.path ?? '') });
  }
  const places = issues.map((issue): { place: DocumentPlace; at: string } | undefined => {
    const problem = problems.get(problemKey(issue.code, issue.artifact.type, issue.artifact.name, issue.message));
    if (problem) return { place: problem, at: problem.pointer };
    const place = documentOf(graph, issue.artifact);
    return place ? { place, at: place.pointer + (issue.path ?? '') } : undefined;
  });
  const positions = positionsByFile(
    texts,
    places.flatMap((p) => (p ? [[p.place.file, p.at] as const] : [])),
  );
  return issues.map((issue, k) => {
    const p = places[k];
    if (!p) return issue;
    const pos = positions.get(p.place.file)?.get(p.at);
    const location: IssueLocation = { file: p.place.file, pointer: p.at, ...(pos ?? {}) };
    if (issue.patch && p.at === p.place.pointer + (issue.path ?? '')) location.patch = rebasePatch(p.place.pointer, issue.patch);
    return { ...issue, location };
  });
}

/** Notices with the line and column of their pointer (a file's text is read only when a notice points into it). */
export function locateNotices(sets: ReadonlyArray<ArtifactSet | undefined>): LocatedNotice[] {
  const texts = textsOf(sets);
  const notices: SourceNotice[] = [];
  for (const set of sets) {
    notices.push(...(set?.notices ?? []));
  }
  const positions = positionsByFile(
    texts,
    notices.flatMap((n) => (n.file && n.pointer !== undefined ? [[n.file, n.pointer] as const] : [])),
  );
  return notices.map((n) => {
    const pos = n.file && n.pointer !== undefined ? positions.get(n.file)?.get(n.pointer) : undefined;
    return pos ? { ...n, line: pos.line, column: pos.column } : n;
  });
}

function positionsByFile(texts: ReadonlyMap<string, string>, wanted: ReadonlyArray<readonly [string, string]>): Map<string, Map<string, JsonPosition>> {
  const byFile = new Map<string, Set<string>>();
  for (const [file, at] of wanted) {
    if (!texts.has(file)) continue;
    let set = byFile.get(file);
    if (!set) byFile.set(file, (set = new Set()));
    set.add(at);
  }
  const out = new Map<string, Map<string, JsonPosition>>();
  for (const [file, pointers] of byFile) {
    const found = findJsonPositions(texts.get(file)!, pointers);
    const clean = new Map<string, JsonPosition>();
    for (const [p, { line, column, endLine, endColumn }] of found) clean.set(p, { line, column, endLine, endColumn });
    out.set(file, clean);
  }
  return out;
}
