import type { ArtifactSet } from './artifact.ts';
import { storedRecordsOf } from './stored-records.ts';

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
  /**
   * Object members written, at any depth (the `:` outside strings). When the parsed value holds
   * fewer own keys ({@link countKeys}), some object repeats a key.
   */
  readonly keys: number;
}

// Character codes the scan compares (charCodeAt: no one-character strings are made).
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Counts containers, members and top-level list items in JSON text in one pass, allocating
 * nothing per value (a 4 MB stack scans in a few milliseconds). Text that is not JSON is counted
 * as far as it goes (the parser reports it afterwards). Pure.
 */
export function scanJson(text: string): JsonShape {
  // Whether each container of the open path is an array (index = depth - 1).
  const isArray: boolean[] = [];
  let depth = 0;
  let containers = 0;
  let listItems = 0;
  let stackItems = 0;
  let keys = 0;
  let expectItem = false; // just after '[' or ',' inside an array
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === SPACE || c === LF || c === CR || c === TAB) continue;
    if (c === QUOTE) {
      // Skip the string to its closing quote (the native search), past escaped quotes: a quote
      // closes the string when an even number of backslashes precede it.
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && text.charCodeAt(end - 1) === BACKSLASH) {
        let backslashes = 1;
        while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
        if (backslashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      i = end === -1 ? length : end;
    }
    if (expectItem && c !== CLOSE_ARRAY) {
      if (depth === 1 && isArray[0]) listItems++;
      if (depth === 2 && !isArray[0] && isArray[1]) stackItems++;
    }
    expectItem = false;
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      containers++;
      isArray[depth++] = c === OPEN_ARRAY;
      expectItem = c === OPEN_ARRAY;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth > 0) depth--;
    } else if (c === COMMA) {
      if (depth > 0 && isArray[depth - 1]) expectItem = true;
    } else if (c === COLON) keys++;
  }
  return { containers, listItems, stackItems, keys };
}

/**
 * Own keys of every object in a parsed JSON value. Against {@link JsonShape.keys} of its text:
 * equal when no object of the text repeats a key (JSON.parse keeps one of each), so the costlier
 * search for repeats ({@link findDuplicateKeys}) runs only when the counts differ. Pure.
 */
export function countKeys(value: unknown): number {
  let n = 0;
  // Iterative: JSON.parse takes any nesting, the call stack would not.
  const open: object[] = [];
  if (typeof value === 'object' && value !== null) open.push(value);
  while (open.length > 0) {
    const v = open.pop()!;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const child: unknown = v[i];
        if (typeof child === 'object' && child !== null) open.push(child);
      }
      continue;
    }
    // Object.keys, not for…in: a record of 100,000 fields enumerates several times faster.
    const keys = Object.keys(v);
    n += keys.length;
    for (let i = 0; i < keys.length; i++) {
      const child: unknown = (v as Record<string, unknown>)[keys[i]!];
      if (typeof child === 'object' && child !== null) open.push(child);
    }
  }
  return n;
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
      else records += storedRecordsOf(list)?.count ?? 0;
    }
  }
  if (fields > INPUT_LIMITS.fields) return `declares ${n(fields)} fields; bvl reads at most ${n(INPUT_LIMITS.fields)} per input. Split the app into packages`;
  if (records > INPUT_LIMITS.records)
    return `holds ${n(records)} seed records; bvl reads at most ${n(INPUT_LIMITS.records)} per input. Seed a sample, and load bulk data another way`;
  return undefined;
}
