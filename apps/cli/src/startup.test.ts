// `bvl --help` stays fast: what main.js loads statically (before a command is chosen) never reaches
// the server's or the database's npm packages. Reads the built bundle's static import graph.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIST = join(import.meta.dirname, '../dist');

/** Every bare (npm) import reachable from `entry` through static imports only. */
function staticNpmImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const npm = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    // Static `import … from "x"` and `import "x"`, not `import("x")`.
    for (const m of text.matchAll(/^\s*(?:import|export)\s(?:[^'"();]*?\sfrom\s)?["']([^"']+)["'];?/gm)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) visit(join(dirname(file), spec));
      else if (!spec.startsWith('node:')) npm.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  };
  visit(entry);
  return npm;
}

describe('the package', () => {
  it('ships the licence package.json names: Apache-2.0, the same text as the repository root', () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '../package.json'), 'utf8')) as { license: string };
    expect(manifest.license).toBe('Apache-2.0');
    const text = readFileSync(join(import.meta.dirname, '../LICENSE'), 'utf8');
    expect(text).toContain('Apache License\n                           Version 2.0, January 2004');
    expect(text).toBe(readFileSync(join(import.meta.dirname, '../../../LICENSE'), 'utf8'));
  });
});

describe('startup', () => {
  it('main.js loads no server, MCP, logger or database package before a command runs', () => {
    const loaded = staticNpmImports(join(DIST, 'main.js'));
    for (const heavy of ['hono', '@hono/node-server', '@hono/zod-openapi', '@modelcontextprotocol/sdk', 'pino', 'pg', '@electric-sql/pglite', 'kysely'])
      expect(loaded.has(heavy), heavy).toBe(false);
  });
  it('the verify command loads no DOM, database, server or model package (only what L1+L2 need)', () => {
    // The command table (in main.js, or in a chunk) imports each command lazily: find the file that names `import("…/verify-….js")`.
    const chunks = join(DIST, 'chunks');
    const files = [
      join(DIST, 'main.js'),
      ...readdirSync(chunks)
        .filter((f) => f.endsWith('.js'))
        .map((f) => join(chunks, f)),
    ];
    const lazy = /import\("(\.[^"]*\/verify-[^"/]+\.js)"\)/;
    const loader = files.find((f) => lazy.test(readFileSync(f, 'utf8')));
    expect(loader, 'a file that imports the verify command').toBeDefined();
    const verifyChunk = join(dirname(loader!), readFileSync(loader!, 'utf8').match(lazy)![1]!);
    const loaded = staticNpmImports(verifyChunk);
    for (const heavy of ['happy-dom', 'pg', '@electric-sql/pglite', 'pg-boss', 'hono', '@hono/zod-openapi', '@modelcontextprotocol/sdk', 'openai', 'pino'])
      expect(loaded.has(heavy), heavy).toBe(false);
  });
});
