import { CATALOGUE, isCatalogueCode, LAYERS, type Layer, SEVERITIES, type Severity } from '@bvl/build-issue';
import { didYouMean } from '@bvl/metadata';
import { z } from 'zod';

/** How much of each issue an answer carries: the compact form, or every field. */
export const DETAILS = ['summary', 'full'] as const;
export type Detail = (typeof DETAILS)[number];

/** Issues a summary answer lists when no limit is given; the rest are counted and indexed. */
export const DEFAULT_SUMMARY_LIMIT = 20;
/** The largest page a caller may ask for. */
export const MAX_LIMIT = 1000;
/** Codes one filter may name. */
export const MAX_FILTER_CODES = 50;

/**
 * What every surface that answers with issues takes (HTTP, both MCP transports, the built-in
 * agent): how much detail, a page size and a cursor, and filters. Validated here, once.
 */
export const ViewOptionsSchema = z.strictObject({
  detail: z.enum(DETAILS).optional().describe('summary (MCP default) or full (HTTP default).'),
  limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe('Issues per page (summary: 20; full: all).'),
  cursor: z.string().min(1).max(4096).optional().describe('more.cursor of the previous answer.'),
  layer: z.enum(LAYERS).optional(),
  severity: z.enum(SEVERITIES).optional(),
  artifact: z.string().min(1).max(600).optional().describe('"<type> <name>" or a name.'),
  codes: z.array(z.string().min(1).max(64)).min(1).max(MAX_FILTER_CODES).optional(),
});
export type ViewOptions = z.output<typeof ViewOptionsSchema>;

/** The filters of a view, normalized (what a cursor is bound to). */
export interface ViewFilters {
  readonly layer?: Layer;
  readonly severity?: Severity;
  readonly artifact?: string;
  readonly codes?: readonly string[];
}

/** One problem with a caller's view arguments, patch ids or draft version. */
export interface AnswerProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * A caller's mistake in what it asked an answer for: an unknown code in a filter, a cursor of
 * another answer, an unknown or stale patch id, a stale draft version. Every surface answers it as
 * a 400 `invalid_request` with its problems, and nothing is applied.
 */
export class AnswerError extends Error {
  override readonly name = 'AnswerError';
  constructor(
    message: string,
    readonly problems: readonly AnswerProblem[] = [],
  ) {
    super(message);
  }
}

/** The filters of the options, checked: every code must be in the catalogue (did-you-mean otherwise). */
export function filtersOf(options: ViewOptions): ViewFilters {
  const problems: AnswerProblem[] = [];
  for (const [i, code] of (options.codes ?? []).entries()) {
    if (isCatalogueCode(code)) continue;
    const near = didYouMean(code, Object.keys(CATALOGUE), 1);
    problems.push({
      path: `codes.${i}`,
      message: `unknown code ${JSON.stringify(code)}${near.length ? `; did you mean ${JSON.stringify(near[0])}?` : ''} (bvl rules lists them)`,
    });
  }
  if (problems.length) throw new AnswerError(`the filter names ${problems.length === 1 ? 'a code' : 'codes'} bvl does not have`, problems);
  return {
    ...(options.layer ? { layer: options.layer } : {}),
    ...(options.severity ? { severity: options.severity } : {}),
    ...(options.artifact ? { artifact: options.artifact } : {}),
    ...(options.codes ? { codes: [...new Set(options.codes)].sort() } : {}),
  };
}

const sameFilters = (a: ViewFilters, b: ViewFilters) => JSON.stringify(a) === JSON.stringify(b);

/** The part of a draft version a cursor or patch id carries. */
export const versionTag = (draftVersion: string) => draftVersion.slice(0, 12);

interface CursorBody {
  readonly v: string;
  readonly o: number;
  readonly f: ViewFilters;
}

/** A cursor: where the next page starts, bound to the draft version and the filters of its answer. */
export function encodeCursor(draftVersion: string, filters: ViewFilters, offset: number): string {
  return `c1.${Buffer.from(JSON.stringify({ v: versionTag(draftVersion), o: offset, f: filters } satisfies CursorBody)).toString('base64url')}`;
}

/**
 * Where a page starts and which filters apply. A cursor carries its answer's filters (filters given
 * with it must be the same) and draft version (the drafts must not have changed since): otherwise
 * an {@link AnswerError} says which.
 */
export function resolvePage(options: ViewOptions, draftVersion: string): { filters: ViewFilters; offset: number } {
  const given = filtersOf(options);
  if (options.cursor === undefined) return { filters: given, offset: 0 };
  const body = decodeCursor(options.cursor);
  const filtered = options.layer !== undefined || options.severity !== undefined || options.artifact !== undefined || options.codes !== undefined;
  if (filtered && !sameFilters(given, body.f))
    throw new AnswerError('the cursor belongs to an answer with other filters', [
      {
        path: 'cursor',
        message: `it was made for the filters ${JSON.stringify(body.f)}, not ${JSON.stringify(given)}: pass the cursor alone, or drop it to start over`,
      },
    ]);
  if (body.v !== versionTag(draftVersion))
    throw new AnswerError('the cursor belongs to an answer on other drafts', [
      {
        path: 'cursor',
        message: `it pages an answer on draft version ${body.v}…; the drafts are at ${versionTag(draftVersion)}… now: ask again without the cursor`,
      },
    ]);
  return { filters: body.f, offset: body.o };
}

function decodeCursor(cursor: string): CursorBody {
  const bad = () => new AnswerError('the cursor is not one bvl gave', [{ path: 'cursor', message: 'pass more.cursor of the previous answer as it is' }]);
  if (!cursor.startsWith('c1.')) throw bad();
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor.slice(3), 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const b = body as Partial<CursorBody> | null;
  if (!b || typeof b.v !== 'string' || !Number.isInteger(b.o) || (b.o as number) < 0 || typeof b.f !== 'object' || b.f === null) throw bad();
  const parsed = ViewOptionsSchema.pick({ layer: true, severity: true, artifact: true, codes: true }).safeParse(b.f);
  if (!parsed.success) throw bad();
  return { v: b.v, o: b.o as number, f: filtersOf(parsed.data) };
}
