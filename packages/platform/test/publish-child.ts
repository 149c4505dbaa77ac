// A child process for run-publish-resume.test.ts: publishes the stack in $BVL_STACK_FILE to
// $BVL_TENANT/app on $DATABASE_URL, printing a line as it goes. The test kills it while it seeds
// (run-publish-resume.test.ts) or builds its tables ahead (run-publish-staged.test.ts; $BVL_LOCK_BUDGET).
import { readFile } from 'node:fs/promises';
import { collectStack } from '@bvl/metadata';
import { openPlatform, publishPackage, stageDrafts } from '../src/index.ts';

const platform = await openPlatform({ databaseUrl: process.env.DATABASE_URL });
const scope = { tenant: process.env.BVL_TENANT!, package: 'app' };
await stageDrafts(platform, scope, collectStack(JSON.parse(await readFile(process.env.BVL_STACK_FILE!, 'utf8')), { draft: true }));
process.stdout.write('staged\n');
const budget = process.env.BVL_LOCK_BUDGET;
const r = await publishPackage(platform, scope, budget ? { lockBudget: Number(budget) } : {});
process.stdout.write(`${r.outcome}\n`);
await platform.close();
