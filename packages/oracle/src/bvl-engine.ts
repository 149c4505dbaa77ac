import { randomBytes } from 'node:crypto';
import type { BuildIssue } from '@bvl/build-issue';
import { collectStack } from '@bvl/metadata';
import { createDataEngine, createProbeEngine, dropTenant, type Platform, publishPackage, stageDrafts } from '@bvl/platform';
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
                rows: normaliseRows(q.rows, { side: 'bvl', selection: u.selection, dataset: u.dataset, options }),
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
