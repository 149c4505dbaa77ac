import type { EffectivePolicy } from '@bvl/verify-build';

/** What a request's log line says beyond method, route, status and duration; handlers fill it in. */
export interface RequestFacts {
  tenant?: string;
  package?: string;
  session?: string;
  round?: number;
  /** The tool an MCP request called. */
  tool?: string;
  /** What happened, in a word: `clean`, `errors`, `published`, `refused`, an error code, … */
  outcome?: string;
  /** Why bvl failed on the request (a 5xx, or an MCP tool bvl could not run): name, message, code, stack. */
  error?: object;
}

/** The logger the app writes to: one line per request, at `error` when bvl failed on it (pino fits). */
export interface Logger {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** The hono environment of the app: per-request variables. */
export interface AppEnv {
  Variables: {
    facts: RequestFacts;
    /** The tenant the bearer token belongs to (set by the auth middleware). */
    tenant: string;
    /** Aborts when the request's bound passes: work not yet committing stops (a publish is cancelled). */
    deadline: AbortSignal;
    /** When the request's bound started (epoch ms): a publish's own bound counts from here. */
    startedAt: number;
    /** The server's default policy (tenants' own policies override it). */
    policy: EffectivePolicy;
  };
}
