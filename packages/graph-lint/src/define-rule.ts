import type { BuildIssue, FixSafety, IssueCode, JsonPatchOp } from '@bvl/build-issue';
import type { Graph, SeedNode } from '@bvl/metadata';

/** What a rule reports; lintGraph turns it into a BuildIssue (layer, severity, draft flag). */
export interface Finding {
  readonly code: IssueCode;
  readonly artifact: { readonly type: string; readonly name: string };
  readonly ref?: { readonly type: string; readonly name: string; readonly member?: string } | undefined;
  readonly message: string;
  readonly fix?: string | undefined;
  readonly path?: string | undefined;
  readonly suggestions?: readonly string[] | undefined;
  readonly patch?: readonly JsonPatchOp[] | undefined;
  /** `unsafe` when the patch is the best of several guesses; default `safe`. */
  readonly fixSafety?: FixSafety | undefined;
}

/** A rule's metadata: its name, the codes it may emit and one line of docs. */
export interface RuleMeta {
  /** kebab-case, equal to the file name under rules/. */
  readonly name: string;
  readonly codes: readonly IssueCode[];
  readonly docs: string;
}

/** Where a streaming rule sends each finding, in order. */
export type Emit = (finding: Finding) => void;

/** One seed record as parsed. */
export type SeedRecord = Readonly<Record<string, unknown>>;

/**
 * A rule's judgement of one seed's records, fed in chunks: `records(chunk, offset)` judges records
 * `offset …` in order, `end()` emits what the pass holds until every record was seen. Fed the whole
 * array at once it is the rule; fed parts read from storage it emits the same findings in the same order.
 */
export interface SeedRecordPass {
  records(chunk: readonly SeedRecord[], offset: number): void;
  end?(): void;
}

/**
 * What a streamed lint read ahead of the passes, for rules whose judgement of one seed needs a
 * set-wide fact of another, stored, seed (whose node holds no records): see {@link Rule.seedKeys}.
 */
export interface SeedPassContext {
  /**
   * The natural keys of a stored seed a rule asked for ({@link Rule.seedKeys}): for each record in
   * order, its `field` value, then its `id`, each when a string or a number, as `String(value)`,
   * distinct in first-seen order. Undefined when not read (not asked for, or the seed has no source).
   */
  keys(seed: SeedNode, field: string): ReadonlySet<string> | undefined;
  /**
   * For a stored seed's {@link SeedRepeatsRequest} (by its `id`): the {@link keyHash}es of the keys
   * more than one of its records has — every key two records share is among them (a hash two
   * different keys share too: the rule settles those on the keys). A record whose key's hash is not
   * here has a key no other record has. Undefined when not read (then the rule keeps every key).
   * A pass may be started with an empty set while the seed's keys are still being hashed (in the
   * same read): when some key turns out to repeat, the lint runs that pass again over the seed with
   * the answer and drops what the first run found. So a pass uses it only to skip keys, nothing else.
   */
  repeated(seed: SeedNode, id: string): ReadonlySet<number> | undefined;
}

/**
 * A set-wide question a rule asks of a stored seed ahead of its pass (see {@link Rule.seedRepeats}):
 * which of its records share a key with another record.
 */
export interface SeedRepeatsRequest {
  readonly seed: SeedNode;
  /** Names the question within the seed (the rule's own name for its key). */
  readonly id: string;
  /** A record's key text, or undefined when the record has none (it is not judged by this key). */
  readonly key: (record: SeedRecord) => string | undefined;
  /**
   * The record fields `key` reads, when it reads no other: then `key` may be handed a record of
   * only those fields (the ones the record has, with their values) — a stored seed's source reads
   * a few short values a record instead of whole records. Unset: `key` is handed whole records.
   */
  readonly fields?: readonly string[];
}

/** A stored seed's natural keys a rule needs read ahead (see {@link SeedPassContext.keys}). */
export interface SeedKeysRequest {
  readonly seed: SeedNode;
  readonly field: string;
}

/** Per lint run (state shared by the seeds, e.g. caches): starts a seed's pass, or undefined when the seed is not judged. */
export type SeedPassStarter = (seed: SeedNode, emit: Emit) => SeedRecordPass | undefined;

/** An L1 rule: data plus one pure function over the prebuilt graph. Never throws, never does I/O. */
export interface Rule {
  readonly meta: RuleMeta;
  check(graph: Graph): Iterable<Finding>;
  /**
   * A rule that judges seeds record by record: its passes, which {@link run} feeds each seed's
   * records whole and a streamed lint feeds a stored seed's records part by part.
   */
  seedPass?(graph: Graph, context?: SeedPassContext): SeedPassStarter;
  /**
   * The stored seeds (their node has `stored` set) whose natural keys {@link seedPass} needs read
   * ahead, as {@link SeedPassContext.keys} hands them over (a streamed lint reads them first).
   */
  seedKeys?(graph: Graph): Iterable<SeedKeysRequest>;
  /**
   * The stored seeds' keys whose repeats {@link seedPass} judges (duplicate keys, unique values): a
   * streamed lint hashes them (in the read of the passes, or of a read ahead of the seed's natural
   * keys), so the pass keeps only the keys that may repeat ({@link SeedPassContext.repeated})
   * instead of every key of the seed.
   */
  seedRepeats?(graph: Graph): Iterable<SeedRepeatsRequest>;
  /**
   * The same findings as {@link check}, in the same order, handed to `emit` as they are found: what
   * lintGraph calls when a rule has it. A plain function walks the graph without the iterator
   * result a generator allocates at every step of every loop (most of L1's garbage).
   */
  run?(graph: Graph, emit: Emit): void;
}

/** A rule as written: `check` (a generator), or `run` (streaming to `emit`; `check` is derived). */
export interface RuleDefinition {
  readonly meta: RuleMeta;
  check?(graph: Graph): Iterable<Finding>;
  run?(graph: Graph, emit: Emit): void;
  /** A per-seed record pass (see {@link Rule.seedPass}); `run` is derived from it. */
  seedPass?(graph: Graph, context?: SeedPassContext): SeedPassStarter;
  /** See {@link Rule.seedKeys}. */
  seedKeys?(graph: Graph): Iterable<SeedKeysRequest>;
  /** See {@link Rule.seedRepeats}. */
  seedRepeats?(graph: Graph): Iterable<SeedRepeatsRequest>;
}

/**
 * A seed's records as held in memory. A stored seed's ({@link SeedNode.stored}: its node holds none)
 * are read through a source (lintGraphStreamed): judging its empty list would pass it unread, so
 * this throws instead (a rule crash, reported as such).
 */
export function heldRecords(seed: SeedNode): readonly SeedRecord[] {
  if (seed.stored !== undefined)
    throw new Error(`the records of seed "${seed.name}" are stored, not held: lint it with lintGraphStreamed and a source of its records`);
  return seed.def.records;
}

/** Runs a rule's seed passes over every seed's records, whole, in seed order. */
function runSeedPasses(seedPass: (graph: Graph) => SeedPassStarter): (graph: Graph, emit: Emit) => void {
  return (graph, emit) => {
    const start = seedPass(graph);
    for (const seed of graph.seeds.values()) {
      const pass = start(seed, emit);
      if (!pass) continue;
      pass.records(heldRecords(seed), 0);
      pass.end?.();
    }
  };
}

/** Types a rule literal; a rule written with `run` gets the `check` that collects what it emits. */
export function defineRule(rule: RuleDefinition): Rule {
  const { meta, check, seedPass, seedKeys, seedRepeats } = rule;
  if (seedPass && rule.run) throw new Error(`rule ${meta.name} has both run and seedPass`);
  const run = rule.run ?? (seedPass ? runSeedPasses(seedPass) : undefined);
  if (run)
    return {
      meta,
      run,
      ...(seedPass ? { seedPass } : {}),
      ...(seedKeys ? { seedKeys } : {}),
      ...(seedRepeats ? { seedRepeats } : {}),
      check(graph) {
        const out: Finding[] = [];
        run(graph, (f) => out.push(f));
        return out;
      },
    };
  if (!check) throw new Error(`rule ${meta.name} has neither check nor run`);
  return { meta, check };
}

/** Re-exported for rules' convenience. */
export type { BuildIssue };
