import type { JsonPatchOp } from '@bvl/build-issue';
import {
  allFieldNames,
  clearWinner,
  type DatasetNode,
  didYouMean,
  type Graph,
  type ObjectNode,
  pointer,
  RELATION_TYPES,
  referenceOf,
  resolveField,
} from '@bvl/metadata';
import { sql } from 'kysely';
import type { ColumnRef } from './compile-filter.ts';
import { MAX_INCLUDE_HOPS } from './dataset-plan.ts';
import type { Join } from './emit-sql.ts';
import { isSqlIdentifier } from './pg-sql.ts';
import type { Mention, PlanContext } from './plan-context.ts';

const list = (xs: Iterable<string>): string => [...xs].join(', ') || 'none';

/** Why an include path's hop cannot join. */
interface HopFailure {
  readonly message: string;
  readonly fix: string;
  readonly ref: { type: string; name: string; member: string };
  readonly suggestions: string[];
}

/** A join of an include path, with the object it reaches. */
export interface JoinedObject extends Join {
  readonly object: ObjectNode;
}

/**
 * The joins of a dataset's `include` paths (to-one lookups, at most 3 hops, one datasource) and the
 * resolution of field paths through them: `status` on the base object, `account.owner.name` through
 * the declared `account.owner` include. Problems go to the planner's report.
 */
export class PlanJoins {
  private readonly joins = new Map<string, JoinedObject>();
  private readonly brokenPaths = new Set<string>();
  private readonly aliases = new Set<string>();

  constructor(
    private readonly dataset: DatasetNode,
    private readonly graph: Graph,
    private readonly base: ObjectNode | undefined,
    private readonly baseAlias: string,
    private readonly label: string,
    private readonly report: PlanContext['problem'],
  ) {
    this.aliases.add(baseAlias);
  }

  /** The registered joins, in registration order. */
  all(): JoinedObject[] {
    return [...this.joins.values()];
  }

  /** Registers the joins of the dataset's include paths, reporting each path that cannot join. */
  planIncludes(): void {
    const include = this.dataset.def.include ?? [];
    include.forEach((raw, i) => {
      const at = ['include', i];
      if (typeof raw !== 'string' || raw === '' || raw.split('.').some((s) => s === '')) {
        this.report(
          'dataset',
          at,
          `Include entry ${i} of ${this.label} is ${JSON.stringify(raw)}, not a relationship path like "account" or "account.owner".`,
          `Write include ${i} of ${this.label} as a dotted path of lookup fields.`,
        );
        return;
      }
      const hops = raw.split('.');
      if (hops.length > MAX_INCLUDE_HOPS) {
        this.brokenPaths.add(raw);
        this.report(
          'dataset',
          at,
          `Include path "${raw}" of ${this.label} has ${hops.length} hops; a dataset joins at most ${MAX_INCLUDE_HOPS} (ADR-0071).`,
          `Shorten include "${raw}" of ${this.label} to at most ${MAX_INCLUDE_HOPS} lookups.`,
        );
        return;
      }
      this.walk(hops, (failure) => {
        this.report(
          'dataset',
          at,
          `Include path "${raw}" of ${this.label} cannot be joined: ${failure.message}.`,
          `${failure.fix}, or remove "${raw}" from the include of ${this.label}.`,
          {
            ref: failure.ref,
            suggestions: failure.suggestions,
          },
        );
      });
    });
  }

  /** Walks (and registers) the joins of a relationship path; reports the first bad hop through `fail`. */
  private walk(hops: readonly string[], fail: (f: HopFailure) => void): JoinedObject | undefined {
    let object = this.base as ObjectNode;
    let parentAlias = this.baseAlias;
    let prefix = '';
    let join: JoinedObject | undefined;
    for (const hop of hops) {
      prefix = prefix ? `${prefix}.${hop}` : hop;
      const known = this.joins.get(prefix);
      if (known) {
        join = known;
        object = known.object;
        parentAlias = known.alias;
        continue;
      }
      if (this.brokenPaths.has(prefix)) return undefined;
      const field = resolveField(object, hop);
      const target = field && RELATION_TYPES.has(field.def.type) && !field.def.multiple ? referenceOf(field.def) : undefined;
      const targetObject = target ? this.graph.objects.get(target) : undefined;
      if (!target || !targetObject || datasourceOf(object) !== datasourceOf(targetObject) || !isSqlIdentifier(hop) || !isSqlIdentifier(target)) {
        this.brokenPaths.add(prefix);
        fail(this.hopFailure(object, hop));
        return undefined;
      }
      join = { alias: this.allocateAlias(prefix), table: target, object: targetObject, parentAlias, column: hop };
      this.joins.set(prefix, join);
      object = targetObject;
      parentAlias = join.alias;
    }
    return join;
  }

  /** Why a hop of an include path cannot join (the first reason, as walk checks them): built only for a broken hop. */
  private hopFailure(object: ObjectNode, hop: string): HopFailure {
    const ref = { type: 'object', name: object.name, member: hop };
    const field = resolveField(object, hop);
    const relations = () => [...object.fields.values()].filter((f) => RELATION_TYPES.has(f.def.type) && !f.def.multiple).map((f) => f.name);
    const broken = (message: string, fix: string, suggestions: string[] = []) => ({ message, fix, ref, suggestions });
    if (!field)
      return broken(
        `hop "${hop}" is not a field of object "${object.name}"`,
        `Name a lookup field of "${object.name}" (it has: ${list(relations())})`,
        didYouMean(hop, relations()),
      );
    if (!RELATION_TYPES.has(field.def.type))
      return broken(
        `hop "${hop}" is a ${field.def.type} field of object "${object.name}", not a lookup/master_detail relationship`,
        `Name a lookup field of "${object.name}" (it has: ${list(relations())})`,
      );
    if (field.def.multiple)
      return broken(
        `hop "${hop}" of object "${object.name}" is a multiple lookup (to-many); only to-one relationships can be joined`,
        `Join through a single-value lookup`,
      );
    const target = referenceOf(field.def);
    if (!target)
      return broken(
        `hop "${hop}" of object "${object.name}" has no reference, so it points at no object`,
        `Set "reference" of field "${hop}" of object "${object.name}"`,
      );
    const targetObject = this.graph.objects.get(target);
    if (!targetObject)
      return broken(
        `hop "${hop}" of object "${object.name}" points at object "${target}", which does not exist`,
        `Create object "${target}" or fix the reference of "${object.name}.${hop}"`,
      );
    const from = datasourceOf(object);
    const to = datasourceOf(targetObject);
    if (from !== to)
      return broken(
        `hop "${hop}" joins object "${object.name}" (datasource "${from}") to object "${target}" (datasource "${to}"); a dataset cannot join across datasources (#5115)`,
        `Base a separate dataset on "${target}", or keep both objects in one datasource`,
      );
    return broken(`hop "${hop}" (object "${target}") is not a usable SQL name`, 'Use snake_case names of at most 63 characters');
  }

  /** `account.owner` → `account__owner`; a taken or over-long alias falls back to `j<n>`. */
  private allocateAlias(path: string): string {
    let alias = path.replaceAll('.', '__');
    for (let n = this.aliases.size; !isSqlIdentifier(alias) || this.aliases.has(alias); n++) alias = `j${n}`;
    this.aliases.add(alias);
    return alias;
  }

  /** Resolves a field path on the base object or a declared include; reports and returns undefined when it cannot. */
  column(path: string, m: Mention): ColumnRef | undefined {
    if (!this.base) return undefined;
    // A field of the base object (most paths): nothing to split.
    if (path !== '' && !path.includes('.')) return this.fieldColumn(this.base, this.baseAlias, path, '', m);
    const segments = path.split('.');
    if (segments.some((s) => s === '')) {
      this.report(m.origin, m.at, `${m.who} reads "${path}", which is not a field path.`, 'Name a field, or relationship.field for an included relationship.');
      return undefined;
    }
    const name = segments[segments.length - 1] as string;
    const relationship = segments.slice(0, -1).join('.');
    let object = this.base;
    let alias = this.baseAlias;
    if (relationship) {
      if (this.brokenPaths.size > 0 && segments.slice(0, -1).some((_, k) => this.brokenPaths.has(segments.slice(0, k + 1).join('.')))) return undefined;
      const join = this.joins.get(relationship);
      if (!join) {
        const hops = segments.length - 1;
        const include = this.dataset.def.include;
        const addable = hops <= MAX_INCLUDE_HOPS && this.resolvableChain(segments.slice(0, -1));
        const patch: JsonPatchOp[] | undefined = addable
          ? [include ? { op: 'add', path: '/include/-', value: relationship } : { op: 'add', path: '/include', value: [relationship] }]
          : undefined;
        this.report(
          m.origin,
          m.at,
          `${m.who} reads "${path}", but relationship path "${relationship}" is not declared in the include of ${this.label} (#5367)${hops > MAX_INCLUDE_HOPS ? `, and it has ${hops} hops (at most ${MAX_INCLUDE_HOPS})` : ''}.`,
          hops > MAX_INCLUDE_HOPS ? `Read a field at most ${MAX_INCLUDE_HOPS} lookups away.` : `Add "${relationship}" to the include of ${this.label}.`,
          patch ? { patch } : {},
        );
        return undefined;
      }
      object = join.object;
      alias = join.alias;
    }
    return this.fieldColumn(object, alias, name, relationship, m);
  }

  /** Field `name` of `object` (joined as `alias`, through `relationship` or '' on the base object); reports and returns undefined when it cannot. */
  private fieldColumn(object: ObjectNode, alias: string, name: string, relationship: string, m: Mention): ColumnRef | undefined {
    const field = resolveField(object, name);
    if (!field) {
      const names = allFieldNames(object);
      const winner = m.patchable ? clearWinner(name, names) : undefined;
      this.report(
        m.origin,
        m.at,
        `${m.who} reads field "${name}"${relationship ? ` (through "${relationship}")` : ''}, which object "${object.name}" does not have.`,
        `Name a field of object "${object.name}" (it has: ${list(names)}).`,
        {
          ref: { type: 'object', name: object.name, member: name },
          suggestions: didYouMean(name, names),
          ...(!relationship && m.origin === 'dataset' && (m.at[0] === 'dimensions' || m.at[0] === 'measures') ? { reportedByL1: true } : {}),
          ...(winner ? { patch: [{ op: 'replace', path: pointer(...m.at), value: relationship ? `${relationship}.${winner}` : winner }] } : {}),
        },
      );
      return undefined;
    }
    if (!isSqlIdentifier(name)) {
      this.report(
        m.origin,
        m.at,
        `${m.who} reads field "${name}", whose name is not a usable SQL column name.`,
        'Use a snake_case field name of at most 63 characters.',
      );
      return undefined;
    }
    return { sql: () => sql.ref(`${alias}.${name}`), field };
  }

  /** Whether a relationship path would join if it were declared (so a patch adding it is safe). */
  private resolvableChain(hops: readonly string[]): boolean {
    let object = this.base;
    for (const hop of hops) {
      const f = object ? resolveField(object, hop) : undefined;
      if (!f || !RELATION_TYPES.has(f.def.type) || f.def.multiple) return false;
      const target = referenceOf(f.def);
      object = target ? this.graph.objects.get(target) : undefined;
      if (!object) return false;
    }
    return true;
  }
}

/** An object's datasource (ObjectStack default: `default`); platform objects live in the default one. */
function datasourceOf(object: ObjectNode): string {
  const ds = (object.def as { datasource?: unknown }).datasource;
  return typeof ds === 'string' && ds !== '' ? ds : 'default';
}
