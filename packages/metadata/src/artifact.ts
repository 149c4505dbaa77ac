/** The artifact types bvl loads. Pages are loaded as nav targets only. */
export const ARTIFACT_TYPES = ['object', 'view', 'dashboard', 'dataset', 'app', 'seed', 'report', 'page', 'permission', 'sharing_rule'] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

/** Where an artifact came from: a file (when known) and a JSON pointer to its body in that file. */
export interface ArtifactSource {
  readonly file?: string | undefined;
  readonly pointer: string;
}

/** An artifact as loaded, before its schema is checked. */
export interface RawArtifact {
  readonly type: ArtifactType;
  readonly name: string;
  readonly body: unknown;
  readonly source: ArtifactSource;
  readonly draft: boolean;
  /** Views only: 'list' or 'form', and the object the view is bound to (if any). */
  readonly viewKind?: 'list' | 'form' | undefined;
  readonly object?: string | undefined;
  /** Views only: the view's key within its object (`board` of `exp_expense.board`). */
  readonly key?: string | undefined;
  /**
   * Views only: where the view's config sits inside the document it is stored in (`/listViews/board`
   * of a container, `/config` of a view item, `` of an inline view); issue paths are rebased on it.
   */
  readonly docPrefix?: string | undefined;
  /**
   * Views only: the stored document the view came from (a container, or an object's listViews). A
   * draft of that document replaces all of its views, so a view the draft drops is gone.
   */
  readonly container?: string | undefined;
  /** Refused at load (e.g. nested too deep): the name resolves, but the body is not read. */
  readonly refused?: boolean | undefined;
}

/** The loaded artifacts of one stack or folder, plus the problems found while loading. */
export interface ArtifactSet {
  readonly artifacts: RawArtifact[];
  readonly problems: LoadProblem[];
  /**
   * Things bvl did not read, said as warnings rather than kept silent: a stack with no artifacts, a
   * folder or file bvl does not read, a navigation item of a type bvl does not know. Never issues.
   */
  readonly notices?: readonly SourceNotice[] | undefined;
  /** The text of every file read, by the name its artifacts' `source.file` carries (for locations and `bvl fix`). */
  readonly texts?: ReadonlyMap<string, string> | undefined;
}

/** Something bvl did not read, and where. */
export interface SourceNotice {
  readonly message: string;
  readonly file?: string | undefined;
  /** RFC 6901 pointer into `file`, when the notice is about a member of it. */
  readonly pointer?: string | undefined;
}

/** A load-time problem, turned into a BuildIssue by buildGraph. */
export interface LoadProblem {
  readonly code: 'invalid_artifact' | 'duplicate_artifact';
  readonly type: ArtifactType;
  readonly name: string;
  readonly message: string;
  readonly fix?: string | undefined;
  readonly path?: string | undefined;
  readonly draft: boolean;
  readonly source: ArtifactSource;
}

/** `{ type, name }` key of an artifact. */
export const artifactKey = (type: string, name: string): string => `${type}\u0000${name}`;
