/**
 * Records matched, inserted or resolved per statement. Large, because matching a chunk's
 * externalIds scans the table (no index on them) and inserts travel as one array per column
 * (INSERT … SELECT unnest), so a statement's size does not grow with its rows' parameters.
 */
export const SEED_CHUNK = 5_000;
/** Record-level errors kept in the report; the rest are counted in `errorsOmitted`. */
export const MAX_SEED_ERRORS = 500;
/** Records applied per publish; a larger seed set is cut off with an error, not run unbounded. */
export const MAX_SEED_RECORDS = 2_000_000;
