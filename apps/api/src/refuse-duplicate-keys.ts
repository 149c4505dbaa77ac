import { findDuplicateKeys } from '@bvl/metadata';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.ts';
import { ApiError } from './to-error-response.ts';

/** A JSON pointer as the dotted path the API's problem lists use (`/a/0` → `body.a.0`). */
const dotted = (pointer: string) => ['body', ...pointer.slice(1).split('/')].map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~')).join('.');

/**
 * Refuses a JSON body that holds a key twice in one object: JSON.parse keeps the last value and
 * drops the first without a word, so the API would stage something else than was sent. A 400
 * lists every repeat (the same scan `bvl verify` runs on files, packages/metadata findDuplicateKeys).
 */
export const refuseDuplicateKeys: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.header('content-type')?.includes('json') && c.req.header('content-length') !== '0' && c.req.method !== 'GET') {
    const dups = findDuplicateKeys(await c.req.text());
    if (dups.length > 0)
      throw new ApiError(
        'invalid_request',
        `the body has the key "${dups[0]!.key}" twice at ${dotted(dups[0]!.pointer)}: JSON keeps only the last value, so the first would be dropped without a word`,
        dups.map((d) => ({
          path: dotted(d.pointer),
          message: `the key "${d.key}" appears again at line ${d.again.line}, column ${d.again.column} (first at line ${d.first.line}, column ${d.first.column}); keep one`,
        })),
      );
  }
  await next();
};
