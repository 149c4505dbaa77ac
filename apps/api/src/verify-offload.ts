import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ArtifactSet } from '@bvl/metadata';
import { type Verification, type VerifyOptions, verify } from '@bvl/verify';

/** What a verification answers here: no graph (it stays on the thread that built it). */
export type VerifyAnswer = Pick<Verification, 'issues' | 'checked' | 'publishable'>;

/**
 * Overlays this large (artifacts plus fields, published and drafts together) verify on a worker
 * thread; smaller ones on the calling thread, where the copy to a worker would cost more than the
 * work. An at-bound draft (100,000 fields) takes about a second of CPU to verify: on the server's
 * thread that second stalls every other tenant's requests.
 */
export const OFFLOAD_WEIGHT = 5_000;

/** Worker threads that verify large overlays (default 2; BVL_VERIFY_WORKERS, 0 = none). */
export const DEFAULT_VERIFY_WORKERS = 2;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Artifacts plus object fields of the sets (how much verifying them costs, roughly). */
export function overlayWeight(...sets: ArtifactSet[]): number {
  let w = 0;
  for (const s of sets)
    for (const a of s.artifacts) {
      w++;
      if (a.type === 'object' && isRecord(a.body) && isRecord(a.body.fields)) w += Object.keys(a.body.fields).length;
    }
  return w;
}

// The worker: imports @bvl/verify (built) and answers each job. CommonJS, evaluated.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const loaded = import(workerData.verify);
parentPort.on('message', async (job) => {
  try {
    const { verify } = await loaded;
    const r = verify(job.published, job.drafts, job.options);
    parentPort.postMessage({ id: job.id, answer: { issues: r.issues, checked: r.checked, publishable: r.publishable } });
  } catch (e) {
    parentPort.postMessage({ id: job.id, error: String((e && e.stack) || e) });
  }
});
`;

interface Job {
  readonly id: number;
  readonly resolve: (a: VerifyAnswer) => void;
  readonly reject: (e: Error) => void;
}

/**
 * A few worker threads verifying large overlays (see {@link OFFLOAD_WEIGHT}), started on first
 * use and kept (unref'd: they never keep the process alive). Jobs go to the least busy worker.
 */
export class VerifyPool {
  private readonly workers: Array<{ worker: Worker; jobs: Map<number, Job> }> = [];
  private next = 0;

  constructor(readonly size: number) {}

  /** Verifies on a worker; a worker that dies fails its jobs and is replaced on next use. */
  run(published: ArtifactSet, drafts: ArtifactSet, options: VerifyOptions = {}): Promise<VerifyAnswer> {
    const slot = this.slot();
    const id = ++this.next;
    return new Promise<VerifyAnswer>((resolve, reject) => {
      slot.jobs.set(id, { id, resolve, reject });
      slot.worker.postMessage({
        id,
        published: { artifacts: published.artifacts, problems: published.problems },
        drafts: { artifacts: drafts.artifacts, problems: drafts.problems },
        options,
      });
    });
  }

  private slot() {
    if (this.workers.length < this.size) {
      // The built package: a worker runs plain Node (under a test runner the sources resolve first).
      const verifyUrl = pathToFileURL(
        createRequire(import.meta.url)
          .resolve('@bvl/verify')
          .replace(/([\\/])src[\\/]index\.ts$/, '$1dist$1index.js'),
      ).href;
      // execArgv: none inherited (a test runner's `--conditions development` would send the built code to TypeScript sources).
      const worker = new Worker(WORKER, { eval: true, execArgv: [], workerData: { verify: verifyUrl } });
      worker.unref();
      const slot = { worker, jobs: new Map<number, Job>() };
      worker.on('message', (m: { id: number; answer?: VerifyAnswer; error?: string }) => {
        const job = slot.jobs.get(m.id);
        if (!job) return;
        slot.jobs.delete(m.id);
        if (m.answer) job.resolve(m.answer);
        else job.reject(new Error(`verify failed on a worker thread: ${m.error}`));
      });
      const fail = (e: Error) => {
        const at = this.workers.indexOf(slot);
        if (at >= 0) this.workers.splice(at, 1);
        for (const job of slot.jobs.values()) job.reject(e);
        slot.jobs.clear();
      };
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`the verify worker exited (${code})`)));
      this.workers.push(slot);
      return slot;
    }
    return this.workers.reduce((a, b) => (b.jobs.size < a.jobs.size ? b : a));
  }
}

let pool: VerifyPool | undefined;

/** Sets how many worker threads verify large overlays (0: all on the calling thread). */
export function configureVerifyWorkers(size: number): void {
  if (pool?.size === size) return;
  pool = size > 0 ? new VerifyPool(size) : undefined;
}

/** L1 + L2 (or the `options.layers`) over published ⊕ drafts: a large overlay on a worker thread, a small one here. */
export async function verifyOffloaded(published: ArtifactSet, drafts: ArtifactSet, options: VerifyOptions = {}): Promise<VerifyAnswer> {
  if (!pool || overlayWeight(published, drafts) < OFFLOAD_WEIGHT) return verify(published, drafts, options);
  return pool.run(published, drafts, options);
}
