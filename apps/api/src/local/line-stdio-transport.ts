import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/** Longest JSON-RPC line `bvl mcp` reads: the HTTP API's body limit (a tool's arguments are paths and flags). */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

/** What the transport reports on stderr: one line per refused input, never its content. */
export type TransportLog = (message: string) => void;

// A request's id when it is the first key of the object (`{"id": 7, …` or `{"jsonrpc":"2.0","id":…`)
// or its last one (`…,"id": 7}` as the SDK writes it): only there is it surely the top level's.
const ID_VALUE = String.raw`(-?\d{1,15}|"[^"\\]{0,200}")`;
const HEAD_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}`);
const TAIL_ID = new RegExp(String.raw`"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);
const EDGE = 512;

const idOf = (head: string, tail: string): RequestId | undefined => {
  const m = HEAD_ID.exec(head) ?? TAIL_ID.exec(tail);
  return m ? (JSON.parse(m[1]!) as RequestId) : undefined;
};

/**
 * MCP over stdio, one JSON-RPC message per line, with bounds the SDK's transport lacks: a line
 * longer than `maxLineBytes` is skipped to its end and answered with an Invalid Request error (the
 * request's id when it can be seen without parsing the line) instead of closing the transport, and
 * a line that is not JSON gets a Parse error reply (-32700), one that is not a JSON-RPC message an
 * Invalid Request (-32600). Each refusal is logged; the line's content is never repeated.
 */
export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The oversized line being skipped: its size so far, its first and last bytes (for the id). */
  private skipping: { bytes: number; head: Buffer; tail: Buffer } | undefined;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly options: { readonly maxLineBytes?: number; readonly log?: TransportLog } = {},
  ) {}

  private get max() {
    return this.options.maxLineBytes ?? MAX_LINE_BYTES;
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onInputError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    const text = `${JSON.stringify(message)}\n`;
    await new Promise<void>((done) => {
      if (this.output.write(text)) done();
      else this.output.once('drain', done);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onInputError);
    this.pending = [];
    this.skipping = undefined;
    this.onclose?.();
  }

  private readonly onInputError = (e: Error) => this.onerror?.(e);

  private readonly onEnd = () => {
    // A last line without its newline is still a message.
    if (this.skipping) this.refuseOversized();
    else if (this.pendingBytes > 0) this.takeLine(Buffer.concat(this.pending));
    void this.close();
  };

  private readonly onData = (data: Buffer | string) => {
    let chunk = typeof data === 'string' ? Buffer.from(data) : data;
    while (chunk.length > 0 && !this.closed) {
      const nl = chunk.indexOf(0x0a);
      const piece = nl === -1 ? chunk : chunk.subarray(0, nl);
      if (this.skipping) {
        this.skipping.bytes += piece.length;
        this.skipping.tail = Buffer.concat([this.skipping.tail, piece]).subarray(-EDGE);
      } else if (this.pendingBytes + piece.length > this.max) {
        const line = Buffer.concat([...this.pending, piece]);
        this.skipping = { bytes: line.length, head: line.subarray(0, EDGE), tail: line.subarray(-EDGE) };
        this.pending = [];
        this.pendingBytes = 0;
      } else {
        this.pending.push(piece);
        this.pendingBytes += piece.length;
      }
      if (nl === -1) return;
      chunk = chunk.subarray(nl + 1);
      if (this.skipping) this.refuseOversized();
      else {
        const line = Buffer.concat(this.pending);
        this.pending = [];
        this.pendingBytes = 0;
        this.takeLine(line);
      }
    }
  };

  private refuseOversized() {
    const { bytes, head, tail } = this.skipping!;
    this.skipping = undefined;
    const id = idOf(head.toString('utf8'), tail.toString('utf8'));
    this.log(`refused a JSON-RPC line of ${bytes} bytes: over the ${this.max}-byte limit${id === undefined ? '' : ` (request id ${JSON.stringify(id)})`}`);
    this.reply(id, ErrorCode.InvalidRequest, `the message is ${bytes} bytes, over bvl mcp's ${this.max}-byte limit of one line; send a smaller request`, {
      bytes,
      limit: this.max,
    });
  }

  private takeLine(line: Buffer) {
    const text = line.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.log(`refused a line of ${line.length} bytes that is not JSON`);
      this.reply(undefined, ErrorCode.ParseError, 'Parse error: the line is not JSON; send one JSON-RPC message per line');
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(parsed);
    if (!message.success) {
      const id = (parsed as { id?: unknown } | null)?.id;
      this.log(`refused a line of ${line.length} bytes that is not a JSON-RPC 2.0 message`);
      this.reply(
        typeof id === 'string' || typeof id === 'number' ? id : undefined,
        ErrorCode.InvalidRequest,
        'Invalid Request: the line is JSON but not a JSON-RPC 2.0 message (one object with jsonrpc "2.0" and a method, or a response)',
      );
      return;
    }
    this.onmessage?.(message.data);
  }

  private reply(id: RequestId | undefined, code: number, message: string, data?: object) {
    // MCP's error response carries the id when it is known and leaves it out when it is not.
    void this.send({ jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), error: { code, message, ...(data ? { data } : {}) } } as JSONRPCMessage);
  }

  private log(message: string) {
    this.options.log?.(`bvl mcp: ${message}`);
  }
}
