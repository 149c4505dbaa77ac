import { randomBytes } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { AppEnv, Logger, RequestFacts } from './app-env.ts';

/**
 * One structured line per request: method, route pattern, path, status, duration and what the
 * handler recorded (tenant, package, session, round, tool, outcome, and the cause when bvl failed).
 * Headers are never logged, so a bearer token cannot reach the log; the request id is echoed as
 * `x-request-id`.
 */
export function requestLog(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const facts: RequestFacts = {};
    c.set('facts', facts);
    const id = randomBytes(6).toString('hex');
    await next();
    c.res.headers.set('x-request-id', id);
    const status = c.res.status;
    const line = status >= 500 || facts.error ? logger.error.bind(logger) : logger.info.bind(logger);
    line(
      {
        req: id,
        method: c.req.method,
        route: routePath(c),
        path: c.req.path,
        status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        ...facts,
        outcome: facts.outcome ?? (status < 400 ? 'ok' : 'error'),
      },
      'request',
    );
  };
}
