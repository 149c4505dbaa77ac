import { makeIssue } from '@bvl/build-issue';
import { collectStack } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { useTestPlatform } from '../test/test-platform.ts';
import type { Platform } from './open-platform.ts';
import { stageDrafts } from './run-drafts.ts';
import { latestProbeResult, recordProbeResult } from './run-probe-results.ts';
import { publishPackage } from './run-publish.ts';

let platform: Platform;
const made = useTestPlatform(
  (p) => {
    platform = p;
  },
  () => new Date('2026-03-15T10:00:00Z'),
);

describe('probe results', () => {
  it('are recorded per publish and read back latest first; a package never probed has none', async () => {
    const scope = { tenant: made.next(), package: 'app' };
    expect(await latestProbeResult(platform, scope)).toBeUndefined();
    const ids: number[] = [];
    for (const title of ['a', 'b']) {
      await stageDrafts(platform, scope, collectStack({ objects: [{ name: 'note', label: title, fields: { title: { type: 'text' } } }] }, { draft: true }));
      const r = await publishPackage(platform, scope);
      if (r.outcome !== 'published') throw new Error(r.outcome);
      ids.push(r.publishId);
    }
    const issue = makeIssue({ code: 'empty_query', artifact: { type: 'dashboard', name: 'd' }, message: 'no rows' });
    await recordProbeResult(platform, scope, ids[0]!, { issues: [], report: { checked: { seeds: 0 } } });
    await recordProbeResult(platform, scope, ids[1]!, { issues: [issue], report: { checked: { seeds: 1 } } });
    const latest = await latestProbeResult(platform, scope);
    expect(latest).toMatchObject({ publishId: ids[1], issues: [issue], report: { checked: { seeds: 1 } } });
    expect(await latestProbeResult(platform, { ...scope, package: 'other' })).toBeUndefined();
  });
});
