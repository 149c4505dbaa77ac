// A server process for the multi-process test: the composition root on the environment's database,
// printing its URL as one JSON line; SIGTERM closes it.
import { startServer } from '../src/main.ts';

// BVL_TEST_PUBLISH_MS: a short publish bound (a test makes a publish outlive it).
const publishMs = Number(process.env.BVL_TEST_PUBLISH_MS) || undefined;
const server = await startServer({
  port: 0,
  host: '127.0.0.1',
  demo: false,
  env: process.env,
  cwd: process.cwd(),
  version: 'child',
  limits: publishMs ? { publishMs } : undefined,
});
process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`);
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
