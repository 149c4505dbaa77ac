// The L4 bench: verify_build over the draft store against the in-process verification it wraps
// (`bvl verify`'s function) on the same app, and what a session round costs on top. Uses
// app-showcase when the ObjectStack corpora are present (BVL_CORPORA, or ../shared beside the
// repository), else the repository's field-service fixture.
// Prints figures; asserts nothing (the machine is shared and noisy: compare ratios).

import { pathToFileURL } from 'node:url';
import { readSource } from '@bvl/metadata';
import { dropTenant, openPlatform, overlayOf, type PlatformOptions, readOverlayRows, stageDrafts } from '@bvl/platform';
import { corpusFile, fixtureFile, locateCorpora } from '@bvl/test-support';
import { verify } from '@bvl/verify';
import { createSession, verifyBuild } from '@bvl/verify-build';

const RUNS = 15;
/** Rounds in the session whose per-round overhead is measured. */
const SESSION_ROUNDS = 10;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function time(runs: number, fn: () => Promise<unknown> | unknown): Promise<number> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return median(out);
}

function appPath(): { label: string; path: string } {
  if (locateCorpora().present) return { label: 'app-showcase', path: corpusFile('app-showcase') };
  return { label: 'field-service fixture (corpora absent)', path: fixtureFile('field-service') };
}

async function benchEngine(engine: string, options: PlatformOptions, log: (line: string) => void): Promise<void> {
  const { label, path } = appPath();
  const set = await readSource(path, { draft: true });
  const platform = await openPlatform(options);
  const tenant = `bench_vb_${process.pid}`;
  const scope = { tenant, package: 'app' };
  try {
    await dropTenant(platform, tenant).catch(() => {});
    await stageDrafts(platform, scope, set);
    // Warm both paths.
    for (let i = 0; i < 3; i++) {
      verify(set);
      await verifyBuild(platform, scope);
    }
    const inProcess = await time(RUNS, () => verify(set));
    const storeRead = await time(RUNS, async () => overlayOf(await readOverlayRows(platform.db, tenant, 'app'), 'app'));
    const overStore = await time(RUNS, () => verifyBuild(platform, scope));
    log(
      `[${engine}] ${label} (${set.artifacts.length} artifacts): verify in-process ${inProcess.toFixed(1)} ms; verifyBuild over the store ${overStore.toFixed(1)} ms (×${(overStore / inProcess).toFixed(2)}); store read + overlay ${storeRead.toFixed(1)} ms (${((storeRead / inProcess) * 100).toFixed(0)}% of the lint)`,
    );
    // A 10-round session: each round changes one draft (so it is a real round), no fixer.
    const session = await createSession(platform, { ...scope, goal: 'bench', bounds: { maxRounds: SESSION_ROUNDS + 1 } });
    const dashboard = set.artifacts.find((a) => a.type === 'dashboard') ?? set.artifacts[0]!;
    const plain: number[] = [];
    const rounds: number[] = [];
    for (let i = 0; i < SESSION_ROUNDS; i++) {
      await stageDrafts(platform, scope, [{ ...dashboard, body: { ...(dashboard.body as object), description: `round ${i}` } }]);
      let t0 = performance.now();
      await verifyBuild(platform, scope);
      plain.push(performance.now() - t0);
      t0 = performance.now();
      const r = await verifyBuild(platform, { ...scope, session: session.id, fix: false });
      rounds.push(performance.now() - t0);
      if (r.session?.status !== 'open') throw new Error(`the bench session stopped: ${r.session?.stopReason}`);
    }
    const overhead = median(rounds.map((r, i) => r - plain[i]!));
    log(
      `[${engine}] ${SESSION_ROUNDS}-round session: a round ${median(rounds).toFixed(1)} ms vs the same verify without a session ${median(plain).toFixed(1)} ms → session overhead ${overhead.toFixed(1)} ms per round (record round, read history, card)`,
    );
  } finally {
    await dropTenant(platform, tenant).catch(() => {});
    await platform.close();
  }
}

/** Runs the L4 bench on PGlite (in memory) and, with DATABASE_URL, on PostgreSQL. */
export async function benchVerifyBuild(log: (line: string) => void): Promise<void> {
  await benchEngine('PGlite', { dataDir: 'memory' }, log);
  if (process.env.DATABASE_URL) await benchEngine('PostgreSQL', { databaseUrl: process.env.DATABASE_URL }, log);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await benchVerifyBuild(console.log);
