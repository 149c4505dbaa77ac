/** Usage text of every command, kept apart from the commands so `bvl --help` loads nothing else. */
export const VERIFY_USAGE = `usage: bvl verify <stack.json | folder> [--drafts <stack.json | folder>] [--format pretty|json|sarif] [--layers graph,render]`;

/** Usage text of `bvl publish`. */
export const PUBLISH_USAGE =
  'usage: bvl publish <stack.json | folder> [--drafts <stack.json | folder>] [--format pretty|json|sarif] [--tenant t] [--package p]';

/** Usage text of `bvl serve`. */
export const SERVE_USAGE = 'usage: bvl serve [--port n] [--host 127.0.0.1] [--no-demo]   (the HTTP API + MCP at /mcp; --port 0 = any free port)';

/** Usage text of `bvl mcp`. */
export const MCP_USAGE = 'usage: bvl mcp   (MCP over stdio for a local agent: verify, fix, publish, card on a folder or stack file)';

/** Usage text of `bvl token`. */
export const TOKEN_USAGE = 'usage: bvl token create --tenant t [--label l] | bvl token list --tenant t | bvl token revoke --tenant t <id>';
