/**
 * Records prepared, matched, inserted or resolved per step. Large, because each step is one
 * statement per chunk whatever its size (new rows by one COPY, or INSERT … SELECT unnest of one
 * array per column; matches and updates through unnest), and bounded, because a chunk's prepared
 * rows are what the writer holds at once.
 */
export const SEED_CHUNK = 5_000;
/** Record-level errors kept in the report; the rest are counted in `errorsOmitted`. */
export const MAX_SEED_ERRORS = 500;
/** Records applied per publish; a larger seed set is cut off with an error, not run unbounded. */
export const MAX_SEED_RECORDS = 2_000_000;
