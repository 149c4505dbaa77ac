// `npm run bench`: the speed figures of issue 10 on the built code (npm run bench builds first).
// Whole-process `bvl` timings, in-process L1 + L2, their growth with stack size, and the runtime
// (L3) bench on PGlite and PostgreSQL (DATABASE_URL). Runs from a plain clone: app-showcase parts
// use the ObjectStack corpora when they are present (BVL_CORPORA, or ../shared beside the
// repository), else the field-service fixture. Prints figures and, last, each goal met or not.
//   BVL_BENCH_ONLY=process,verify,growth,runtime,seeds,publish,loop,answers,context,tenants,api   run only these sections
import { cpus } from 'node:os';
import { benchProcess } from './bench-process.ts';
import { benchRuntime } from './bench-runtime.ts';
import { benchGrowth, benchVerify } from './bench-verify.ts';
import { type Goal, goalLine } from './measure.ts';

const log = (line: string) => console.log(line);
const only = new Set(
  (process.env.BVL_BENCH_ONLY ?? 'process,verify,growth,runtime,seeds,publish,loop,answers,context,tenants,api').split(',').map((s) => s.trim()),
);
if (process.env.BVL_BENCH_SKIP_RUNTIME === '1') only.delete('runtime');
if (process.env.BVL_BENCH_SKIP_API === '1') only.delete('api');
if (process.env.BVL_BENCH_SKIP_TENANTS === '1') only.delete('tenants');

log(`machine: ${cpus()[0]?.model ?? 'unknown cpu'} × ${cpus().length}, node ${process.version} (shared and noisy: medians, the fastest run beside them)`);
const goals: Goal[] = [];
if (only.has('process')) {
  log('\n— whole process (bvl from apps/cli/dist) —');
  goals.push(...benchProcess(log));
}
if (only.has('verify')) {
  log('\n— in-process L1 + L2 (verify) —');
  goals.push(...(await benchVerify(log)));
}
if (only.has('growth')) {
  log('\n— growth with stack size —');
  await benchGrowth(log);
}
if (only.has('runtime')) {
  log('\n— runtime (L3) —');
  goals.push(...(await benchRuntime(log)));
}
if (only.has('seeds')) {
  log('\n— seeds at a million rows (issue 21): first publish and replay against raw inserts of the same rows —');
  goals.push(...(await (await import('./bench-seeds.ts')).benchSeeds(log)));
}
if (only.has('publish')) {
  log('\n— publish at size: 500, 2,000 and 5,000 objects, on PGlite and PostgreSQL (issue 21) —');
  await (await import('./bench-publish-size.ts')).benchPublishSize(log);
}
if (only.has('loop')) {
  log('\n— L4: verify_build over the draft store, and a session round —');
  await (await import('./bench-verify-build.ts')).benchVerifyBuild(log);
}
if (only.has('answers')) {
  log('\n— answers sized for a model: tokens (o200k) of what an agent reads, over MCP stdio and HTTP —');
  goals.push(...(await (await import('./bench-answers.ts')).benchAnswers(log)));
}
if (only.has('context')) {
  log("\n— the built-in agent's context: prompt tokens (o200k) per turn over a 10-round build —");
  goals.push(...(await (await import('./bench-context.ts')).benchContext(log)));
}
if (only.has('tenants')) {
  log('\n— the service at size: verify and publish latency at 1 tenant and beside 100 tenants × 10 packages (issue 21) —');
  goals.push(...(await (await import('./bench-tenants.ts')).benchTenants(log)));
}
log('\n— goals (issues 10, 18 and 21), timings judged on the median —');
for (const g of goals) log(goalLine(g));
if (only.has('api')) {
  log('\n— the HTTP API: verify over HTTP vs in-process, and a soak —');
  await (await import('./bench-api.ts')).benchApi(log);
}
