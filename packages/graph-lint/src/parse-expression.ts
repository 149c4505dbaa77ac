/**
 * A parser for the expressions ObjectStack metadata holds: CEL (`{dialect: 'cel', source}` — formula
 * fields, validation and sharing-rule conditions, visibleWhen/…) and the older formula language of
 * plain-string expressions (`IF(amount > 0, …)`, bareword fields, `=`/`<>`, `TRUE`/`NULL`). One
 * tokenizer and one precedence-climbing parser read both (the formula operators are a subset of
 * CEL's plus `=` and `<>`); the AST keeps every node's offset so a finding can name its position.
 * Pure; bounded in length and nesting; never throws.
 */

/** Longest expression parsed; a longer one is not judged. */
export const MAX_EXPRESSION_LENGTH = 10_000;
/** Deepest nesting parsed (brackets, operators); deeper is a parse error, never a stack overflow. */
export const MAX_EXPRESSION_DEPTH = 64;

/** An expression node; `at` is the offset of its first character in the source. */
export type Expr =
  | { readonly kind: 'literal'; readonly type: 'number' | 'string' | 'bool' | 'null' | 'bytes'; readonly at: number }
  | { readonly kind: 'ident'; readonly name: string; readonly at: number }
  | { readonly kind: 'select'; readonly target: Expr; readonly name: string; readonly at: number }
  | { readonly kind: 'call'; readonly target?: Expr | undefined; readonly name: string; readonly args: readonly Expr[]; readonly at: number }
  | { readonly kind: 'index'; readonly target: Expr; readonly index: Expr; readonly at: number }
  | { readonly kind: 'unary'; readonly op: string; readonly arg: Expr; readonly at: number }
  | { readonly kind: 'binary'; readonly op: string; readonly left: Expr; readonly right: Expr; readonly at: number }
  | { readonly kind: 'conditional'; readonly test: Expr; readonly then: Expr; readonly otherwise: Expr; readonly at: number }
  | { readonly kind: 'list'; readonly items: readonly Expr[]; readonly at: number }
  | { readonly kind: 'map'; readonly entries: ReadonlyArray<readonly [Expr, Expr]>; readonly at: number };

/** The parse: the tree, or why not and where (offset, 1-based line and column). */
export type ParseResult =
  | { readonly ok: true; readonly expr: Expr }
  | { readonly ok: false; readonly message: string; readonly offset: number; readonly line: number; readonly column: number };

type Token =
  | { kind: 'number' | 'string' | 'bytes'; at: number; text: string }
  | { kind: 'ident'; at: number; text: string }
  | { kind: 'op'; at: number; text: string }
  | { kind: 'end'; at: number; text: '' };

class ParseError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const OPERATORS = ['||', '&&', '==', '!=', '<=', '>=', '<>', '<', '>', '=', '+', '-', '*', '/', '%', '!', '?', ':', '.', ',', '(', ')', '[', ']', '{', '}'];

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    const start = i;
    const prefix = /^[rRbB]{1,2}(?=['"])/.exec(src.slice(i, i + 3))?.[0] ?? '';
    if (c === '"' || c === "'" || prefix) {
      i += prefix.length;
      const quote = src[i]!;
      const triple = src.startsWith(quote.repeat(3), i);
      const close = triple ? quote.repeat(3) : quote;
      const raw = /r/i.test(prefix);
      i += close.length;
      for (;;) {
        if (i >= src.length || (!triple && src[i] === '\n')) throw new ParseError(`unterminated string (opened with ${close})`, start);
        if (!raw && src[i] === '\\') i += 2;
        else if (src.startsWith(close, i)) {
          i += close.length;
          break;
        } else i++;
      }
      out.push({ kind: /b/i.test(prefix) ? 'bytes' : 'string', at: start, text: src.slice(start, i) });
      continue;
    }
    const num = /^(?:0x[0-9a-fA-F]+u?|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?u?)/.exec(src.slice(i));
    if (num && /[\d.]/.test(c) && (c !== '.' || /\d/.test(src[i + 1] ?? ''))) {
      i += num[0].length;
      out.push({ kind: 'number', at: start, text: num[0] });
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (id) {
      i += id[0].length;
      out.push({ kind: 'ident', at: start, text: id[0] });
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (!op) throw new ParseError(`unexpected character ${JSON.stringify(c)}`, start);
    i += op.length;
    out.push({ kind: 'op', at: start, text: op });
  }
  out.push({ kind: 'end', at: src.length, text: '' });
  return out;
}

/** Binary operators by precedence, loosest first. `in` is a relation (CEL). */
const LEVELS: readonly (readonly string[])[] = [['||'], ['&&'], ['==', '!=', '=', '<>', '<', '<=', '>', '>=', 'in'], ['+', '-'], ['*', '/', '%']];
const LITERAL_WORDS: Readonly<Record<string, 'bool' | 'null'>> = { true: 'bool', false: 'bool', null: 'null' };

class Parser {
  private pos = 0;
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  private get peek(): Token {
    return this.tokens[this.pos]!;
  }
  private next(): Token {
    return this.tokens[this.pos++]!;
  }
  private isOp(text: string): boolean {
    return this.peek.kind === 'op' && this.peek.text === text;
  }
  private expect(text: string): void {
    if (!this.isOp(text)) throw this.unexpected(`expected "${text}"`);
    this.pos++;
  }
  private unexpected(want: string): ParseError {
    const t = this.peek;
    return new ParseError(`${want}, found ${t.kind === 'end' ? 'the end of the expression' : JSON.stringify(t.text)}`, t.at);
  }
  private enter(at: number): void {
    if (++this.depth > MAX_EXPRESSION_DEPTH) throw new ParseError(`nested more than ${MAX_EXPRESSION_DEPTH} levels deep`, at);
  }

  whole(): Expr {
    const e = this.expr();
    if (this.peek.kind !== 'end') throw this.unexpected('expected an operator or the end of the expression');
    return e;
  }

  expr(): Expr {
    this.enter(this.peek.at);
    const test = this.binary(0);
    let result = test;
    if (this.isOp('?')) {
      this.pos++;
      const then = this.binary(0);
      this.expect(':');
      const otherwise = this.expr();
      result = { kind: 'conditional', test, then, otherwise, at: test.at };
    }
    this.depth--;
    return result;
  }

  private binary(level: number): Expr {
    if (level >= LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const t = this.peek;
      const op = t.kind === 'op' || (t.kind === 'ident' && t.text === 'in') ? t.text : undefined;
      if (op === undefined || !LEVELS[level]!.includes(op)) return left;
      this.pos++;
      this.enter(t.at);
      const right = this.binary(level + 1);
      this.depth--;
      left = { kind: 'binary', op, left, right, at: left.at };
    }
  }

  private unary(): Expr {
    const t = this.peek;
    if (t.kind === 'op' && (t.text === '!' || t.text === '-' || t.text === '+')) {
      this.pos++;
      this.enter(t.at);
      const arg = this.unary();
      this.depth--;
      return { kind: 'unary', op: t.text, arg, at: t.at };
    }
    return this.member();
  }

  private member(): Expr {
    let e = this.primary();
    for (;;) {
      if (this.isOp('.')) {
        this.pos++;
        const name = this.next();
        if (name.kind !== 'ident') {
          this.pos--;
          throw this.unexpected('expected a field or method name after "."');
        }
        if (this.isOp('(')) e = { kind: 'call', target: e, name: name.text, args: this.args(')'), at: e.at };
        else e = { kind: 'select', target: e, name: name.text, at: e.at };
      } else if (this.isOp('[')) {
        this.pos++;
        const index = this.expr();
        this.expect(']');
        e = { kind: 'index', target: e, index, at: e.at };
      } else return e;
    }
  }

  /** After the opening bracket: comma-separated expressions up to `close` (a trailing comma allowed). */
  private args(close: ')' | ']'): Expr[] {
    this.pos++;
    const out: Expr[] = [];
    while (!this.isOp(close)) {
      out.push(this.expr());
      if (!this.isOp(',')) break;
      this.pos++;
    }
    this.expect(close);
    return out;
  }

  private primary(): Expr {
    const t = this.peek;
    if (t.kind === 'number' || t.kind === 'string' || t.kind === 'bytes') {
      this.pos++;
      return { kind: 'literal', type: t.kind, at: t.at };
    }
    if (t.kind === 'ident') {
      this.pos++;
      const word = LITERAL_WORDS[t.text.toLowerCase()];
      if (word && !this.isOp('(')) return { kind: 'literal', type: word, at: t.at };
      if (this.isOp('(')) return { kind: 'call', name: t.text, args: this.args(')'), at: t.at };
      return { kind: 'ident', name: t.text, at: t.at };
    }
    if (t.kind === 'op' && t.text === '.') {
      // A leading dot names a root identifier (CEL `.record.x`).
      this.pos++;
      return this.primary();
    }
    if (t.kind === 'op' && t.text === '(') {
      this.pos++;
      const e = this.expr();
      this.expect(')');
      return e;
    }
    if (t.kind === 'op' && t.text === '[') return { kind: 'list', items: this.args(']'), at: t.at };
    if (t.kind === 'op' && t.text === '{') {
      this.pos++;
      const entries: Array<readonly [Expr, Expr]> = [];
      while (!this.isOp('}')) {
        const k = this.expr();
        this.expect(':');
        entries.push([k, this.expr()]);
        if (!this.isOp(',')) break;
        this.pos++;
      }
      this.expect('}');
      return { kind: 'map', entries, at: t.at };
    }
    throw this.unexpected('expected a value, a field or "("');
  }
}

/** 1-based line and column of `offset` in `src`. */
export function lineColumn(src: string, offset: number): { line: number; column: number } {
  const before = src.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** Parses one expression. Never throws: a problem is `{ok: false}` with its position. */
export function parseExpression(src: string): ParseResult {
  try {
    if (src.trim() === '') throw new ParseError('the expression is empty', 0);
    return { ok: true, expr: new Parser(tokenize(src)).whole() };
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    return { ok: false, message: e.message, offset: e.offset, ...lineColumn(src, e.offset) };
  }
}

/** A field path an expression reads, and where. */
export interface FieldRead {
  readonly path: string;
  readonly at: number;
}

/**
 * The dotted field paths an expression reads. CEL reads fields through `record.` (other roots —
 * `parent`, `previous`, `user` — are context the verifier does not judge); the formula language
 * reads bare names. A method call ends a path (`record.name.size()` reads `name`).
 */
export function fieldReads(expr: Expr, dialect: 'cel' | 'formula'): FieldRead[] {
  const out: FieldRead[] = [];
  const chain = (e: Expr): { root: string; rest: string[]; at: number } | undefined => {
    if (e.kind === 'ident') return { root: e.name, rest: [], at: e.at };
    if (e.kind === 'select') {
      const c = chain(e.target);
      return c && { ...c, rest: [...c.rest, e.name] };
    }
    return undefined;
  };
  const visit = (e: Expr): void => {
    if (e.kind === 'ident' || e.kind === 'select') {
      const c = chain(e);
      if (c) {
        if (dialect === 'cel' && c.root === 'record' && c.rest.length > 0) out.push({ path: c.rest.join('.'), at: c.at });
        if (dialect === 'formula') out.push({ path: [c.root, ...c.rest].join('.'), at: c.at });
        return;
      }
      if (e.kind === 'select') visit(e.target);
      return;
    }
    switch (e.kind) {
      case 'literal':
        return;
      case 'call':
        if (e.target) visit(e.target);
        for (const a of e.args) visit(a);
        return;
      case 'index':
        visit(e.target);
        visit(e.index);
        return;
      case 'unary':
        visit(e.arg);
        return;
      case 'binary':
        visit(e.left);
        visit(e.right);
        return;
      case 'conditional':
        visit(e.test);
        visit(e.then);
        visit(e.otherwise);
        return;
      case 'list':
        for (const i of e.items) visit(i);
        return;
      case 'map':
        for (const [k, v] of e.entries) {
          visit(k);
          visit(v);
        }
        return;
    }
  };
  visit(expr);
  return out;
}
