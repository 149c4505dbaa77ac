import type { DomSweepEvidence } from './dom-sweep.ts';
import type { AppSummary } from './summarize-graph.ts';

/** An L3 probe issue as evidence: code, severity and where (the message lives in the probe report). */
export interface ProbeIssueEvidence {
  readonly code: string;
  readonly severity: 'error' | 'warning';
  readonly artifact: { readonly type: string; readonly name: string };
  readonly member?: string;
}

/** The L3 probe report as evidence: its issues and what each plane checked of its total. */
export interface ProbeEvidence {
  readonly issues: ProbeIssueEvidence[];
  readonly checked: Readonly<Record<string, number>>;
  readonly total: Readonly<Record<string, number>>;
}

/** An issue that remained when the build ended, as evidence: layer, code, severity and where. */
export interface IssueEvidence {
  readonly layer: string;
  readonly code: string;
  readonly severity: 'error' | 'warning';
  readonly artifact: { readonly type: string; readonly name: string };
  readonly member?: string;
  readonly path?: string;
}

/** The publish's seed report, counted. */
export interface SeedEvidence {
  readonly success: boolean;
  readonly inserted: number;
  readonly updated: number;
  readonly skipped: number;
  readonly errors: number;
}

/**
 * Everything a golden case is graded on, as plain JSON-able data (it is stored with each run):
 * whether the package was published through the gate, the rounds the build used, the published
 * app, the rows each object holds, the seed report, the L3 probe report and the DOM sweep. A part
 * that was not gathered is absent, and the assertions that need it fail saying so.
 */
export interface Evidence {
  readonly published: boolean;
  /** Repair rounds used; absent when the caller does not know. */
  readonly rounds?: number;
  readonly app: AppSummary;
  /** Rows per declared object after publish. */
  readonly rowCounts: Readonly<Record<string, number>>;
  readonly seedApplied?: SeedEvidence;
  readonly probes?: ProbeEvidence;
  readonly dom?: DomSweepEvidence;
  /** Every issue left when the build ended (L1+L2 over the drafts, the latest L3); absent when not gathered. */
  readonly issues?: IssueEvidence[];
  /** The intent review the agent ran after a clean publish; absent when it ran none. */
  readonly review?: ReviewEvidence;
  /** The judge's verdict per rubric assertion (by id); absent when the run had no judge. */
  readonly rubric?: Readonly<Record<string, RubricVerdict>>;
}

/** The intent review as evidence: its verdict and what it found (artifact and message per finding). */
export interface ReviewEvidence {
  readonly verdict: 'pass' | 'mismatch' | 'failed';
  readonly findings: ReadonlyArray<{ readonly artifact: string; readonly message: string }>;
}

/** A judge model's verdict on one rubric assertion, with its reasoning and what the call cost. */
export interface RubricVerdict {
  readonly pass: boolean;
  readonly reasoning: string;
  /** The judge's model. */
  readonly judge: string;
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly costUsd: number;
}
