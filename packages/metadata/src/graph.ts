import { type BuildIssue, makeIssue } from '@bvl/build-issue';
import { z } from 'zod';
import { type ArtifactSet, type ArtifactSource, artifactKey, type RawArtifact } from './artifact.ts';
import { describeSchemaProblem } from './describe-schema-problem.ts';
import { childPointer, pointer } from './json-pointer.ts';
import { KeyedList, nameOf } from './keyed-list.ts';
import { PLATFORM_OBJECT_BY_NAME, platformObjectsReached } from './platform-objects.ts';
import {
  type AppDef,
  AppSchema,
  BVL_COLUMN,
  BVL_COLUMN_FIX,
  badOptionValues,
  type DashboardDef,
  DashboardShellSchema,
  type DatasetDef,
  DatasetSchema,
  type DimensionDef,
  type FieldDef,
  FieldName,
  FieldSchema,
  type FormViewDef,
  FormViewSchema,
  type ListViewDef,
  ListViewSchema,
  type MeasureDef,
  NamedSchema,
  type NavItemDef,
  type ObjectDef,
  ObjectShellSchema,
  type SeedDef,
  SeedSchema,
  validate,
  type WidgetDef,
  WidgetSchema,
} from './schemas.ts';
import { DEFAULT_SPEC, type SpecProfile, specProfile } from './spec-profiles.ts';
import { storedRecordsOf } from './stored-records.ts';
import { OWNERLESS_OWNERSHIP, SYSTEM_FIELDS } from './system-fields.ts';

/** What every node of the graph carries. */
interface NodeBase {
  readonly name: string;
  readonly draft: boolean;
  readonly source: ArtifactSource;
  /** The body failed its schema: the name resolves, but rules do not look inside. */
  readonly invalid: boolean;
}

/** A field of an object; `system` for the columns every object has without declaring them. */
export interface FieldNode {
  readonly name: string;
  readonly def: FieldDef;
  readonly system: boolean;
  /** The field's own definition failed its schema (it exists, but its type is unknown). */
  readonly invalid: boolean;
}

export interface ObjectNode extends NodeBase {
  readonly type: 'object';
  readonly def: ObjectDef;
  /** Declared fields, in declaration order (system fields are resolved by {@link resolveField}). */
  readonly fields: ReadonlyMap<string, FieldNode>;
  /** Provided by the platform (sys_user, …), not declared by the stack. */
  readonly platform: boolean;
}

export interface ViewNode extends NodeBase {
  readonly type: 'view';
  /** The object the view reads (its data.object / objectName / object), if any. */
  readonly object: string | undefined;
  readonly key: string;
  readonly kind: 'list' | 'form';
  readonly list?: ListViewDef | undefined;
  readonly form?: FormViewDef | undefined;
  /** Where the config sits in its stored document; see {@link rebaseViewPaths}. */
  readonly docPrefix: string;
}

export interface WidgetNode {
  readonly id: string;
  readonly index: number;
  readonly def: WidgetDef;
}

export interface DashboardNode extends NodeBase {
  readonly type: 'dashboard';
  readonly def: DashboardDef;
  readonly widgets: readonly WidgetNode[];
}

export interface DatasetNode extends NodeBase {
  readonly type: 'dataset';
  readonly def: DatasetDef;
  /** The base object (object, or its aliases source/objectName). */
  readonly object: string | undefined;
  readonly measures: ReadonlyMap<string, MeasureDef>;
  readonly dimensions: ReadonlyMap<string, DimensionDef>;
}

export interface AppNode extends NodeBase {
  readonly type: 'app';
  readonly def: AppDef;
}

export interface SeedNode extends NodeBase {
  readonly type: 'seed';
  readonly def: SeedDef;
  readonly object: string;
  /** The natural-key field(s): externalId (or its alias key), default `name`. */
  readonly externalId: readonly string[];
  readonly mode: NonNullable<SeedDef['mode']>;
  /** How many records the seed has: `def.records.length` for a seed held in memory; for a stored one, its stored list's length. */
  readonly recordCount: number;
  /**
   * An opaque handle to where the records are stored (the platform's `StoredSeed`). When set,
   * `def.records` is empty and the records are read through a source, part by part.
   */
  readonly stored?: unknown;
}

export interface NamedNode extends NodeBase {
  readonly type: 'report' | 'page' | 'permission' | 'sharing_rule';
  /** The body as written (a report's dataset, rows, columns, values; a page's content), when it parsed. */
  readonly def?: Readonly<Record<string, unknown>> | undefined;
}

/** The draft-overlaid artifact graph, indexed once per verification; every lookup is O(1). */
export interface Graph {
  readonly objects: ReadonlyMap<string, ObjectNode>;
  readonly views: ReadonlyMap<string, ViewNode>;
  /** object → view key → view. */
  readonly viewsByObject: ReadonlyMap<string, ReadonlyMap<string, ViewNode>>;
  readonly dashboards: ReadonlyMap<string, DashboardNode>;
  readonly datasets: ReadonlyMap<string, DatasetNode>;
  readonly apps: ReadonlyMap<string, AppNode>;
  readonly seeds: ReadonlyMap<string, SeedNode>;
  readonly seedsByObject: ReadonlyMap<string, readonly SeedNode[]>;
  /**
   * Published seeds a draft replaced, by object: their rows were upserted by an earlier publish and
   * still exist, so their natural keys still resolve lookups (unless the object's seed now replaces).
   */
  readonly priorSeedsByObject: ReadonlyMap<string, readonly SeedNode[]>;
  readonly reports: ReadonlyMap<string, NamedNode>;
  readonly pages: ReadonlyMap<string, NamedNode>;
  /** Permission sets and profiles: object and field grants, row-level security. */
  readonly permissions: ReadonlyMap<string, NamedNode>;
  readonly sharingRules: ReadonlyMap<string, NamedNode>;
  /** Where an artifact came from (for SARIF physical locations). */
  sourceOf(type: string, name: string): ArtifactSource | undefined;
  /** The spec release the graph is judged against: what it refuses is an error whatever a renderer draws. */
  readonly spec: SpecProfile;
}

/** Options of {@link buildGraph}. */
export interface BuildGraphOptions {
  /** The target spec release (a {@link SpecProfile} or its name; default the newest). An unknown name throws a SpecProfileError. */
  readonly spec?: SpecProfile | string;
}

/** Result of {@link buildGraph}: the graph and the schema/load issues found while building it. */
export interface GraphBuild {
  readonly graph: Graph;
  readonly issues: BuildIssue[];
}

// Bodies are checked with `validate` (a predicate compiled from each schema proves the common valid
// case; the schema itself judges the rest and says why) and the raw bodies are kept as definitions:
// the loose schemas' output is the body itself wherever a schema has no defaults (DatasetSchema's
// are filled in by hand) or transforms.
const SEED_CHECK = z.object({
  ...SeedSchema.shape,
  records: z.array(z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'a record must be a JSON object')),
});

const zodMessage = (error: z.ZodError): { message: string; path: Array<string | number> } => {
  const first = error.issues[0];
  const path = (first?.path ?? []).map((p) => (typeof p === 'symbol' ? String(p) : p));
  const rest = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more problem${error.issues.length > 2 ? 's' : ''})` : '';
  return { message: `${first ? describeSchemaProblem(first) : 'is invalid'}${rest}`, path };
};

/**
 * Overlays drafts on the published set (a draft replaces the published artifact of the same
 * type+name; draft-only artifacts are added), checks every body against its schema, and indexes
 * the result. Never throws on bad metadata: a body that fails its schema is an `invalid_artifact`
 * issue and the rest is still indexed.
 */
export function buildGraph(published: ArtifactSet, drafts?: ArtifactSet, options: BuildGraphOptions = {}): GraphBuild {
  const spec = typeof options.spec === 'object' ? options.spec : specProfile(options.spec ?? DEFAULT_SPEC);
  const { overlay, replaced, priorSeeds } = overlayOf(published.artifacts, drafts?.artifacts ?? []);
  const issues: BuildIssue[] = [];
  for (const p of [...published.problems.filter((p) => !replaced.has(artifactKey(p.type, p.name))), ...(drafts?.problems ?? [])]) {
    issues.push(makeIssue({ code: p.code, artifact: { type: p.type, name: p.name }, message: p.message, fix: p.fix, path: p.path ?? '', draft: p.draft }));
  }
  // Replaced published seeds are indexed on the side, their schema problems unreported (the draft is what counts).
  const prior = new GraphBuilder([]);
  for (const a of priorSeeds) prior.add(a);
  const b = new GraphBuilder(issues, prior.seedsByObject);
  for (const a of overlay.artifacts) b.add(a);
  return { graph: b.finish(spec), issues };
}

/** The overlay's artifacts: what {@link mergeOverlay} keeps, and what the drafts replaced. */
export interface MergedOverlay {
  /** The overlaid artifacts by {@link artifactKey}: published ones no draft replaced, then the drafts. */
  readonly merged: ReadonlyMap<string, RawArtifact>;
  /** Keys of published artifacts a draft replaced. */
  readonly replaced: ReadonlySet<string>;
  /** Published seeds a draft replaced (their upserted rows remain). */
  readonly priorSeeds: readonly RawArtifact[];
}

/**
 * The overlay rule, in one place: a draft replaces the published artifact of the same type+name,
 * draft-only artifacts are added, and a draft of a stored view document (a container, an object's
 * listViews) replaces all of its views — a view the draft drops is gone, not silently kept.
 */
export function mergeOverlay(published: readonly RawArtifact[], drafts: readonly RawArtifact[]): MergedOverlay {
  const { overlay, replaced, priorSeeds } = overlayOf(published, drafts);
  return { merged: new Map(overlay.artifacts.map((a) => [artifactKey(a.type, a.name), a])), replaced, priorSeeds };
}

/**
 * Artifacts by type and name in first-seen order, a later one of the same type+name taking the
 * earlier one's place (a Map keyed by {@link artifactKey}, without building a key per artifact).
 */
class Overlay {
  readonly artifacts: RawArtifact[] = [];
  private readonly at = new Map<string, Map<string, number>>();

  /** Sets `a` in its type+name's place; returns the artifact it replaced, if any. */
  set(a: RawArtifact): RawArtifact | undefined {
    let byName = this.at.get(a.type);
    if (!byName) this.at.set(a.type, (byName = new Map()));
    const i = byName.get(a.name);
    if (i === undefined) {
      byName.set(a.name, this.artifacts.length);
      this.artifacts.push(a);
      return undefined;
    }
    const prior = this.artifacts[i];
    this.artifacts[i] = a;
    return prior;
  }
}

/** {@link mergeOverlay}'s rule, over an {@link Overlay}. */
function overlayOf(published: readonly RawArtifact[], drafts: readonly RawArtifact[]): { overlay: Overlay; replaced: Set<string>; priorSeeds: RawArtifact[] } {
  const overlay = new Overlay();
  const redrafted = redraftedContainers(drafts);
  for (const a of published) if (!(a.container && redrafted.has(a.container))) overlay.set(a);
  const replaced = new Set<string>();
  const priorSeeds: RawArtifact[] = [];
  for (const a of drafts) {
    const prior = overlay.set(a);
    if (prior) replaced.add(artifactKey(a.type, a.name));
    if (prior?.type === 'seed' && !prior.refused) priorSeeds.push(prior);
  }
  return { overlay, replaced, priorSeeds };
}

class GraphBuilder {
  readonly objects = new Map<string, ObjectNode>();
  readonly views = new Map<string, ViewNode>();
  readonly viewsByObject = new Map<string, Map<string, ViewNode>>();
  readonly dashboards = new Map<string, DashboardNode>();
  readonly datasets = new Map<string, DatasetNode>();
  readonly apps = new Map<string, AppNode>();
  readonly seeds = new Map<string, SeedNode>();
  readonly seedsByObject = new Map<string, SeedNode[]>();
  readonly reports = new Map<string, NamedNode>();
  readonly pages = new Map<string, NamedNode>();
  readonly permissions = new Map<string, NamedNode>();
  readonly sharingRules = new Map<string, NamedNode>();
  private readonly keyLists = new Map<string, readonly string[]>();

  constructor(
    private readonly issues: BuildIssue[],
    private readonly priorSeedsByObject: ReadonlyMap<string, readonly SeedNode[]> = new Map(),
  ) {}

  add(a: RawArtifact): void {
    if (a.refused) return this.addRefused(a);
    switch (a.type) {
      case 'object':
        return this.addObject(a);
      case 'view':
        return this.addView(a);
      case 'dashboard':
        return this.addDashboard(a);
      case 'dataset':
        return this.addDataset(a);
      case 'app':
        return this.addApp(a);
      case 'seed':
        return this.addSeed(a);
      case 'report':
      case 'page':
      case 'permission':
      case 'sharing_rule':
        return this.addNamed(a, a.type);
      default:
        return assertNever(a.type);
    }
  }

  /** The graph. */
  finish(spec: SpecProfile): Graph {
    for (const def of platformObjectsReached(this.mentionedObjects())) {
      if (this.objects.has(def.name)) continue;
      const fields = new Map<string, FieldNode>();
      for (const [name, fd] of Object.entries(def.fields ?? {})) fields.set(name, { name, def: fd, system: false, invalid: false });
      // A cloud-provided object has no field declarations: its name resolves, its fields are opaque.
      this.objects.set(def.name, {
        type: 'object',
        name: def.name,
        def,
        fields,
        platform: true,
        draft: false,
        invalid: !def.fieldsDeclared,
        source: { pointer: '' },
      });
    }
    const viewsByObject = new Map([...this.viewsByObject].map(([object, byKey]) => [object, new KeyedList([...byKey.values()], viewKey)]));
    // The graph's sourceOf keeps this builder alive: its per-object Maps of views (a hash table
    // each, the lists above replace them) are not kept with it.
    this.viewsByObject.clear();
    return {
      objects: this.objects,
      views: this.views,
      viewsByObject,
      dashboards: this.dashboards,
      datasets: this.datasets,
      apps: this.apps,
      seeds: this.seeds,
      seedsByObject: this.seedsByObject,
      priorSeedsByObject: this.priorSeedsByObject,
      reports: this.reports,
      pages: this.pages,
      permissions: this.permissions,
      sharingRules: this.sharingRules,
      sourceOf: (type, name) => this.nodeOf(type, name)?.source,
      spec,
    };
  }

  /**
   * The node of an overlaid artifact: every one has a node (a refused or invalid body too), so the
   * graph answers {@link Graph.sourceOf} without holding the overlay. Platform objects were not read.
   */
  private nodeOf(type: string, name: string): NodeBase | undefined {
    switch (type) {
      case 'object': {
        const o = this.objects.get(name);
        return o?.platform ? undefined : o;
      }
      case 'view':
        return this.views.get(name);
      case 'dashboard':
        return this.dashboards.get(name);
      case 'dataset':
        return this.datasets.get(name);
      case 'app':
        return this.apps.get(name);
      case 'seed':
        return this.seeds.get(name);
      case 'report':
      case 'page':
      case 'permission':
      case 'sharing_rule':
        return this.namedOf(type).get(name);
      default:
        return undefined;
    }
  }

  /**
   * Every object name the stack mentions (views, datasets, seeds, lookups — every object has system
   * lookups to sys_user and sys_business_unit —, navigation, dashboard filters, `requiresObject`):
   * the platform objects among them, and what their lookups reach, join the graph.
   */
  private mentionedObjects(): string[] {
    // Only platform object names matter to platformObjectsReached (the rest resolve or not on their
    // own), so only those are kept: a plain walk, no iterator or generator step per field.
    const out: string[] = [];
    const mention = (name: unknown) => {
      if (typeof name === 'string' && PLATFORM_OBJECT_BY_NAME.has(name)) out.push(name);
    };
    if (this.objects.size > 0) out.push('sys_user', 'sys_business_unit');
    this.objects.forEach((o) =>
      o.fields.forEach((f) => {
        if (!f.invalid) mention(referenceOf(f.def));
      }),
    );
    this.views.forEach((v) => mention(v.object));
    this.datasets.forEach((d) => mention(d.object));
    this.seedsByObject.forEach((_, s) => mention(s));
    this.dashboards.forEach((d) => {
      for (const f of d.def.globalFilters ?? []) {
        mention(stringAt(f, 'object'));
        mention(stringAt(f, 'optionsFrom', 'object'));
      }
      for (const w of d.widgets) mention(stringAt(w.def, 'requiresObject'));
    });
    this.apps.forEach((a) => {
      const items: unknown[] = [...(a.def.navigation ?? []), ...(a.def.areas ?? []).flatMap((area) => area.navigation ?? [])];
      while (items.length > 0) {
        const item = items.pop() as NavItemDef;
        mention(stringAt(item, 'objectName'));
        mention(stringAt(item, 'requiresObject'));
        if (Array.isArray(item.children)) items.push(...item.children);
      }
    });
    return out;
  }

  /** A body refused at load: register the name as an invalid node so references to it still resolve. */
  private addRefused(a: RawArtifact): void {
    const base = { name: a.name, draft: a.draft, invalid: true, source: a.source } as const;
    switch (a.type) {
      case 'object':
        return void this.objects.set(a.name, { ...base, type: 'object', def: { name: a.name }, fields: NO_FIELDS, platform: false });
      case 'view':
        return;
      case 'dashboard':
        return void this.dashboards.set(a.name, { ...base, type: 'dashboard', def: { name: a.name, widgets: [] }, widgets: [] });
      case 'dataset':
        return void this.datasets.set(a.name, {
          ...base,
          type: 'dataset',
          def: { name: a.name, dimensions: [], measures: [] },
          object: undefined,
          measures: NO_MEASURES,
          dimensions: NO_DIMENSIONS,
        });
      case 'app':
        return void this.apps.set(a.name, { ...base, type: 'app', def: { name: a.name } });
      case 'seed':
        return void this.seeds.set(a.name, {
          ...base,
          type: 'seed',
          object: a.name.split('#')[0]!,
          def: { object: a.name, records: [] },
          externalId: ['name'],
          mode: 'upsert',
          recordCount: 0,
        });
      case 'report':
      case 'page':
      case 'permission':
      case 'sharing_rule':
        return void this.namedOf(a.type).set(a.name, { ...base, type: a.type });
      default:
        return assertNever(a.type);
    }
  }

  private invalid(a: RawArtifact, error: z.ZodError, prefix = '', member?: string, fix?: string): void {
    const { message, path } = zodMessage(error);
    const where = path.length ? ` at ${prefix}${pointer(...path)}` : prefix ? ` at ${prefix}` : '';
    this.issues.push(
      makeIssue({
        code: 'invalid_artifact',
        artifact: { type: a.type, name: a.name },
        ...(member ? { ref: { type: a.type, name: a.name, member } } : {}),
        message: `${cap(a.type)} "${a.name}"${member ? ` (${member})` : ''} fails its schema${where}: ${message}.`,
        fix: fix ?? `Correct the ${a.type} body${where} to the ObjectStack ${a.type} shape.`,
        path: prefix + pointer(...path),
        draft: a.draft,
      }),
    );
  }

  /**
   * A field whose only schema problems are option values that are not lowercase identifiers gets
   * one issue naming every bad value, with the stored spelling of each as a patch; anything else
   * is the generic invalid_artifact. Returns whether it reported.
   */
  private badOptions(a: RawArtifact, field: string, raw: unknown, error: z.ZodError): boolean {
    const bad = badOptionValues(raw);
    if (bad.length === 0 || !error.issues.every((i) => i.path[0] === 'options')) return false;
    const shown = bad.map((b) => `${JSON.stringify(b.value)}${b.suggestion ? ` → "${b.suggestion}"` : ''}`).join(', ');
    const patch = bad.flatMap((b) => (b.suggestion ? [{ op: 'replace' as const, path: pointer('fields', field, ...b.at), value: b.suggestion }] : []));
    this.issues.push(
      makeIssue({
        code: 'invalid_artifact',
        artifact: { type: 'object', name: a.name },
        ref: { type: 'object', name: a.name, member: field },
        message: `Object "${a.name}" (${field}) has ${bad.length} option value${bad.length === 1 ? '' : 's'} that ${bad.length === 1 ? 'is not a lowercase identifier' : 'are not lowercase identifiers'} (a-z, 0-9, _ and .): ${shown}. ObjectStack refuses the field; the value is what a record stores, the label what a person reads.`,
        fix: `Write each value as its lowercase identifier and keep the text as the label, e.g. {"label": "In Progress", "value": "in_progress"}.`,
        path: pointer('fields', field, 'options'),
        draft: a.draft,
        ...(patch.length === bad.length ? { patch } : {}),
      }),
    );
    return true;
  }

  private addObject(a: RawArtifact): void {
    const shell = validate(ObjectShellSchema, a.body);
    if (!shell.success) {
      this.invalid(a, shell.error);
      this.objects.set(a.name, {
        type: 'object',
        name: a.name,
        def: { name: a.name },
        fields: NO_FIELDS,
        platform: false,
        draft: a.draft,
        invalid: true,
        source: a.source,
      });
      return;
    }
    const rawBodyFields = (a.body as { fields?: unknown }).fields;
    const isRecord = rawBodyFields && typeof rawBodyFields === 'object' && !Array.isArray(rawBodyFields);
    const rawFields = isRecord ? (rawBodyFields as Record<string, unknown>) : {};
    let dropped = !isRecord;
    const entries = Object.entries(rawFields);
    // Sized to the fields written (a name that fails is the only one left out).
    const nodes: FieldNode[] = new Array(entries.length);
    let n = 0;
    for (const [name, raw] of entries) {
      const nameOk = validate(FieldName, name);
      if (!nameOk.success) {
        this.invalid(a, nameOk.error, pointer('fields', name), name, BVL_COLUMN.test(name) ? BVL_COLUMN_FIX : undefined);
        dropped = true;
        continue;
      }
      // The raw body, unknown keys included, is the definition: FieldSchema has no defaults or
      // transforms, so it is the schema's output.
      const f = validate(FieldSchema, raw);
      if (!f.success) {
        if (!this.badOptions(a, name, raw, f.error)) this.invalid(a, f.error, pointer('fields', name), name);
        nodes[n++] = { name, def: { type: 'text' }, system: false, invalid: true };
        dropped = true;
        continue;
      }
      nodes[n++] = { name, def: raw as FieldDef, system: false, invalid: false };
    }
    nodes.length = n;
    const fields = new KeyedList(nodes, nameOf);
    // The body is the definition when every field is: a copy (its fields less those that failed) only otherwise.
    const def = dropped ? definitionWithout(a.body as ObjectDef, nodes) : (a.body as ObjectDef);
    this.objects.set(a.name, { type: 'object', name: a.name, def, fields, platform: false, draft: a.draft, invalid: false, source: a.source });
  }

  private addView(a: RawArtifact): void {
    const kind = a.viewKind ?? 'list';
    const key = a.key ?? a.name.slice(a.name.indexOf('.') + 1);
    const parsed = validate(kind === 'form' ? FormViewSchema : ListViewSchema, a.body);
    if (!parsed.success) this.invalid(a, parsed.error);
    // One literal per case (no spread of a temporary): the same keys, in the same order.
    const docPrefix = a.docPrefix ?? '';
    const node: ViewNode = !parsed.success
      ? { type: 'view', name: a.name, object: a.object, key, kind, draft: a.draft, invalid: true, source: a.source, docPrefix }
      : kind === 'form'
        ? { type: 'view', name: a.name, object: a.object, key, kind, form: a.body as FormViewDef, draft: a.draft, invalid: false, source: a.source, docPrefix }
        : { type: 'view', name: a.name, object: a.object, key, kind, list: a.body as ListViewDef, draft: a.draft, invalid: false, source: a.source, docPrefix };
    this.views.set(a.name, node);
    if (a.object) {
      let byKey = this.viewsByObject.get(a.object);
      if (!byKey) this.viewsByObject.set(a.object, (byKey = new Map()));
      byKey.set(key, node);
    }
  }

  private addDashboard(a: RawArtifact): void {
    const shell = validate(DashboardShellSchema, a.body);
    if (!shell.success) {
      this.invalid(a, shell.error);
      this.dashboards.set(a.name, {
        type: 'dashboard',
        name: a.name,
        def: { name: a.name, widgets: [] },
        widgets: [],
        draft: a.draft,
        invalid: true,
        source: a.source,
      });
      return;
    }
    const def = a.body as DashboardDef;
    // Sized to the widgets written (one that fails, or repeats an id, is left out).
    const widgets: WidgetNode[] = new Array(def.widgets.length);
    let n = 0;
    const ids = new Map<string, number>();
    def.widgets.forEach((raw, index) => {
      const w = validate(WidgetSchema, raw);
      const rawId =
        typeof raw === 'object' && raw !== null && typeof (raw as { id?: unknown }).id === 'string' ? (raw as { id: string }).id : `widgets[${index}]`;
      if (!w.success) {
        this.invalid(a, w.error, pointer('widgets', index), rawId);
        return;
      }
      const id = (raw as WidgetDef).id;
      const first = ids.get(id);
      if (first !== undefined) {
        this.issues.push(
          makeIssue({
            code: 'duplicate_artifact',
            artifact: { type: 'dashboard', name: a.name },
            ref: { type: 'dashboard', name: a.name, member: id },
            message: `Dashboard "${a.name}" has two widgets with id "${id}" (widgets ${first} and ${index}); widget ids must be unique within a dashboard.`,
            fix: `Give widget ${index} of dashboard "${a.name}" a unique id.`,
            path: pointer('widgets', index, 'id'),
            draft: a.draft,
          }),
        );
        return;
      }
      ids.set(id, index);
      widgets[n++] = { id, index, def: raw as WidgetDef };
    });
    widgets.length = n;
    this.dashboards.set(a.name, { type: 'dashboard', name: a.name, def, widgets, draft: a.draft, invalid: false, source: a.source });
  }

  private addDataset(a: RawArtifact): void {
    const d = validate(DatasetSchema, a.body);
    if (!d.success) {
      this.invalid(a, d.error);
      this.datasets.set(a.name, {
        type: 'dataset',
        name: a.name,
        def: { name: a.name, dimensions: [], measures: [] },
        object: undefined,
        measures: NO_MEASURES,
        dimensions: NO_DIMENSIONS,
        draft: a.draft,
        invalid: true,
        source: a.source,
      });
      return;
    }
    const raw = a.body as DatasetDef;
    // The body is the definition when it has both lists (the copy would be the same keys and values).
    const def: DatasetDef = raw.dimensions != null && raw.measures != null ? raw : { ...raw, dimensions: raw.dimensions ?? [], measures: raw.measures ?? [] };
    // The list itself indexes its names when none repeats (the usual case); else its first of each.
    const once = <T extends { name: string }>(list: readonly T[], key: 'measures' | 'dimensions'): KeyedList<T> => {
      const seen = list.length > 12 ? new Set<string>() : undefined;
      let kept: T[] | undefined;
      list.forEach((item, i) => {
        const first = seen ? !seen.has(item.name) : list.findIndex((x) => x.name === item.name) === i;
        if (first) {
          seen?.add(item.name);
          kept?.push(item);
          return;
        }
        kept ??= list.slice(0, i);
        this.issues.push(
          makeIssue({
            code: 'duplicate_artifact',
            artifact: { type: 'dataset', name: a.name },
            ref: { type: 'dataset', name: a.name, member: item.name },
            message: `Dataset "${a.name}" declares ${key === 'measures' ? 'measure' : 'dimension'} "${item.name}" twice (${key} ${list.findIndex((x) => x.name === item.name)} and ${i}); only the first is used, so widgets may read the wrong one.`,
            fix: `Rename or remove ${key}[${i}] of dataset "${a.name}".`,
            path: pointer(key, i, 'name'),
            draft: a.draft,
          }),
        );
      });
      return new KeyedList(kept ?? list, nameOf);
    };
    const measures = once(def.measures, 'measures');
    const dimensions = once(def.dimensions, 'dimensions');
    this.datasets.set(a.name, {
      type: 'dataset',
      name: a.name,
      def,
      object: def.object ?? def.source ?? def.objectName,
      measures,
      dimensions,
      draft: a.draft,
      invalid: false,
      source: a.source,
    });
  }

  private addApp(a: RawArtifact): void {
    const d = validate(AppSchema, a.body);
    if (!d.success) this.invalid(a, d.error);
    this.apps.set(a.name, {
      type: 'app',
      name: a.name,
      def: d.success ? (a.body as AppDef) : { name: a.name },
      draft: a.draft,
      invalid: !d.success,
      source: a.source,
    });
  }

  private addSeed(a: RawArtifact): void {
    const body = a.body as Record<string, unknown>;
    // A list a store did not read (a large stored seed, see StoredRecords): read through a source.
    const stored = storedRecordsOf(body.records ?? body.data ?? body.rows);
    // Aliases: data/rows → records, key → externalId. A body that uses neither is its own normal form.
    const normalized =
      body.records != null && body.externalId != null && !stored
        ? body
        : {
            ...body,
            records: stored ? [] : (body.records ?? body.data ?? body.rows),
            externalId: body.externalId ?? body.key,
          };
    // Checked with a twin that does not copy every record (seeds can hold 100k of them); the
    // normalized body is the definition. SeedSchema has no defaults, so the two are the same value.
    // A stored list holds only objects (see StoredRecords): it passes as the empty list does.
    const d = validate(SEED_CHECK, normalized);
    const object = typeof body.object === 'string' ? body.object : a.name;
    if (!d.success) {
      this.invalid(a, d.error);
      const node: SeedNode = {
        type: 'seed',
        name: a.name,
        object,
        def: { object, records: [] },
        externalId: ['name'],
        mode: 'upsert',
        recordCount: 0,
        draft: a.draft,
        invalid: true,
        source: a.source,
      };
      this.seeds.set(a.name, node);
      return;
    }
    const checked = normalized as SeedDef;
    const ext = checked.externalId ?? 'name';
    const node: SeedNode = {
      type: 'seed',
      name: a.name,
      object,
      def: normalized as SeedDef,
      externalId: typeof ext === 'string' ? this.keyList(ext) : ext,
      mode: checked.mode ?? 'upsert',
      recordCount: stored ? stored.count : checked.records.length,
      ...(stored ? { stored: stored.handle } : {}),
      draft: a.draft,
      invalid: false,
      source: a.source,
    };
    this.seeds.set(a.name, node);
    const list = this.seedsByObject.get(object);
    if (list) list.push(node);
    else this.seedsByObject.set(object, [node]);
  }

  /** One `[key]` per natural key name, shared by the seeds that use it. */
  private keyList(key: string): readonly string[] {
    let list = this.keyLists.get(key);
    if (!list) this.keyLists.set(key, (list = [key]));
    return list;
  }

  private namedOf(type: NamedNode['type']): Map<string, NamedNode> {
    return { report: this.reports, page: this.pages, permission: this.permissions, sharing_rule: this.sharingRules }[type];
  }

  private addNamed(a: RawArtifact, type: NamedNode['type']): void {
    const d = validate(NamedSchema, a.body);
    if (!d.success) this.invalid(a, d.error);
    const def = d.success && typeof a.body === 'object' && a.body !== null ? (a.body as Record<string, unknown>) : undefined;
    this.namedOf(type).set(a.name, { type, name: a.name, draft: a.draft, invalid: !d.success, source: a.source, def });
  }
}

const viewKey = (v: ViewNode): string => v.key;
const NO_FIELDS: ReadonlyMap<string, FieldNode> = new KeyedList<FieldNode>([], nameOf);
const NO_MEASURES: ReadonlyMap<string, MeasureDef> = new KeyedList<MeasureDef>([], nameOf);
const NO_DIMENSIONS: ReadonlyMap<string, DimensionDef> = new KeyedList<DimensionDef>([], nameOf);

/** An object's body with only the fields that passed their schema (in `fields`, not invalid). */
function definitionWithout(body: ObjectDef, fields: readonly FieldNode[]): ObjectDef {
  const parsedFields: Record<string, FieldDef> = Object.create(null);
  for (const f of fields) if (!f.invalid) parsedFields[f.name] = f.def;
  return { ...body, fields: parsedFields };
}

/** The string value at a path of keys into a value, or undefined (anything else is skipped). */
function stringAt(value: unknown, key: string, inner?: string): string | undefined {
  let v = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  if (inner !== undefined) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[inner] : undefined;
  return typeof v === 'string' ? v : undefined;
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Exhaustiveness guard for switches over closed unions. */
export function assertNever(x: never): never {
  throw new Error(`unhandled case: ${String(x)}`);
}

/** Resolves a field of an object: declared fields first, then the system fields every object has. */
export function resolveField(object: ObjectNode, name: string): FieldNode | undefined {
  const declared = object.fields.get(name);
  if (declared) return declared;
  const system = SYSTEM_FIELD_NODES.get(name);
  if (!system) return undefined;
  if (name === 'owner_id' && object.def.ownership && OWNERLESS_OWNERSHIP.has(object.def.ownership)) return undefined;
  return system;
}

const SYSTEM_FIELD_NODES: ReadonlyMap<string, FieldNode> = new Map(
  Object.entries(SYSTEM_FIELDS).map(([name, def]) => [name, { name, def, system: true, invalid: false }]),
);

/** Declared field names of an object (the candidates worth suggesting). */
export function declaredFieldNames(object: ObjectNode): string[] {
  return [...object.fields.keys()];
}

/** Every resolvable field name of an object: declared, then system. */
export function allFieldNames(object: ObjectNode): string[] {
  const names = declaredFieldNames(object);
  for (const s of Object.keys(SYSTEM_FIELDS)) if (!object.fields.has(s) && resolveField(object, s)) names.push(s);
  return names;
}

/** Field types that reference another object's records. */
export const RELATION_TYPES: ReadonlySet<string> = new Set(['lookup', 'master_detail', 'user', 'tree']);

/** The object a relation field points at (`user` → sys_user when no reference is given). */
export function referenceOf(field: FieldDef): string | undefined {
  if (field.reference) return field.reference;
  if (field.type === 'user') return 'sys_user';
  return undefined;
}

/** The values a select-like field allows (option objects or bare values), as strings. */
export function optionValues(field: FieldDef): string[] | undefined {
  if (!field.options) return undefined;
  return field.options.map((o) => (typeof o === 'object' ? String(o.value) : String(o)));
}

export { childPointer };

/** The stored view documents (containers, objects' listViews) that a set of drafts redrafts whole. */
export function redraftedContainers(drafts: readonly RawArtifact[]): Set<string> {
  return new Set(drafts.flatMap((a) => (a.container ? [a.container] : a.type === 'object' ? [`object:${a.name}`] : [])));
}

/**
 * Rules report a view's paths relative to its config (the ListView/FormView body). An agent patches
 * the document the view is stored in — a container, a view item, an object's listViews — so
 * `verify` rebases view issue paths and patches onto that document (`/columns/0` of
 * `exp_expense.board` becomes `/listViews/board/columns/0`).
 */
export function rebaseViewPaths(graph: Graph, issues: readonly BuildIssue[]): BuildIssue[] {
  return issues.map((issue) => {
    if (issue.artifact.type !== 'view') return issue;
    const prefix = graph.views.get(issue.artifact.name)?.docPrefix;
    if (!prefix) return issue;
    const out: BuildIssue = { ...issue };
    if (issue.path !== undefined) out.path = prefix + issue.path;
    if (issue.patch)
      out.patch = issue.patch.map((op) => ('from' in op ? { ...op, path: prefix + op.path, from: prefix + op.from } : { ...op, path: prefix + op.path }));
    return out;
  });
}
