import { allFieldNames, type DatasetNode, type Graph, type NamedNode, pointer } from '@bvl/metadata';
import { checkField } from '../check-field.ts';
import { defineRule, type Finding } from '../define-rule.ts';
import { didYouMeanText, listing, objectChoices, q, suggest } from '../describe-names.ts';
import { filterLeaves } from '../filter-leaves.ts';
import { resolvePath } from '../resolve-path.ts';

type Body = Readonly<Record<string, unknown>>;
const isRecord = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The name an entry of rows/columns/values gives: a string, or `{field | dimension | measure | name}`. */
function entryName(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (!isRecord(v)) return undefined;
  for (const k of ['field', 'dimension', 'measure', 'name'] as const) if (typeof v[k] === 'string') return v[k] as string;
  return undefined;
}

/** One report body (the report itself, or a block of a joined report) at `at`. */
function* checkBody(graph: Graph, report: NamedNode, body: Body, at: ReadonlyArray<string | number>, subject: string): Generator<Finding> {
  const artifact = { type: 'report', name: report.name };
  if (typeof body.dataset === 'string') {
    const ds = graph.datasets.get(body.dataset);
    if (!ds) {
      const path = pointer(...at, 'dataset');
      const s = suggest(body.dataset, graph.datasets.keys(), path);
      yield {
        code: 'dangling_dataset',
        artifact,
        ref: { type: 'dataset', name: body.dataset },
        message: `${subject} reads dataset ${q(body.dataset)}, which does not exist (datasets: ${listing(graph.datasets.keys())}).${didYouMeanText(s.suggestions)}`,
        fix: s.suggestions?.length
          ? `Use dataset ${q(s.suggestions[0])}, or create dataset ${q(body.dataset)}.`
          : `Create dataset ${q(body.dataset)}, or point the report at an existing one.`,
        path,
        ...s,
      };
      return;
    }
    if (!ds.invalid) yield* checkAgainstDataset(graph, ds, body, at, subject, artifact);
    return;
  }
  const objectName = typeof body.objectName === 'string' ? body.objectName : typeof body.object === 'string' ? body.object : undefined;
  if (objectName === undefined) return;
  const key = typeof body.objectName === 'string' ? 'objectName' : 'object';
  const object = graph.objects.get(objectName);
  if (!object) {
    const path = pointer(...at, key);
    const { clause, candidates } = objectChoices(graph, objectName);
    const s = suggest(objectName, candidates, path);
    yield {
      code: 'dangling_object',
      artifact,
      ref: { type: 'object', name: objectName },
      message: `${subject} reads object ${q(objectName)}, which does not exist (${clause}).${didYouMeanText(s.suggestions)}`,
      fix: s.suggestions?.length ? `Use object ${q(s.suggestions[0])}.` : `Create object ${q(objectName)}, or point the report at an existing object.`,
      path,
      ...s,
    };
    return;
  }
  for (const slot of ['columns', 'rows', 'groupings', 'groupingsDown', 'groupingsAcross'] as const) {
    const list = body[slot];
    if (!Array.isArray(list)) continue;
    for (const [i, entry] of list.entries()) {
      const name = entryName(entry);
      if (name === undefined) continue;
      const path = pointer(...at, slot, i, ...(typeof entry === 'string' ? [] : [isRecord(entry) && typeof entry.field === 'string' ? 'field' : 'name']));
      const f = checkField(graph, object, name, { artifact, subject: () => subject, slot, path });
      if (f) yield f;
    }
  }
}

function* checkAgainstDataset(
  graph: Graph,
  ds: DatasetNode,
  body: Body,
  at: ReadonlyArray<string | number>,
  subject: string,
  artifact: { type: string; name: string },
): Generator<Finding> {
  const dims = [...ds.dimensions.keys()];
  const measures = [...ds.measures.keys()];
  const selectedDims: string[] = [];
  const selectedMeasures: string[] = [];
  const object = ds.object === undefined ? undefined : graph.objects.get(ds.object);
  // A tabular report lists records: its columns may be fields of the dataset's object as well.
  const recordColumns = body.type === 'tabular' && object !== undefined && !object.invalid ? object : undefined;
  const each = function* (slot: string, kind: 'dimension' | 'measure'): Generator<Finding> {
    const list = body[slot];
    if (!Array.isArray(list)) return;
    const declared = kind === 'dimension' ? dims : measures;
    for (const [i, entry] of list.entries()) {
      const name = entryName(entry);
      if (name === undefined) continue;
      (kind === 'dimension' ? selectedDims : selectedMeasures).push(name);
      if (declared.includes(name)) continue;
      if (slot === 'columns' && recordColumns && resolvePath(graph, recordColumns, name).ok) continue;
      const path = pointer(
        ...at,
        slot,
        i,
        ...(typeof entry === 'string' ? [] : ['field' in (entry as Body) ? 'field' : kind in (entry as Body) ? kind : 'name']),
      );
      const s = suggest(name, declared, path);
      yield {
        code: kind === 'dimension' ? 'unknown_dimension' : 'unknown_measure',
        artifact,
        ref: { type: 'dataset', name: ds.name, member: name },
        message: `${subject} ${kind === 'dimension' ? `groups its ${slot} by` : 'shows'} ${kind} ${q(name)}, which dataset ${q(ds.name)} does not declare (it has: ${listing(declared)}).${didYouMeanText(s.suggestions)}`,
        fix: s.suggestions?.length
          ? `Use ${kind} ${q(s.suggestions[0])}, or add ${kind} ${q(name)} to dataset ${q(ds.name)}.`
          : `Add ${kind} ${q(name)} to dataset ${q(ds.name)}, or use one it declares.`,
        path,
        ...s,
      };
    }
  };
  yield* each('rows', 'dimension');
  yield* each('columns', 'dimension');
  yield* each('values', 'measure');
  // A runtime filter names a dimension of the dataset or a field of its object.
  if (object && !object.invalid) {
    for (const leaf of filterLeaves(body.runtimeFilter, [...at, 'runtimeFilter'])) {
      if (ds.dimensions.has(leaf.field) || resolvePath(graph, object, leaf.field).ok) continue;
      const path = pointer(...leaf.at);
      const s = suggest(leaf.field, [...dims, ...allFieldNames(object)], undefined);
      yield {
        code: 'unknown_field',
        artifact,
        ref: { type: 'object', name: object.name, member: leaf.field },
        message: `${subject} filters on ${q(leaf.field)}, which is neither a dimension of dataset ${q(ds.name)} (${listing(dims)}) nor a field of object ${q(object.name)}.${didYouMeanText(s.suggestions)}`,
        fix: `Filter on a dimension of ${q(ds.name)} or a field of ${q(object.name)}.`,
        path,
        ...s,
      };
    }
  }
  const chart = body.chart;
  if (!isRecord(chart)) return;
  const axes: Array<[string, unknown, string[], 'dimension' | 'measure']> = [
    ['xAxis', chart.xAxis, selectedDims, 'dimension'],
    ['yAxis', chart.yAxis, selectedMeasures, 'measure'],
  ];
  for (const [axis, value, selected, kind] of axes) {
    const names = (Array.isArray(value) ? value : [value]).map((v) => entryName(v));
    for (const [i, name] of names.entries()) {
      if (name === undefined || selected.includes(name)) continue;
      yield {
        code: 'chart_field_unknown',
        artifact,
        ref: { type: 'dataset', name: ds.name, member: name },
        message: `${subject} plots ${q(name)} on its chart's ${axis}, but it is not a ${kind} the report selects (${listing(selected)}); the series renders empty.`,
        fix: `Point the ${axis} at one of: ${listing(selected)}, or add ${q(name)} to the report's ${kind === 'dimension' ? 'rows' : 'values'}.`,
        path: pointer(...at, 'chart', axis, ...(Array.isArray(value) ? [i] : [])),
      };
    }
  }
}

/**
 * Reports against their datasets: the dataset exists, rows/columns name its dimensions, values its
 * measures, a runtimeFilter names a dimension or a field of its object, and the chart plots what the
 * report selects — for a joined report, each block. A report on an object (`objectName`) names
 * fields the object has.
 */
export default defineRule({
  meta: {
    name: 'report-bindings-resolve',
    codes: ['dangling_dataset', 'dangling_object', 'unknown_dimension', 'unknown_measure', 'unknown_field', 'chart_field_unknown'],
    docs: 'Reports name a dataset or object that exists, and the dimensions, measures and fields it declares.',
  },
  run(graph, emit) {
    for (const report of graph.reports.values()) {
      if (report.invalid || !report.def) continue;
      for (const found of checkBody(graph, report, report.def, [], `Report ${q(report.name)}`)) emit(found);
      const blocks = report.def.blocks;
      if (!Array.isArray(blocks)) continue;
      for (const [i, block] of blocks.entries()) {
        if (!isRecord(block)) continue;
        const name = typeof block.name === 'string' ? block.name : `#${i}`;
        for (const found of checkBody(graph, report, block, ['blocks', i], `Block ${q(name)} of report ${q(report.name)}`)) emit(found);
      }
    }
  },
});
