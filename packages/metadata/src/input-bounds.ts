import type { ArtifactSet } from './artifact.ts';

/**
 * What one input (a stack file, or a folder of artifact files) may hold. Past a limit bvl refuses
 * the input with one clear error before building anything from it, so a hostile or broken input
 * (a million empty objects in 4 MB) costs a scan, not minutes and gigabytes. Real apps are far
 * below every limit: ObjectStack's example apps hold 8 to 132 records and at most a few hundred
 * artifacts; bvl's own bench publishes 10,000 artifacts.
 */
export const INPUT_LIMITS = {
  /** Bytes of one stack file or artifact file. */
  fileBytes: 64 * 1024 * 1024,
  /** Bytes of all the files of a folder together. */
  folderBytes: 128 * 1024 * 1024,
  /** Artifacts (objects, views, dashboards, datasets, apps, seeds, reports, pages together). */
  artifacts: 20_000,
  /** Fields of all objects together. */
  fields: 100_000,
  /** Seed records of all seeds together. */
  records: 500_000,
  /** JSON objects and arrays, at any depth: what bounds the memory a parse takes. */
  containers: 1_000_000,
} as const;

/** What a scan of JSON text found, without parsing it. */
export interface JsonShape {
  /** Objects and arrays at any depth. */
  readonly containers: number;
  /** Values inside an array at depth 1 (a file holding a list of artifacts). */
  readonly listItems: number;
  /** Values inside the arrays of a top-level object (a stack's artifacts: `{"objects": [ … ]}`). */
  readonly stackItems: number;
}

const WS = new Set([' ', '\t', '\n', '\r']);

/**
 * Counts containers and top-level list items in JSON text in one pass, allocating nothing per
 * value (a 64 MB file scans in well under a second). Text that is not JSON is counted as far as it
 * goes (the parser reports it afterwards). Pure.
 */
export function scanJson(text: string): JsonShape {
  // Container kinds of the open path: 'o' object, 'a' array.
  const path: string[] = [];
  let containers = 0;
  let listItems = 0;
  let stackItems = 0;
  let expectItem = false; // just after '[' or ',' inside an array
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (WS.has(c)) continue;
    if (c === '"') {
      // Skip the string, escapes included.
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    }
    if (expectItem && c !== ']') {
      if (path.length === 1 && path[0] === 'a') listItems++;
      if (path.length === 2 && path[0] === 'o' && path[1] === 'a') stackItems++;
    }
    expectItem = false;
    if (c === '{' || c === '[') {
      containers++;
      path.push(c === '{' ? 'o' : 'a');
      expectItem = c === '[';
    } else if (c === '}' || c === ']') path.pop();
    else if (c === ',' && path[path.length - 1] === 'a') expectItem = true;
  }
  return { containers, listItems, stackItems };
}

const n = (v: number): string => v.toLocaleString('en-US');

/** Why JSON text of `shape` is past a limit (for a stack file when `stack`, else one artifact file), or undefined. */
export function shapeProblem(shape: JsonShape, stack: boolean): string | undefined {
  if (stack && shape.stackItems > INPUT_LIMITS.artifacts)
    return `holds ${n(shape.stackItems)} artifacts; bvl reads at most ${n(INPUT_LIMITS.artifacts)} per input (objects, views, dashboards, datasets, apps, seeds, reports and pages together). Split the app into packages`;
  if (shape.containers > INPUT_LIMITS.containers)
    return `holds more than ${n(INPUT_LIMITS.containers)} JSON objects and arrays; bvl reads at most that many per input. No app's metadata is that large: is this the right file?`;
  return undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why a collected input is past the artifact, field or record limit, or undefined. */
export function setProblem(set: ArtifactSet): string | undefined {
  if (set.artifacts.length > INPUT_LIMITS.artifacts)
    return `holds ${n(set.artifacts.length)} artifacts; bvl reads at most ${n(INPUT_LIMITS.artifacts)} per input. Split the app into packages`;
  let fields = 0;
  let records = 0;
  for (const a of set.artifacts) {
    if (!isRecord(a.body)) continue;
    if (a.type === 'object' && isRecord(a.body.fields)) fields += Object.keys(a.body.fields).length;
    if (a.type === 'seed') {
      const list = a.body.records ?? a.body.data ?? a.body.rows;
      if (Array.isArray(list)) records += list.length;
    }
  }
  if (fields > INPUT_LIMITS.fields) return `declares ${n(fields)} fields; bvl reads at most ${n(INPUT_LIMITS.fields)} per input. Split the app into packages`;
  if (records > INPUT_LIMITS.records)
    return `holds ${n(records)} seed records; bvl reads at most ${n(INPUT_LIMITS.records)} per input. Seed a sample, and load bulk data another way`;
  return undefined;
}
