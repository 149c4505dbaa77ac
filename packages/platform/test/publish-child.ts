// A child process for run-publish-resume.test.ts: publishes the stack in $BVL_STACK_FILE to
// $BVL_TENANT/app on $DATABASE_URL, printing a line as it goes. The test kills it while it seeds
// (run-publish-resume.test.ts) or builds its tables ahead (run-publish-staged.test.ts; $BVL_LOCK_BUDGET).
// $BVL_HANG stops it for good, printing `hanging`, at a point of a publish that builds ahead
// (run-publish-shadow.test.ts): `backfill` (in the transaction building its 31st step ahead, the
// 30 before it committed), `switch` (in the switch, its DDL run, before its commit), or `switched`
// (the switch committed, what it retired not yet dropped).
import { readFile } from 'node:fs/promises';
import { collectStack } from '@bvl/metadata';
import { openPlatform, type PublishOptions, publishPackage, stageDrafts } from '../src/index.ts';

const platform = await openPlatform({ databaseUrl: process.env.DATABASE_URL });
const scope = { tenant: process.env.BVL_TENANT!, package: 'app' };
await stageDrafts(platform, scope, collectStack(JSON.parse(await readFile(process.env.BVL_STACK_FILE!, 'utf8')), { draft: true }));
process.stdout.write('staged\n');
const budget = process.env.BVL_LOCK_BUDGET;
const hang = async (): Promise<void> => {
  process.stdout.write('hanging\n');
  await new Promise(() => {});
};
const at = process.env.BVL_HANG;
const options: PublishOptions = {
  ...(budget ? { lockBudget: Number(budget) } : {}),
  ...(at === 'backfill' ? { afterDdlStep: (i: number) => (i === 30 ? hang() : undefined) } : {}),
  ...(at === 'switch' ? { beforeCommit: hang } : {}),
  ...(at === 'switched' ? { onSwitched: hang } : {}),
};
const r = await publishPackage(platform, scope, options);
process.stdout.write(`${r.outcome}\n`);
await platform.close();
