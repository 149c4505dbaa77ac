export declare const CORPUS_NAMES: readonly ['app-todo', 'app-crm', 'app-showcase'];
export type CorpusName = (typeof CORPUS_NAMES)[number];
export declare const REPO_ROOT: string;
export interface LocatedCorpora {
  /** The folder searched. */
  readonly dir: string;
  /** All three stacks are there. */
  readonly present: boolean;
  /** The stacks that are not. */
  readonly missing: readonly CorpusName[];
  /** Their absence is a failure (CI, or BVL_CORPORA set). */
  readonly required: boolean;
}
export declare function locateCorpora(env?: Record<string, string | undefined>): LocatedCorpora;
export declare function corporaNotice(located?: LocatedCorpora): string;
