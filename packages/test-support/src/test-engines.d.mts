export declare function testEngines(env?: Record<string, string | undefined>): { pglite: boolean; postgres: boolean };
export declare function engineProjects(
  test: Record<string, unknown>,
  options?: { pglite?: Record<string, unknown>; onBoth?: string[]; embedded?: string[]; env?: Record<string, string | undefined> },
): { test: Record<string, unknown> }[];
