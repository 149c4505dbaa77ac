import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ArtifactSet } from '@bvl/metadata';
import { storedBodyHash } from '@bvl/platform';
import { type Verification, type VerifyOptions, verify } from '@bvl/verify';
import { keyCount } from './draft-bounds.ts';

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
      if (a.type === 'object' && isRecord(a.body) && isRecord(a.body.fields)) w += keyCount(a.body.fields);
    }
  return w;
}

// The worker: imports @bvl/verify (built) and answers each job. CommonJS, evaluated. It keeps the
// large bodies it was sent by content hash (\`held\`, as many as the main thread says: it names
// those to drop), so a body is copied to it once, not at every verify of the package.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const loaded = import(workerData.verify);
const held = new Map();
class Missing extends Error {}
const resolve = (set) => ({
  problems: set.problems,
  artifacts: set.artifacts.map((a, i) => {
    if (set.refs[i] === null) return a;
    if (!held.has(set.refs[i])) throw new Missing(set.refs[i]);
    return { ...a, body: held.get(set.refs[i]) };
  }),
});
parentPort.on('message', async (job) => {
  try {
    for (const h of job.drop) held.delete(h);
    for (const [h, body] of job.bodies) held.set(h, body);
    const { verify } = await loaded;
    if (job.missing) throw new Missing('test');
    const r = verify(resolve(job.published), resolve(job.drafts), job.options);
    parentPort.postMessage({ id: job.id, answer: { issues: r.issues, checked: r.checked, publishable: r.publishable } });
  } catch (e) {
    if (e instanceof Missing) held.clear();
    parentPort.postMessage({ id: job.id, missing: e instanceof Missing, error: String((e && e.stack) || e) });
  }
});
`;

interface Job {
  readonly id: number;
  readonly resolve: (a: VerifyAnswer) => void;
  readonly reject: (e: Error) => void;
  /** Sends the job again (to a worker that no longer holds a body it names: it forgot them all). */
  readonly retry: (() => void) | undefined;
}

/** Object bodies of at least this many fields are sent to a worker once and named by hash after. */
export const HELD_BODY_FIELDS = 1_000;

/** Large bodies a worker keeps (the least recently used go first). */
export const HELD_BODIES = 64;

interface Slot {
  readonly worker: Worker;
  readonly jobs: Map<number, Job>;
  /** The content hashes of the bodies the worker holds, least recently used first (the worker's own map mirrors it exactly). */
  readonly held: Map<string, true>;
}

/**
 * A few worker threads verifying large overlays (see {@link OFFLOAD_WEIGHT}), started on first
 * use and kept (unref'd: they never keep the process alive). Jobs go to the least busy worker.
 */
export class VerifyPool {
  private readonly workers: Slot[] = [];
  /** Large bodies copied to workers so far (each once per worker while it holds it). */
  bodiesSent = 0;
  private next = 0;

  constructor(readonly size: number) {}

  /**
   * Verifies on a worker; a worker that dies fails its jobs and is replaced on next use. A large
   * stored body (see {@link HELD_BODY_FIELDS}) the worker already holds is named by its hash, not
   * copied again; the job goes to the worker holding the largest of them.
   */
  run(published: ArtifactSet, drafts: ArtifactSet, options: VerifyOptions = {}, retried = false): Promise<VerifyAnswer> {
    const large = new Map<string, number>();
    for (const set of [published, drafts])
      for (const a of set.artifacts) {
        const fields = a.type === 'object' && isRecord(a.body) && isRecord(a.body.fields) ? keyCount(a.body.fields) : 0;
        const hash = fields >= HELD_BODY_FIELDS ? storedBodyHash(a.body) : undefined;
        if (hash !== undefined) large.set(hash, fields);
      }
    let largest: string | undefined;
    for (const [h, f] of large) if (largest === undefined || f > large.get(largest)!) largest = h;
    const slot = this.slot(largest);
    const bodies: Array<[string, unknown]> = [];
    const drop: string[] = [];
    const pack = (set: ArtifactSet) => {
      const refs: Array<string | null> = [];
      const artifacts = set.artifacts.map((a) => {
        const hash = large.size > 0 ? storedBodyHash(a.body) : undefined;
        if (hash === undefined || !large.has(hash)) {
          refs.push(null);
          return a;
        }
        refs.push(hash);
        if (slot.held.has(hash)) slot.held.delete(hash);
        else if (!bodies.some(([h]) => h === hash)) bodies.push([hash, a.body]);
        slot.held.set(hash, true);
        return { ...a, body: undefined };
      });
      return { artifacts, problems: set.problems, refs };
    };
    const job = { published: pack(published), drafts: pack(drafts) };
    // Past the bound the oldest go, but never one this job names.
    for (const h of slot.held.keys()) {
      if (slot.held.size - drop.length <= HELD_BODIES) break;
      if (!large.has(h)) drop.push(h);
    }
    for (const h of drop) slot.held.delete(h);
    const id = ++this.next;
    return new Promise<VerifyAnswer>((resolve, reject) => {
      // Once: the second time every body goes along (the worker forgot all it held).
      const retry = retried ? undefined : () => this.run(published, drafts, options, true).then(resolve, reject);
      slot.jobs.set(id, { id, resolve, reject, retry });
      try {
        const missing = TEST_MISSING.next;
        TEST_MISSING.next = false;
        slot.worker.postMessage({ id, ...job, bodies, drop, options, missing });
        this.bodiesSent += bodies.length;
      } catch (e) {
        // Not sent (a body that cannot be copied): the worker holds none of this job's new bodies.
        slot.jobs.delete(id);
        for (const [h] of bodies) slot.held.delete(h);
        reject(e);
      }
    });
  }

  /** The worker holding `prefer` (a body's hash), else a new one while under the size, else the least busy. */
  private slot(prefer?: string): Slot {
    if (prefer !== undefined) {
      const holder = this.workers.find((w) => w.held.has(prefer));
      if (holder) return holder;
    }
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
      const slot: Slot = { worker, jobs: new Map<number, Job>(), held: new Map() };
      worker.on('message', (m: { id: number; answer?: VerifyAnswer; error?: string; missing?: boolean }) => {
        const job = slot.jobs.get(m.id);
        if (!job) return;
        slot.jobs.delete(m.id);
        if (m.answer) job.resolve(m.answer);
        else if (m.missing && job.retry) {
          slot.held.clear();
          job.retry();
        } else job.reject(new Error(`verify failed on a worker thread: ${m.error}`));
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

/** Tests only: the next job's worker acts as if it had forgotten the bodies it holds. */
export const TEST_MISSING = { next: false };

let pool: VerifyPool | undefined;

/** Sets how many worker threads verify large overlays (0: all on the calling thread). */
export function configureVerifyWorkers(size: number): void {
  if (pool?.size === size) return;
  pool = size > 0 ? new VerifyPool(size) : undefined;
}

/** Large bodies the pool has copied to its workers so far (0 without a pool). */
export const bodiesSentToWorkers = (): number => pool?.bodiesSent ?? 0;

/** L1 + L2 (or the `options.layers`) over published ⊕ drafts: a large overlay on a worker thread, a small one here. */
export async function verifyOffloaded(published: ArtifactSet, drafts: ArtifactSet, options: VerifyOptions = {}): Promise<VerifyAnswer> {
  if (!pool || overlayWeight(published, drafts) < OFFLOAD_WEIGHT) return verify(published, drafts, options);
  return pool.run(published, drafts, options);
}
