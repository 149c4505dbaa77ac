import { randomBytes } from 'node:crypto';
import type { BuildIssue } from '@bvl/build-issue';
import { collectStack, type Graph } from '@bvl/metadata';
import { createDataEngine, createProbeEngine, type DataEngine, dropTenant, MAX_FIND_LIMIT, type Platform, publishPackage, stageDrafts } from '@bvl/platform';
import type { StackDoc } from './doc-key.ts';
import type { Answer, Unit } from './engine-units.ts';
import { normaliseRows, optionLabels } from './normalise.ts';

/**
 * bvl's L3 on a stack: the stack staged and published as one package in a tenant of its own
 * (dropped after) through @bvl/platform's publish — the gate, the tables, the seeds — then each
 * unit answered through the platform's probe engine (row counts, the view reads L3 runs) and its
 * data engine (the widget's dataset query, rows and all). A stack bvl's gate refuses answers only
 * the units its L1/L2 errors name (outcome `error`, with the codes); its other units are unanswered.
 */
export async function bvlAnswers(platform: Platform, doc: StackDoc, units: readonly Unit[]): Promise<Answer[]> {
  const options = optionLabels(doc);
  const tenant = `oracle_${process.pid}_${randomBytes(4).toString('hex')}`;
  const scope = { tenant, package: 'oracle' };
  try {
    await stageDrafts(platform, scope, collectStack(doc, { draft: true }));
    const r = await publishPackage(platform, scope);
    if (r.outcome === 'refused') return refused(units, r.issues);
    if (r.outcome !== 'published') return units.map((u) => ({ key: u.key, outcome: 'error', error: `bvl publish ${r.outcome}` }));
    const probe = createProbeEngine(platform, { tenant, graph: r.graph });
    const data = createDataEngine(platform, { tenant, graph: r.graph });
    const out: Answer[] = [];
    for (const u of units) {
      if (u.kind === 'seed') {
        const n = await probe.countRows(u.object);
        out.push(n.ok ? { key: u.key, outcome: n.value > 0 ? 'rows' : 'empty', count: n.value } : { key: u.key, outcome: 'error', error: n.error });
      } else if (u.kind === 'view') {
        const v = await probe.readView(u.object, u.read);
        out.push(v.ok ? { key: u.key, outcome: v.value.rows > 0 ? 'rows' : 'empty' } : { key: u.key, outcome: 'error', error: v.error });
      } else {
        const dataset = r.graph.datasets.get(u.dataset);
        const q = dataset ? await data.queryDataset(dataset, u.selection) : { ok: false as const, error: `dataset "${u.dataset}" is not published` };
        out.push(
          q.ok
            ? {
                key: u.key,
                outcome: q.rows.length ? 'rows' : 'empty',
                rows: normaliseRows(await lookupNames(data, r.graph, u, q.rows), { side: 'bvl', selection: u.selection, dataset: u.dataset, options }),
              }
            : { key: u.key, outcome: 'error', error: q.error },
        );
      }
    }
    return out;
  } catch (e) {
    return units.map((u) => ({ key: u.key, outcome: 'error', error: `bvl crashed: ${(e as Error).message}` }));
  } finally {
    await dropTenant(platform, tenant).catch(() => {});
  }
}

/**
 * Normalisation 4, lookup dimensions: a dimension grouping by a lookup field itself (`field:
 * account`) is answered by the engine with the referenced record's display name and by bvl with
 * its id; bvl's ids are read back as that name, the display field chosen by ObjectStack's rule
 * (service-analytics pickDisplayField: `name`, `title`, `label`, else the first text field).
 */
async function lookupNames(data: DataEngine, graph: Graph, unit: Unit, rows: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  if (unit.kind !== 'widget') return rows;
  const dataset = graph.datasets.get(unit.dataset);
  const base = dataset?.object ? graph.objects.get(dataset.object) : undefined;
  const dims = Array.isArray(dataset?.def.dimensions) ? (dataset.def.dimensions as Array<{ name?: unknown; field?: unknown }>) : [];
  let out = rows;
  for (const name of unit.selection.dimensions ?? []) {
    const field = dims.find((d) => d.name === name)?.field;
    const def = typeof field === 'string' ? base?.fields.get(field)?.def : undefined;
    const target =
      def && (def.type === 'lookup' || def.type === 'master_detail') && typeof def.reference === 'string' ? graph.objects.get(def.reference) : undefined;
    if (!target) continue;
    const fields = [...target.fields.values()];
    const display = ['name', 'title', 'label'].find((f) => target.fields.has(f)) ?? fields.find((f) => f.def.type === 'text')?.name;
    if (!display) continue;
    const read = await data.find(target.name, { columns: ['id', display], limit: MAX_FIND_LIMIT });
    if (!read.ok) continue;
    const names = new Map(read.rows.map((row) => [String(row.id), row[display]]));
    out = out.map((row) => (row[name] != null && names.has(String(row[name])) ? { ...row, [name]: names.get(String(row[name])) } : row));
  }
  return out;
}

/** The units a refused publish's errors name: a seed by its object, a view by name, a widget by dashboard and member. */
function refused(units: readonly Unit[], issues: readonly BuildIssue[]): Answer[] {
  const errors = issues.filter((i) => i.severity === 'error');
  const out: Answer[] = [];
  for (const u of units) {
    const on = errors.filter((i) => {
      if (u.kind === 'seed') return (i.artifact.type === 'seed' || i.artifact.type === 'object') && (i.ref?.name ?? i.artifact.name) === u.object;
      if (u.kind === 'view') return i.artifact.type === 'view' && `view ${i.artifact.name}` === u.key;
      return i.artifact.type === 'dashboard' && i.ref?.member !== undefined && `widget ${i.artifact.name}#${i.ref.member}` === u.key;
    });
    if (on.length)
      out.push({
        key: u.key,
        outcome: 'error',
        codes: [...new Set(on.map((i) => `bvl ${i.code}`))].sort(),
        error: on[0]!.message,
      });
  }
  return out;
}
