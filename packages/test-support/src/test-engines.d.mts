export declare function testEngines(env?: Record<string, string | undefined>): { pglite: boolean; postgres: boolean };
