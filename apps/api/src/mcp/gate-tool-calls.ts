import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJSONRPCErrorResponse, isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { ClientGoneError } from '../tenant-limiter.ts';
import { ApiError } from '../to-error-response.ts';

/** The JSON-RPC error code a refused tool call gets (implementation-defined server error). */
export const TOO_MANY_REQUESTS_RPC = -32000;

/** What a gate tells its owner: a call was refused (too many) or left the queue (the client went away). */
export interface GateEvents {
  refused(code: 'too_many_requests' | 'client_closed'): void;
}

/**
 * Puts every `tools/call` of an MCP transport behind `acquire` (the tenant's turn): a batch counts
 * as its calls, each waiting for a turn of its own, so a batch of 100 runs as 100 requests would.
 * A call refused a turn is answered with a JSON-RPC error (-32000, `data: {code:
 * "too_many_requests", retryAfter}`) without reaching the server; the turn ends when the call's
 * answer is sent. Other messages (initialize, tools/list, notifications) pass as they come.
 * Install after `server.connect(transport)`; call what it returns once the transport is done (it
 * ends any turn whose answer was never sent).
 */
export function gateToolCalls(transport: Transport, acquire: () => Promise<() => void>, events: GateEvents): () => void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('gateToolCalls: connect the server to the transport first');
  const send = transport.send.bind(transport);
  const turns = new Map<RequestId, () => void>();
  transport.send = async (message: JSONRPCMessage, options) => {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      const end = message.id !== undefined ? turns.get(message.id) : undefined;
      if (end && message.id !== undefined) {
        turns.delete(message.id);
        end();
      }
    }
    return send(message, options);
  };
  transport.onmessage = (message, extra) => {
    if (!isJSONRPCRequest(message) || message.method !== 'tools/call') return deliver(message, extra);
    acquire().then(
      (end) => {
        turns.set(message.id, end);
        deliver(message, extra);
      },
      (e: unknown) => {
        const gone = e instanceof ClientGoneError;
        events.refused(gone ? 'client_closed' : 'too_many_requests');
        const retryAfter = e instanceof ApiError ? Number(e.extra.headers?.['Retry-After'] ?? 1) : 1;
        void send({
          jsonrpc: '2.0',
          id: message.id,
          error: {
            code: TOO_MANY_REQUESTS_RPC,
            message: `${gone ? 'client_closed' : 'too_many_requests'}: ${(e as Error).message}`,
            data: { code: gone ? 'client_closed' : 'too_many_requests', retryAfter },
          },
        }).catch(() => {});
      },
    );
  };
  return () => {
    for (const end of turns.values()) end();
    turns.clear();
  };
}
