import type { SeedNode } from '@bvl/metadata';

/** One record-level failure. `recordIndex` is the record's index in the seed; -1 means the seed as a whole. */
export interface SeedError {
  readonly seed: string;
  readonly object: string;
  readonly recordIndex: number;
  readonly field?: string;
  readonly message: string;
  /** The record was written without this field's value (an unresolved lookup, an unknown field): not a failed record. */
  readonly dropped?: true;
}

/** What happened to one seed. `failed` counts records that were not written at all. */
export interface SeedOutcome {
  readonly seed: string;
  readonly object: string;
  readonly mode: SeedNode['mode'];
  readonly records: number;
  readonly applied: boolean;
  readonly reason?: string;
  /** Rows `mode: "replace"` deleted before writing the records. */
  deleted?: number;
  inserted: number;
  /** Rows matched by key and brought to the record's values (whether or not they differed). */
  updated: number;
  /** Of those, rows whose values differed and were rewritten; absent while none were. */
  changed?: number;
  skipped: number;
  failed: number;
}

/**
 * The honest seed report of a publish (ObjectStack `seedApplied`): a seed failure never fails the
 * publish, it is reported here. `success` is false when any record or field failed.
 */
export interface SeedApplied {
  readonly success: boolean;
  readonly inserted: number;
  readonly updated: number;
  readonly skipped: number;
  readonly errors: SeedError[];
  readonly errorsOmitted: number;
  readonly seeds: SeedOutcome[];
  /**
   * The database failure that stopped the seeds (connection lost, disk full, …): the seed it hit
   * was rolled back whole and the seeds after it did not run. Seeds before it are committed and
   * counted.
   */
  readonly interrupted?: string;
}
