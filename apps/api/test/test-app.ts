// Test support: the app over a test platform (PGlite from the migrated dump, or PostgreSQL), a
// recording logger, fresh tenants with tokens, and a request helper that sends the bearer token.
import { join } from 'node:path';
import { type ArtifactSet, readSource } from '@bvl/metadata';
import type { Platform } from '@bvl/platform';
import { openTestPlatform, tenants } from '@bvl/platform/testing';
import { type AppDeps, createApp } from '../src/create-app.ts';
import { createToken } from '../src/run-tokens.ts';

export const EXAMPLE = join(import.meta.dirname, '../../../examples/expense-tracker');

/** A logger that keeps every line as JSON text (what pino would write). */
export function recordingLogger() {
  const lines: string[] = [];
  const write = (level: string) => (fields: object, message: string) => void lines.push(JSON.stringify({ level, ...fields, msg: message }));
  return { info: write('info'), error: write('error'), lines, entries: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

/** An app on a test platform, with a helper per tenant. */
export async function openTestApp(limits?: AppDeps['limits'], policy?: AppDeps['policy']) {
  const platform: Platform = await openTestPlatform(() => new Date('2026-03-15T10:00:00Z'));
  const logger = recordingLogger();
  const app = createApp({ platform, logger, version: 'test', limits, policy });
  const made = tenants(() => platform);
  return {
    platform,
    logger,
    app,
    /** A fresh tenant with a token, and a request helper bound to it. */
    async tenant(label?: string) {
      const id = made.next(label);
      const { token } = await createToken(platform, { tenant: id });
      const base = `/v1/tenants/${id}/packages`;
      const request = (path: string, init: RequestInit & { json?: unknown } = {}) => {
        const headers = new Headers(init.headers);
        if (!headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
        if (init.json !== undefined) headers.set('content-type', 'application/json');
        return app.request(path.startsWith('/') ? path : `${base}/${path}`, {
          ...init,
          headers,
          ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
        });
      };
      return { id, token, base, request };
    },
    async close() {
      await made.dropAll();
      await platform.close();
    },
  };
}

/** The example app and the drafts an agent staged (ADR-0038 incidents #1, #2, #6). */
export async function example(): Promise<{ app: ArtifactSet; drafts: ArtifactSet }> {
  return { app: await readSource(join(EXAMPLE, 'app'), { draft: true }), drafts: await readSource(join(EXAMPLE, 'drafts'), { draft: true }) };
}

const FOLDER_TYPES: Record<string, string> = { objects: 'object', views: 'view', dashboards: 'dashboard', datasets: 'dataset', apps: 'app', seeds: 'seed' };

/** Stages every file of a per-artifact folder over HTTP, one PUT per file; returns the responses' JSON. */
export async function stageFolder(request: (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response> | Response, pkg: string, dir: string) {
  const { readdir, readFile } = await import('node:fs/promises');
  const out: Array<{ status: number; body: any }> = [];
  for (const sub of (await readdir(dir)).sort()) {
    const type = FOLDER_TYPES[sub];
    if (!type) continue;
    for (const f of (await readdir(join(dir, sub))).sort()) {
      const body = JSON.parse(await readFile(join(dir, sub, f), 'utf8'));
      // The artifact's own name (a seed: its object); the file stem only when the body has none.
      const name = (type === 'seed' ? body.object : body.name) ?? f.replace(/\.json$/, '');
      const r = await request(`${pkg}/drafts/${type}/${encodeURIComponent(name)}`, { method: 'PUT', json: body });
      out.push({ status: r.status, body: await r.json() });
    }
  }
  return out;
}
