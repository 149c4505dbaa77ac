/** A value of the CEL subset seeds use: an instant, a duration, or a scalar. */
export type CelValue = { readonly kind: 'instant'; readonly at: Date } | { readonly kind: 'duration'; readonly ms: number } | number | string | boolean;

/** Result of {@link evaluateCel}: a value, or why the source is outside the subset. */
export type CelResult = { readonly ok: true; readonly value: CelValue } | { readonly ok: false; readonly error: string };

/** Longest CEL source evaluated: seeds hold one-liners. */
export const MAX_CEL_SOURCE = 500;
/** Deepest parenthesis/call nesting evaluated. */
export const MAX_CEL_DEPTH = 32;

const DAY = 86_400_000;
const UNIT_MS: Readonly<Record<string, number>> = { d: DAY, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
const FUNCTIONS = ['daysAgo', 'daysFromNow', 'today', 'now', 'duration', 'timestamp', 'date'];
/** Functions some CEL dialects have but ObjectStack 17.4.0's does not: its seed loader drops a record using them, so bvl refuses them too. */
export const CEL_NOT_IN_OBJECTSTACK: Readonly<Record<string, string>> = {
  hoursAgo: 'daysAgo(n) (whole days before today, UTC midnight) or now()',
  hoursFromNow: 'daysFromNow(n) (whole days after today, UTC midnight) or now()',
};

type Token = { t: 'num'; v: number } | { t: 'str'; v: string } | { t: 'id'; v: string } | { t: 'op'; v: string };

/** Whether `value` is a CEL envelope `{dialect: 'cel', source}` as `cel\`…\`` serializes. */
export function isCelEnvelope(value: unknown): value is { dialect: 'cel'; source: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { dialect?: unknown }).dialect === 'cel' &&
    typeof (value as { source?: unknown }).source === 'string'
  );
}

/**
 * Evaluates the CEL subset the corpora's seeds use against the injected clock `now`:
 * `today()`, `now()`, `daysAgo(n)`, `daysFromNow(n)`,
 * `duration("6h20m")`, `timestamp("…")`, `date("YYYY-MM-DD")`, numbers, strings, parentheses and
 * `+`/`-`. `today()` and `daysAgo`/`daysFromNow` are UTC midnights, so `daysAgo(9) + duration("6h20m")`
 * is 06:20 nine days ago. Anything else is an error value naming what is unsupported. Pure.
 */
export function evaluateCel(source: string, now: Date): CelResult {
  if (source.length > MAX_CEL_SOURCE) return { ok: false, error: `CEL source is ${source.length} characters; at most ${MAX_CEL_SOURCE} are evaluated` };
  const tokens = tokenize(source);
  if (typeof tokens === 'string') return { ok: false, error: tokens };
  const p = new Parser(tokens, now);
  try {
    const value = p.expr(0);
    if (p.pos < tokens.length) return { ok: false, error: `unexpected "${show(tokens[p.pos]!)}" in CEL "${source}"` };
    return { ok: true, value };
  } catch (e) {
    if (e instanceof CelError) return { ok: false, error: `${e.message} in CEL "${source}"` };
    throw e;
  }
}

class CelError extends Error {}

const show = (tok: Token): string => (tok.t === 'str' ? JSON.stringify(tok.v) : String(tok.v));

function tokenize(src: string): Token[] | string {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) i++;
    else if (/[0-9]/.test(c)) {
      const m = /^\d+(\.\d+)?/.exec(src.slice(i));
      if (!m) return `bad number at ${i} in CEL "${src}"`;
      out.push({ t: 'num', v: Number(m[0]) });
      i += m[0].length;
    } else if (c === '"' || c === "'") {
      const end = src.indexOf(c, i + 1);
      if (end < 0) return `unterminated string in CEL "${src}"`;
      out.push({ t: 'str', v: src.slice(i + 1, end) });
      i = end + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      out.push({ t: 'id', v: m[0] });
      i += m[0].length;
    } else if ('+-(),'.includes(c)) {
      out.push({ t: 'op', v: c });
      i++;
    } else return `unsupported character "${c}" in CEL "${src}" (bvl evaluates ${FUNCTIONS.join(', ')} with + and -)`;
  }
  return out;
}

class Parser {
  pos = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly now: Date,
  ) {}

  expr(depth: number): CelValue {
    if (depth > MAX_CEL_DEPTH) throw new CelError(`nesting deeper than ${MAX_CEL_DEPTH}`);
    let left = this.term(depth);
    for (let tok = this.tokens[this.pos]; tok?.t === 'op' && (tok.v === '+' || tok.v === '-'); tok = this.tokens[this.pos]) {
      this.pos++;
      left = arith(left, tok.v, this.term(depth));
    }
    return left;
  }

  private term(depth: number): CelValue {
    const tok = this.tokens[this.pos++];
    if (!tok) throw new CelError('unexpected end');
    if (tok.t === 'num' || tok.t === 'str') return tok.v;
    if (tok.t === 'op' && tok.v === '-') {
      const v = this.term(depth);
      if (typeof v !== 'number') throw new CelError('unary minus on a non-number');
      return -v;
    }
    if (tok.t === 'op' && tok.v === '(') {
      const v = this.expr(depth + 1);
      this.expect(')');
      return v;
    }
    if (tok.t === 'id') {
      if (tok.v === 'true' || tok.v === 'false') return tok.v === 'true';
      this.expect('(');
      const args: CelValue[] = [];
      if (!this.peek(')')) {
        args.push(this.expr(depth + 1));
        while (this.peek(',')) {
          this.pos++;
          args.push(this.expr(depth + 1));
        }
      }
      this.expect(')');
      return call(tok.v, args, this.now);
    }
    throw new CelError(`unexpected "${show(tok)}"`);
  }

  private peek(op: string): boolean {
    const tok = this.tokens[this.pos];
    return tok?.t === 'op' && tok.v === op;
  }

  private expect(op: string): void {
    if (!this.peek(op)) throw new CelError(`expected "${op}"`);
    this.pos++;
  }
}

const midnight = (d: Date): number => Math.floor(d.getTime() / DAY) * DAY;
/** Farthest instant from 1970 a JavaScript Date holds (±100,000,000 days); past it a date is invalid. */
const MAX_INSTANT_MS = 8.64e15;
const instant = (ms: number): CelValue => {
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_INSTANT_MS) throw new CelError('the date is out of range');
  return { kind: 'instant', at: new Date(ms) };
};

function call(name: string, args: CelValue[], now: Date): CelValue {
  const num = (): number => {
    const [n] = args;
    if (args.length !== 1 || typeof n !== 'number') throw new CelError(`${name}() takes one number`);
    return n;
  };
  const str = (): string => {
    const [s] = args;
    if (args.length !== 1 || typeof s !== 'string') throw new CelError(`${name}() takes one string`);
    return s;
  };
  const none = () => {
    if (args.length !== 0) throw new CelError(`${name}() takes no arguments`);
  };
  switch (name) {
    case 'today':
      none();
      return instant(midnight(now));
    case 'now':
      none();
      return instant(now.getTime());
    case 'daysAgo':
      return instant(midnight(now) - num() * DAY);
    case 'daysFromNow':
      return instant(midnight(now) + num() * DAY);
    case 'duration':
      return { kind: 'duration', ms: parseDuration(str()) };
    case 'timestamp':
    case 'date': {
      const ms = Date.parse(str());
      if (Number.isNaN(ms)) throw new CelError(`${name}(${JSON.stringify(args[0])}) is not a valid ${name}`);
      return instant(ms);
    }
    default:
      if (Object.hasOwn(CEL_NOT_IN_OBJECTSTACK, name))
        throw new CelError(`${name}() is not a CEL function of ObjectStack 17.4.0 (its seed loader drops the record); use ${CEL_NOT_IN_OBJECTSTACK[name]}`);
      throw new CelError(`unsupported function ${name}() (bvl evaluates ${FUNCTIONS.join(', ')})`);
  }
}

function parseDuration(text: string): number {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|d|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) throw new CelError(`duration("${text}") is not like "6h20m"`);
  return parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]!]!, 0);
}

function arith(a: CelValue, op: string, b: CelValue): CelValue {
  const sign = op === '+' ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a + sign * b;
  if (typeof a === 'string' && typeof b === 'string' && op === '+') return a + b;
  if (typeof a === 'object' && typeof b === 'object') {
    if (a.kind === 'instant' && b.kind === 'duration') return instant(a.at.getTime() + sign * b.ms);
    if (a.kind === 'duration' && b.kind === 'instant' && op === '+') return instant(b.at.getTime() + a.ms);
    if (a.kind === 'duration' && b.kind === 'duration') return { kind: 'duration', ms: a.ms + sign * b.ms };
    if (a.kind === 'instant' && b.kind === 'instant' && op === '-') return { kind: 'duration', ms: a.at.getTime() - b.at.getTime() };
  }
  throw new CelError(`cannot apply "${op}" to these operands`);
}
