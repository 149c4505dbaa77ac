import { type BuildIssue, type IssueCode, makeIssue } from '@bvl/build-issue';
import type { Graph, SeedNode } from '@bvl/metadata';
import {
  type Finding,
  heldRecords,
  type Rule,
  type SeedPassContext,
  type SeedPassStarter,
  type SeedRecord,
  type SeedRecordPass,
  type SeedRepeatsRequest,
} from './define-rule.ts';
import { RULES } from './rules/index.ts';
import { keyHash, keyHash2, repeatedPairs } from './seed-key-hash.ts';

/** Whether the artifact a finding is about is a staged draft. */
function isDraft(graph: Graph, type: string, name: string): boolean {
  switch (type) {
    case 'object':
      return graph.objects.get(name)?.draft ?? false;
    case 'view':
      return graph.views.get(name)?.draft ?? false;
    case 'dashboard':
      return graph.dashboards.get(name)?.draft ?? false;
    case 'dataset':
      return graph.datasets.get(name)?.draft ?? false;
    case 'app':
      return graph.apps.get(name)?.draft ?? false;
    case 'seed':
      return graph.seeds.get(name)?.draft ?? false;
    default:
      return false;
  }
}

/** Turns a rule's finding into a BuildIssue: catalogue layer/severity, draft flag. */
export function toIssue(graph: Graph, f: Finding): BuildIssue {
  return makeIssue({
    code: f.code,
    artifact: { type: f.artifact.type, name: f.artifact.name },
    ...(f.ref ? { ref: { ...f.ref } } : {}),
    message: f.message,
    ...(f.fix ? { fix: f.fix } : {}),
    ...(f.path !== undefined ? { path: f.path } : {}),
    draft: isDraft(graph, f.artifact.type, f.artifact.name),
    ...(f.suggestions ? { suggestions: [...f.suggestions] } : {}),
    ...(f.patch ? { patch: [...f.patch], fixSafety: f.fixSafety ?? 'safe' } : {}),
  });
}

/** L1 issues listed per artifact and code; the rest are counted in one issue of that code. */
export const MAX_ISSUES_PER_ARTIFACT_CODE = 100;
/** L1 issues listed per run; past it, one issue counts the rest (the report stays a readable size). */
export const MAX_LINT_ISSUES = 20_000;

/** Collects L1 issues under the bounds of {@link lintGraph}: per artifact and code, and in all. */
class IssueSink {
  readonly issues: BuildIssue[] = [];
  private readonly listed = new Map<string, { first: BuildIssue; listed: number; more: number }>();
  private beyond: { first: BuildIssue; more: number } | undefined;

  add(issue: BuildIssue): void {
    const key = groupKey(issue.code, issue.artifact.type, issue.artifact.name);
    const group = this.listed.get(key) ?? { first: issue, listed: 0, more: 0 };
    this.listed.set(key, group);
    if (group.listed >= MAX_ISSUES_PER_ARTIFACT_CODE) group.more++;
    else if (this.issues.length >= MAX_LINT_ISSUES) this.beyond = { first: this.beyond?.first ?? issue, more: (this.beyond?.more ?? 0) + 1 };
    else {
      group.listed++;
      this.issues.push(issue);
    }
  }

  /**
   * `n` more issues of a group that was handed {@link MAX_ISSUES_PER_ARTIFACT_CODE} of its kind
   * already: none of them can be listed, so each is counted where {@link add} would count it (the
   * group's cut when it is full, else the run's: then one of the group's was already beyond it).
   */
  addCounted(key: string, n: number): void {
    const group = this.listed.get(key);
    if (group && group.listed >= MAX_ISSUES_PER_ARTIFACT_CODE) group.more += n;
    else if (this.beyond) this.beyond.more += n;
    else throw new Error('counted issues of a group that was not handed its listed ones');
  }

  crashed(rule: Rule, e: unknown): void {
    this.issues.push(
      makeIssue({
        code: 'invalid_artifact',
        artifact: { type: 'stack', name: rule.meta.name },
        message: `bvl's rule ${rule.meta.name} crashed (${(e as Error).message}); its checks are incomplete. This is a bvl bug — please report it with the input.`,
      }),
    );
  }

  finish(): BuildIssue[] {
    const { issues, beyond } = this;
    for (const { first, more } of this.listed.values()) {
      if (more === 0) continue;
      issues.push(
        makeIssue({
          code: first.code as IssueCode,
          artifact: first.artifact,
          message: `${first.artifact.type} "${first.artifact.name}" has ${more.toLocaleString('en-US')} more ${first.code} issues like the ${MAX_ISSUES_PER_ARTIFACT_CODE} listed; bvl lists at most ${MAX_ISSUES_PER_ARTIFACT_CODE} per artifact and code.`,
          fix: 'Fix the listed ones (the rest share their cause, usually one wrong value repeated), then verify again.',
          draft: first.draft === true,
        }),
      );
    }
    if (beyond)
      issues.push(
        makeIssue({
          code: beyond.first.code as IssueCode,
          artifact: beyond.first.artifact,
          message: `${beyond.more.toLocaleString('en-US')} more issues were found and not listed; bvl lists at most ${MAX_LINT_ISSUES.toLocaleString('en-US')} graph issues per run.`,
          fix: 'Fix the listed issues, then verify again to see the rest.',
          draft: beyond.first.draft === true,
        }),
      );
    return issues;
  }
}

const groupKey = (code: string, type: string, name: string) => `${code}\u0000${type}\u0000${name}`;

/** What one rule's pass over one streamed seed found: the findings as emitted, at most the listed bound per group, the rest counted. */
interface SeedFindings {
  readonly findings: Finding[];
  readonly perGroup: Map<string, number>;
  readonly counted: Map<string, number>;
  /** What the pass threw, after its findings so far. */
  error?: unknown;
}

/**
 * L1: runs every rule over the prebuilt graph and returns their issues. A rule that throws is a
 * bug, not a finding about the metadata; it is reported once as an issue (never a crash) so the
 * rest of the verification still reaches the agent. The output is bounded as the rules stream it
 * (a seed of 500,000 bad records is not 500,000 issues): at most {@link MAX_ISSUES_PER_ARTIFACT_CODE}
 * per artifact and code and {@link MAX_LINT_ISSUES} in all, each cut counted in one issue.
 */
export function lintGraph(graph: Graph, rules: readonly Rule[] = RULES): BuildIssue[] {
  return runRules(graph, rules, new Map());
}

/**
 * A stored seed's records, read part by part in record order from record 0. `fields`, when given,
 * is what the reader needs of each record: the source may hand each record with only those of its
 * fields (those it has, with their values; absent ones absent), or whole; either way, every record.
 */
export type SeedRecordSource = (fields?: readonly string[]) => AsyncIterable<readonly SeedRecord[]>;

/**
 * The seeds a streamed lint reads from sources: by name (the graph's seeds), or by node — which
 * can also give a source for a replaced published seed a rule reads (`graph.priorSeedsByObject`).
 */
export type SeedSources = ReadonlyMap<string, SeedRecordSource> | ((seed: SeedNode) => SeedRecordSource | undefined);

/** A stored seed's source gave other records than its node counts: it went or changed while being read. */
export class StoredSeedChanged extends Error {
  override readonly name = 'StoredSeedChanged';
}

/** Reads a source whole, checking a stored seed's count (see {@link StoredSeedChanged}); `each` sees every part with its offset. */
async function readSource(
  seed: SeedNode,
  source: SeedRecordSource,
  each: (chunk: readonly SeedRecord[], offset: number) => void,
  fields?: readonly string[],
): Promise<void> {
  let offset = 0;
  for await (const chunk of fields === undefined ? source() : source(fields)) {
    each(chunk, offset);
    offset += chunk.length;
  }
  if (seed.stored !== undefined && offset !== seed.recordCount)
    throw new StoredSeedChanged(
      `seed "${seed.name}": its stored records gave ${offset} of the ${seed.recordCount} records it has (they went or changed while being read)`,
    );
}

/** A rule's {@link SeedRepeatsRequest} of one stored seed, its keys hashed both ways as the seed is read. */
class KeyHashes {
  readonly first: Uint32Array;
  readonly second: Uint32Array;
  n = 0;
  constructor(
    readonly rule: Rule,
    readonly request: SeedRepeatsRequest,
  ) {
    this.first = new Uint32Array(request.seed.recordCount);
    this.second = new Uint32Array(request.seed.recordCount);
  }
  add(chunk: readonly SeedRecord[]): void {
    const { key } = this.request;
    for (let r = 0; r < chunk.length; r++) {
      const k = key(chunk[r]!);
      // More records than counted: readSource rejects once the read ends.
      if (k === undefined || this.n >= this.first.length) continue;
      this.first[this.n] = keyHash(k);
      this.second[this.n++] = keyHash2(k);
    }
  }
  /** The keyHashes of the keys more than one record has (see repeatedPairs). */
  repeated(): Set<number> {
    return repeatedPairs(this.first, this.second, this.n);
  }
}

/** What the rules ask of stored seeds beyond their passes: natural keys read ahead, and repeats. */
interface SeedQuestions {
  /** Per stored seed whose natural keys some rule needs before any pass, per field: the keys (filled by {@link readKeysAhead}). */
  readonly keys: Map<SeedNode, Map<string, Set<string>>>;
  /** Per stored seed, each rule's repeats questions (the first of a rule's with one `id`). */
  readonly repeats: Map<SeedNode, Array<{ readonly rule: Rule; readonly request: SeedRepeatsRequest }>>;
  /** The fields the questions read of a seed read ahead (a natural key's field and `id`, a key's declared fields); null: whole records. */
  readonly fields: Map<SeedNode, Set<string> | null>;
}

function questionsOf(graph: Graph, rules: readonly Rule[], sourceOf: (seed: SeedNode) => SeedRecordSource | undefined): SeedQuestions {
  const q: SeedQuestions = { keys: new Map(), repeats: new Map(), fields: new Map() };
  const reads = (seed: SeedNode, fields: readonly string[] | undefined) => {
    const had = q.fields.get(seed);
    if (had === null) return;
    if (fields === undefined) q.fields.set(seed, null);
    else q.fields.set(seed, new Set([...(had ?? []), ...fields]));
  };
  for (const rule of rules) {
    for (const { seed, field } of rule.seedKeys?.(graph) ?? []) {
      if (seed.stored === undefined || !sourceOf(seed)) continue;
      let byField = q.keys.get(seed);
      if (!byField) q.keys.set(seed, (byField = new Map()));
      if (!byField.has(field)) byField.set(field, new Set());
      reads(seed, [field, 'id']);
    }
    for (const request of rule.seedRepeats?.(graph) ?? []) {
      const { seed } = request;
      if (seed.stored === undefined || !sourceOf(seed)) continue;
      let asked = q.repeats.get(seed);
      if (!asked) q.repeats.set(seed, (asked = []));
      if (asked.some((a) => a.rule === rule && a.request.id === request.id)) continue;
      asked.push({ rule, request });
      reads(seed, request.fields);
    }
  }
  return q;
}

/**
 * The natural keys of {@link SeedQuestions.keys}, read ahead of every pass (a seed's pass may need
 * another seed's keys), one read of each such seed, which answers its repeats questions too
 * (`answer`); only the fields the questions read, when they all say which.
 */
async function readKeysAhead(q: SeedQuestions, sourceOf: (seed: SeedNode) => SeedRecordSource | undefined, answer: (hashes: KeyHashes) => void): Promise<void> {
  for (const [seed, byField] of q.keys) {
    const fields = [...byField];
    const hashes = (q.repeats.get(seed) ?? []).map(({ rule, request }) => new KeyHashes(rule, request));
    const projection = q.fields.get(seed);
    await readSource(
      seed,
      sourceOf(seed)!,
      (chunk) => {
        for (const r of chunk) {
          for (const [field, set] of fields) {
            const v = r[field];
            if (typeof v === 'string' || typeof v === 'number') set.add(String(v));
            if (typeof r.id === 'string' || typeof r.id === 'number') set.add(String(r.id));
          }
        }
        for (const h of hashes) h.add(chunk);
      },
      projection ? [...projection].sort() : undefined,
    );
    for (const h of hashes) answer(h);
  }
}

/** The repeated hashes a pass is started with while its seed's keys are being hashed: none, as if every key were one record's. */
const NONE_YET: ReadonlySet<number> = new Set();

/**
 * {@link lintGraph} with the records of the seeds in `streamed` read from their sources part by
 * part instead of `seed.def.records`: the rules that judge seeds record by record ({@link Rule.seedPass})
 * are fed each streamed seed's parts in one read, every such rule at once, and what they find is
 * handed on at that seed's place in each rule's run. The issues are the same as lintGraph's over
 * the whole records, in the same order, under the same bounds: each pass keeps at most the listed
 * bound of findings per artifact and code and counts the rest, which the bounds would only count.
 * Rules without a seed pass run on the graph as it is (a seed's records they read are its node's).
 *
 * A seed's repeats ({@link SeedPassContext.repeated}) are answered in the same read as its passes:
 * the passes start as if no key repeated while each key is hashed two ways; when no two keys hash
 * alike both ways (no key repeats: the common case), that was the answer and the seed is read
 * once; else the passes of the rules whose keys may repeat run again, in a second read, with them.
 * Natural keys another seed's pass needs ({@link SeedPassContext.keys}) are read ahead of all passes.
 */
export async function lintGraphStreamed(graph: Graph, streamed: SeedSources, rules: readonly Rule[] = RULES): Promise<BuildIssue[]> {
  const sourceOf = typeof streamed === 'function' ? streamed : (seed: SeedNode) => (graph.seeds.get(seed.name) === seed ? streamed.get(seed.name) : undefined);
  const questions = questionsOf(graph, rules, sourceOf);
  // Each rule's answers: a rule names its questions by its own ids.
  const repeated = new Map<Rule, Map<SeedNode, Map<string, ReadonlySet<number>>>>();
  const answer = (rule: Rule, seed: SeedNode, id: string, hashes: ReadonlySet<number>) => {
    let bySeed = repeated.get(rule);
    if (!bySeed) repeated.set(rule, (bySeed = new Map()));
    let byId = bySeed.get(seed);
    if (!byId) bySeed.set(seed, (byId = new Map()));
    byId.set(id, hashes);
  };
  await readKeysAhead(questions, sourceOf, (h) => answer(h.rule, h.request.seed, h.request.id, h.repeated()));
  const starters = new Map<Rule, SeedPassStarter>();
  for (const rule of rules) {
    if (!rule.seedPass) continue;
    const context: SeedPassContext = {
      keys: (seed, field) => questions.keys.get(seed)?.get(field),
      repeated: (seed, id) => repeated.get(rule)?.get(seed)?.get(id),
    };
    starters.set(rule, rule.seedPass(graph, context));
  }
  const found = new Map<Rule, Map<string, SeedFindings>>();
  for (const rule of starters.keys()) found.set(rule, new Map());
  for (const seed of graph.seeds.values()) {
    const source = sourceOf(seed);
    if (!source) continue;
    // Repeats not answered by a read ahead: answered in this read.
    const asked = questions.keys.has(seed) ? [] : (questions.repeats.get(seed) ?? []);
    for (const { rule, request } of asked) answer(rule, seed, request.id, NONE_YET);
    const passes = startPasses(seed, starters, found);
    // A seed no rule judges (invalid, of no object) is not read.
    if (passes.every((p) => !p.pass)) continue;
    const judging = new Set(passes.filter((p) => p.pass).map((p) => p.rule));
    const hashes = asked.filter((a) => judging.has(a.rule)).map(({ rule, request }) => new KeyHashes(rule, request));
    await feedPasses(seed, source, passes, hashes);
    const again = new Set<Rule>();
    for (const h of hashes) {
      const keys = h.repeated();
      answer(h.rule, seed, h.request.id, keys);
      if (keys.size > 0) again.add(h.rule);
    }
    if (again.size > 0) await feedPasses(seed, source, startPasses(seed, new Map([...starters].filter(([rule]) => again.has(rule))), found), []);
  }
  return runRules(graph, rules, found, starters);
}

interface SeedPass {
  readonly rule: Rule;
  readonly pass: SeedRecordPass | undefined;
  readonly out: SeedFindings;
}

/** Starts each rule's pass over `seed`, its findings (bounded as {@link runRules} bounds them) kept in `found` (replacing any before). */
function startPasses(seed: SeedNode, starters: ReadonlyMap<Rule, SeedPassStarter>, found: Map<Rule, Map<string, SeedFindings>>): SeedPass[] {
  const passes: SeedPass[] = [];
  for (const [rule, start] of starters) {
    const out: SeedFindings = { findings: [], perGroup: new Map(), counted: new Map() };
    found.get(rule)!.set(seed.name, out);
    const emit = (f: Finding) => {
      const key = groupKey(f.code, f.artifact.type, f.artifact.name);
      const n = out.perGroup.get(key) ?? 0;
      if (n < MAX_ISSUES_PER_ARTIFACT_CODE) {
        out.perGroup.set(key, n + 1);
        out.findings.push(f);
      } else out.counted.set(key, (out.counted.get(key) ?? 0) + 1);
    };
    let pass: SeedRecordPass | undefined;
    try {
      pass = start(seed, emit);
    } catch (e) {
      out.error = e;
    }
    passes.push({ rule, pass, out });
  }
  return passes;
}

/** Reads `seed` once, handing each part to every pass (a pass that threw is fed no more) and to `hashes`; then ends the passes. */
async function feedPasses(seed: SeedNode, source: SeedRecordSource, passes: readonly SeedPass[], hashes: readonly KeyHashes[]): Promise<void> {
  await readSource(seed, source, (chunk, offset) => {
    for (const p of passes) {
      if (!p.pass || p.out.error !== undefined) continue;
      try {
        p.pass.records(chunk, offset);
      } catch (e) {
        p.out.error = e;
      }
    }
    for (const h of hashes) h.add(chunk);
  });
  for (const p of passes) {
    if (!p.pass || p.out.error !== undefined) continue;
    try {
      p.pass.end?.();
    } catch (e) {
      p.out.error = e;
    }
  }
}

/** Runs the rules in order into one bounded sink; a seed-pass rule hands on what `found` holds for a streamed seed. */
function runRules(
  graph: Graph,
  rules: readonly Rule[],
  found: ReadonlyMap<Rule, ReadonlyMap<string, SeedFindings>>,
  starters?: ReadonlyMap<Rule, SeedPassStarter>,
): BuildIssue[] {
  const sink = new IssueSink();
  for (const rule of rules) {
    try {
      const emit = (f: Finding) => {
        if (!rule.meta.codes.includes(f.code)) throw new Error(`rule ${rule.meta.name} emitted ${f.code}, which its meta does not declare`);
        sink.add(toIssue(graph, f));
      };
      const streamedSeeds = found.get(rule);
      if (streamedSeeds && streamedSeeds.size > 0 && rule.seedPass) {
        const start = starters?.get(rule) ?? rule.seedPass(graph);
        for (const seed of graph.seeds.values()) {
          const out = streamedSeeds.get(seed.name);
          if (out) {
            for (const f of out.findings) emit(f);
            for (const [key, n] of out.counted) sink.addCounted(key, n);
            if (out.error !== undefined) throw out.error;
            continue;
          }
          const pass = start(seed, emit);
          if (!pass) continue;
          pass.records(heldRecords(seed), 0);
          pass.end?.();
        }
      } else if (rule.run) rule.run(graph, emit);
      else for (const f of rule.check(graph)) emit(f);
    } catch (e) {
      sink.crashed(rule, e);
    }
  }
  return sink.finish();
}
