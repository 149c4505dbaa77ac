import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { readSource } from '@bvl/metadata';
import { discardDrafts, latestProbeResult, type PlatformContext, stageDrafts } from '@bvl/platform';
import { publishBuild } from '@bvl/verify-build';

/** The demo's tenant and package. */
export const DEMO = { tenant: 'demo', package: 'expense' } as const;

/** The example app's folder: searched upward from each start (the working folder, the running code). */
export function findExample(starts: readonly string[]): string | undefined {
  for (const start of starts) {
    let dir = resolve(start);
    for (let i = 0; i < 8; i++) {
      const candidate = join(dir, 'examples', 'expense-tracker');
      if (existsSync(join(candidate, 'app')) && existsSync(join(candidate, 'drafts'))) return candidate;
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  return undefined;
}

/**
 * Sets up the demo: the example app published once (so the card has rows and widgets), then the
 * package's drafts reset to what the agent staged (ADR-0038 incidents #1, #2, #6) — the broken
 * build a first `verify` finds. Idempotent; several servers on one database may run it at once
 * (publish takes the package lock).
 */
export async function stageDemo(ctx: PlatformContext, exampleDir: string): Promise<{ published: boolean; drafts: number }> {
  const app = await readSource(join(exampleDir, 'app'), { draft: true });
  const drafts = await readSource(join(exampleDir, 'drafts'), { draft: true });
  let published = false;
  if (!(await latestProbeResult(ctx, DEMO))) {
    const r = await publishBuild(ctx, {
      ...DEMO,
      prepare: async (pinned) => {
        await discardDrafts(pinned, DEMO);
        await stageDrafts(pinned, DEMO, app);
      },
    });
    if (r.outcome !== 'published') throw new Error(`the example app did not publish (${r.outcome}${r.error ? `: ${r.error}` : ''})`);
    published = true;
  }
  await discardDrafts(ctx, DEMO);
  const { staged: n } = await stageDrafts(ctx, DEMO, drafts);
  return { published, drafts: n };
}
