import { type FieldDef, type Graph, type ObjectNode, pointer } from '@bvl/metadata';
import { checkField } from './check-field.ts';
import type { Finding } from './define-rule.ts';
import { q } from './describe-names.ts';
import { type Expr, fieldReads, lineColumn, MAX_EXPRESSION_LENGTH, parseExpression } from './parse-expression.ts';
import { resolvePath } from './resolve-path.ts';

/** An expression as metadata holds it: its source, its dialect, and the pointer to the source. */
export interface ExpressionSource {
  readonly source: string;
  readonly dialect: 'cel' | 'formula';
  readonly path: string;
}

/**
 * Reads an expression value: `{dialect: 'cel', source}` (dialect omitted: CEL), or a plain string —
 * CEL when it reads `record.…`, else the formula language (bareword fields). Another dialect, or
 * no source, is not judged (undefined).
 */
export function expressionAt(value: unknown, path: string): ExpressionSource | undefined {
  if (typeof value === 'string') return { source: value, dialect: /\brecord\s*\./.test(value) ? 'cel' : 'formula', path };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as { dialect?: unknown; source?: unknown };
  if (typeof v.source !== 'string' || (v.dialect !== undefined && v.dialect !== 'cel')) return undefined;
  return { source: v.source, dialect: 'cel', path: `${path}/source` };
}

/** What a value is, as far as an expression's operators care. */
export type ValueKind = 'number' | 'text' | 'bool' | 'date' | 'unknown';

const KIND_OF_TYPE: Readonly<Record<string, ValueKind>> = {
  number: 'number',
  currency: 'number',
  percent: 'number',
  rating: 'number',
  slider: 'number',
  progress: 'number',
  summary: 'number',
  date: 'date',
  datetime: 'date',
  time: 'date',
  boolean: 'bool',
  toggle: 'bool',
  text: 'text',
  textarea: 'text',
  email: 'text',
  url: 'text',
  phone: 'text',
  markdown: 'text',
  html: 'text',
  richtext: 'text',
  select: 'text',
  radio: 'text',
  autonumber: 'text',
  color: 'text',
  code: 'text',
};

/** The kind a declared formula result type names (`returnType` / `result_type`), if any. */
export function declaredResultKind(def: FieldDef): ValueKind | undefined {
  const d = (def as Record<string, unknown>).returnType ?? (def as Record<string, unknown>).result_type;
  return typeof d === 'string' ? KIND_OF_TYPE[d] : undefined;
}

const FUNCTION_KINDS: Readonly<Record<string, ValueKind>> = {
  and: 'bool',
  or: 'bool',
  not: 'bool',
  isblank: 'bool',
  isnull: 'bool',
  contains: 'bool',
  startswith: 'bool',
  endswith: 'bool',
  matches: 'bool',
  text: 'text',
  upper: 'text',
  lower: 'text',
  concat: 'text',
  concatenate: 'text',
  string: 'text',
  len: 'number',
  size: 'number',
  sum: 'number',
  average: 'number',
  round: 'number',
  ceiling: 'number',
  floor: 'number',
  abs: 'number',
  year: 'number',
  month: 'number',
  day: 'number',
  daysbetween: 'number',
  int: 'number',
  double: 'number',
  today: 'date',
  now: 'date',
  adddays: 'date',
  timestamp: 'date',
};

const ARITHMETIC = new Set(['-', '*', '/', '%']);
const LOGICAL = new Set(['||', '&&', '==', '!=', '=', '<>', '<', '<=', '>', '>=', 'in']);

/** Where an expression sits and who it belongs to, for messages. */
export interface ExpressionContext {
  readonly artifact: { readonly type: string; readonly name: string };
  /** "Formula field "x" of object "o"", "Validation rule "r" of object "o"", … */
  readonly subject: string;
  /** The object `record` is. */
  readonly object: ObjectNode;
  /** A formula field's own name: reading itself is a cycle, not a field to resolve. */
  readonly self?: string | undefined;
}

/**
 * Parses one expression and checks it against its object: `formula_parse_error` (with line and
 * column), `unknown_field` for every field path it reads that does not resolve (lookup paths
 * followed), and `field_type_mismatch` where arithmetic takes a text or yes/no operand. Returns
 * the findings and the expression's inferred result kind.
 */
export function checkExpression(
  graph: Graph,
  at: ExpressionSource,
  ctx: ExpressionContext,
  kindOfFormula: (o: ObjectNode, f: string) => ValueKind,
): { findings: Finding[]; kind: ValueKind } {
  if (at.source.length > MAX_EXPRESSION_LENGTH) return { findings: [], kind: 'unknown' };
  const parsed = parseExpression(at.source);
  if (!parsed.ok) {
    return {
      findings: [
        {
          code: 'formula_parse_error',
          artifact: ctx.artifact,
          ref: { type: 'object', name: ctx.object.name, ...(ctx.self ? { member: ctx.self } : {}) },
          message: `${ctx.subject} does not parse at line ${parsed.line}, column ${parsed.column}: ${parsed.message} (in ${q(at.source)}).`,
          fix: `Correct the expression at line ${parsed.line}, column ${parsed.column}${at.dialect === 'cel' ? ' (CEL: fields are read as record.<field>)' : ''}.`,
          path: at.path,
        },
      ],
      kind: 'unknown',
    };
  }
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const read of fieldReads(parsed.expr, at.dialect)) {
    // A field read twice is one finding (its fingerprint would repeat).
    if (seen.has(read.path)) continue;
    seen.add(read.path);
    const { line, column } = lineColumn(at.source, read.at);
    const f = checkField(graph, ctx.object, read.path, {
      artifact: ctx.artifact,
      subject: () => ctx.subject,
      slot: `expression (line ${line}, column ${column})`,
      path: at.path,
      patchable: false,
    });
    if (f) findings.push(f);
  }
  const kindOf = (e: Expr): ValueKind => {
    const path = pathOf(e, at.dialect);
    if (path !== undefined) {
      const r = resolvePath(graph, ctx.object, path);
      if (!r.ok) return 'unknown';
      if (r.field.def.type === 'formula') return r.object === ctx.object && r.field.name === ctx.self ? 'unknown' : kindOfFormula(r.object, r.field.name);
      return KIND_OF_TYPE[r.field.def.type] ?? 'unknown';
    }
    switch (e.kind) {
      case 'literal':
        return e.type === 'number' ? 'number' : e.type === 'string' ? 'text' : e.type === 'bool' ? 'bool' : 'unknown';
      case 'unary':
        return e.op === '!' ? 'bool' : kindOf(e.arg) === 'number' ? 'number' : 'unknown';
      case 'binary': {
        if (LOGICAL.has(e.op)) return 'bool';
        const l = kindOf(e.left);
        const r = kindOf(e.right);
        if (e.op === '+')
          return l === 'text' || r === 'text' ? 'text' : l === 'number' && r === 'number' ? 'number' : l === 'date' || r === 'date' ? 'date' : 'unknown';
        if (e.op === '-') return l === 'date' && r === 'number' ? 'date' : l === 'number' && r === 'number' ? 'number' : 'unknown';
        return 'number';
      }
      case 'conditional': {
        const a = kindOf(e.then);
        return a === kindOf(e.otherwise) ? a : 'unknown';
      }
      case 'call': {
        const name = e.name.toLowerCase();
        if (name === 'if' && e.args.length === 3) {
          const a = kindOf(e.args[1]!);
          return a === kindOf(e.args[2]!) ? a : 'unknown';
        }
        return FUNCTION_KINDS[name] ?? 'unknown';
      }
      default:
        return 'unknown';
    }
  };
  // Arithmetic on text or yes/no: the formula evaluates to nothing useful (or fails) on every record.
  const visit = (e: Expr): void => {
    if (e.kind === 'binary' && ARITHMETIC.has(e.op)) {
      for (const side of [e.left, e.right]) {
        const k = kindOf(side);
        if (k !== 'text' && k !== 'bool') continue;
        const path = pathOf(side, at.dialect);
        const { line, column } = lineColumn(at.source, side.at);
        const what = path !== undefined ? `field ${q(path)}` : 'a value';
        findings.push({
          code: 'field_type_mismatch',
          artifact: ctx.artifact,
          ref: { type: 'object', name: ctx.object.name, ...(path !== undefined ? { member: path } : {}) },
          message: `${ctx.subject} applies "${e.op}" to ${what} (line ${line}, column ${column}), which is ${k === 'text' ? 'text' : 'a yes/no value'}, not a number: the result is not a number on any record.`,
          fix: `Use a number field in the arithmetic${k === 'text' ? ', or convert the text explicitly' : ''}.`,
          path: at.path,
        });
      }
    }
    for (const child of childrenOf(e)) visit(child);
  };
  visit(parsed.expr);
  return { findings, kind: kindOf(parsed.expr) };
}

/** The field path a node reads (`record.a.b` in CEL, `a.b` in the formula language), or undefined. */
function pathOf(e: Expr, dialect: 'cel' | 'formula'): string | undefined {
  const parts: string[] = [];
  let cur: Expr = e;
  while (cur.kind === 'select') {
    parts.unshift(cur.name);
    cur = cur.target;
  }
  if (cur.kind !== 'ident') return undefined;
  if (dialect === 'formula') return [cur.name, ...parts].join('.');
  return cur.name === 'record' && parts.length > 0 ? parts.join('.') : undefined;
}

function childrenOf(e: Expr): Expr[] {
  switch (e.kind) {
    case 'literal':
    case 'ident':
      return [];
    case 'select':
      return [e.target];
    case 'call':
      return [...(e.target ? [e.target] : []), ...e.args];
    case 'index':
      return [e.target, e.index];
    case 'unary':
      return [e.arg];
    case 'binary':
      return [e.left, e.right];
    case 'conditional':
      return [e.test, e.then, e.otherwise];
    case 'list':
      return [...e.items];
    case 'map':
      return e.entries.flat();
  }
}

/** Pointer to a field member of an object: `/fields/<name>/<member…>`. */
export const fieldPointer = (field: string, ...rest: Array<string | number>): string => pointer('fields', field, ...rest);
