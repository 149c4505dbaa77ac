import { EVAL_SUMMARY, EVAL_USAGE, EVAL_WORKER_SUMMARY, EVAL_WORKER_USAGE } from './eval-usage.ts';

/** A command's help: its one-line summary and the full `bvl <name> --help` text (usage line, then the flags). */
export interface CommandHelp {
  readonly summary: string;
  readonly usage: string;
}

const REPORT_FLAGS = `  --format <f>         pretty (default), json, sarif or github
  -o, --output <file>  write the report to a file instead of standard output
  -q, --quiet          report errors only (warnings are still counted, and by --max-warnings)
  --max-warnings <n>   exit 1 when there are more than n warnings, shown or not
  --all                print every issue (pretty output shows the first 50)
  -h, --help           show this help`;

const INPUT = `<stack>   a stack JSON file (the defineStack({...}) export), a folder with
            objects/ views/ dashboards/ datasets/ apps/ seeds/ (reports/ pages/), or - for
            a stack on standard input`;

/**
 * The help of every `bvl` command, in the order `bvl --help` lists them. A command reads its own
 * usage here (to print it with a usage error); the command table adds how to load each one.
 */
export const COMMAND_HELP = {
  verify: {
    summary: 'check a stack (graph lint + render contract); exit 1 on errors',
    usage: `usage: bvl verify <stack> [--drafts <stack>] [options]

  ${INPUT}
  --drafts <stack>     staged drafts, overlaid on the stack (a draft replaces the artifact of its type+name)
  --layers <list>      graph,render (default both)
  --spec <s>           the ObjectStack spec release the target holds artifacts to: objectstack-17.4 (default); what it
                       refuses (view/widget types outside its enums, retired keys, a kanban without groupByField) is an error
  --renderer <r>       the renderer profile L2 checks against: objectui-2026-09 (default, the newest) or objectui-2026-02;
                       it decides render outcomes only for what the spec accepts
  --baseline <file>    hide the issues recorded in a baseline file (bvl baseline writes one)
  --config <file>      use this bvl.config.json instead of the one found upward from the stack
${REPORT_FLAGS}`,
  },
  fix: {
    summary: 'apply the safe fixes to the files, again until nothing more is safe to fix',
    usage: `usage: bvl fix <stack> [--drafts <stack>] [--dry-run] [--unsafe] [options]

  ${INPUT}
  --drafts <stack>     staged drafts (fixes apply to the file each artifact came from)
  --dry-run            change no file; print a diff of what would change
  --unsafe             also apply best-guess fixes (review the diff)
  --config <file>      use this bvl.config.json instead of the one found upward from the stack
  --format <f>         pretty (default) or json
  -o, --output <file>  write the report to a file instead of standard output
  -h, --help           show this help

Exit codes as bvl verify, for what remains after fixing: 0 no error, 1 errors remain, 2 could not run.`,
  },
  publish: {
    summary: 'verify, publish into a database (PGlite or DATABASE_URL), seed and probe',
    usage: `usage: bvl publish <stack> [--drafts <stack>] [--tenant t] [--package p] [--data-dir <dir>] [options]

  ${INPUT}
  --drafts <stack>     staged drafts, overlaid on the stack
  --tenant <t>         the tenant to publish to (default "default")
  --package <p>        the package the artifacts belong to (default "default")
  --data-dir <dir>     the embedded database's folder (default $BVL_DATA_DIR, else .bvl/data); ignored with DATABASE_URL
  --allow-data-change  let a republish convert rows a type or option change would lose (refused otherwise, rows counted)
${REPORT_FLAGS}

A lock another session holds (a metadata table, the package during another publish) is waited for at
most $BVL_LOCK_WAIT_MS milliseconds (default 60000); after ~2 s a line on stderr names it and its holder.`,
  },
  build: {
    summary: 'let the built-in agent build (or repair) an app through verify_build, bounded by a session',
    usage: `usage: bvl build "<prompt>" [--tenant t] [--package p] [--max-rounds n] [--budget-usd x] [--budget-tokens n] [--budget-seconds s] [--from <stack>] [--judge-model m] [--format pretty|json]
       bvl build --resume <session> [--tenant t] [--package p] [--format pretty|json]

  "<prompt>"           what the app is for (the session's goal)
  --tenant <t>         the tenant to build in (default "default")
  --package <p>        the package to build (default "default")
  --max-rounds <n>     repair rounds the session allows (default 2)
  --budget-usd <x>     stop when the model calls cost more (needs a known price: BVL_PRICES)
  --budget-tokens <n>  stop when the model calls use more tokens (each call's max_tokens is what is left)
  --budget-seconds <s> stop when the build has run this long (wall clock; a call in flight is cut off)
  --from <stack>       start from an existing app (staged as the package's drafts)
  --judge-model <m>    the model that judges the intent review (default $BVL_JUDGE_MODEL, else the builder's)
  --resume <session>   go on with an interrupted (or Ctrl-C cancelled) build within what is left of its bounds
  --data-dir <dir>     the embedded database's folder (default $BVL_DATA_DIR, else .bvl/data); ignored with DATABASE_URL
  --format <f>         pretty (default) or json
  -h, --help           show this help

The model endpoint comes from OPENAI_BASE_URL / OPENAI_API_KEY and BVL_MODEL (BVL_PRICES: a JSON price
table, USD per million tokens). Exit 0 when the build ended clean and published, 1 when it stopped with
issues, 2 when it could not run (no endpoint, bad input, database or endpoint unreachable).`,
  },
  serve: {
    summary: 'serve verify_build over HTTP (OpenAPI) and MCP at /mcp; npm start runs it with a demo',
    usage: `usage: bvl serve [--port n] [--host 127.0.0.1] [--no-demo]

  --port <n>           the port to listen on (default 8787; 0 = any free port)
  --host <h>           the address to listen on (default 127.0.0.1)
  --no-demo            do not set up the demo tenant (example app published, the agent's broken drafts staged)
  -h, --help           show this help

Serves the database the environment names: DATABASE_URL (PostgreSQL; several bvl serve processes share
it), else embedded PGlite in $BVL_DATA_DIR or .bvl/data. Prints the URL, a demo token and a curl line.`,
  },
  mcp: {
    summary: 'an MCP server on stdio for a local agent: verify, fix, publish, card on a folder or stack file',
    usage: `usage: bvl mcp

  -h, --help           show this help

Speaks MCP over stdio (add it to an MCP client as the command "npx bvl mcp"). Tools: verify, fix,
publish (into the local embedded database, or DATABASE_URL) and card, on paths relative to the
working folder. Runs until the client closes stdin.`,
  },
  session: {
    summary: "show a build session: its rounds, the intent review's verdict, cost by stage and every turn of its transcript",
    usage: `usage: bvl session show <id> [--tenant t] [--format pretty|json] [--data-dir <dir>]

  <id>                 the session id (bvl build prints it; --format json has it as session.id)
  --tenant <t>         the tenant the session ran in (default "default")
  --format <f>         pretty (default: a readable transcript) or json ({ session, rounds, transcript, cost })
  --data-dir <dir>     the embedded database's folder (default $BVL_DATA_DIR, else .bvl/data); ignored with DATABASE_URL
  -h, --help           show this help

Each turn: who spoke, what was said, the tool calls with their arguments and a bounded result, tokens
and time. Secrets are never stored; a long transcript keeps every turn, its oldest condensed with a marker.
Exit 0, or 2 for an unknown session or a database that cannot be opened.`,
  },
  token: {
    summary: 'create, list or revoke the API bearer tokens of a tenant',
    usage: `usage: bvl token create --tenant t [--label l] | bvl token list --tenant t | bvl token revoke --tenant t <id>

  --tenant <t>         the tenant the token opens (and nothing else)
  --label <l>          a name for the token, shown by list
  -h, --help           show this help

A created token is printed once; bvl keeps only its hash.`,
  },
  policy: {
    summary: "show or set a tenant's server policy (sessions required, bounds, the window)",
    usage: `usage: bvl policy show --tenant t | bvl policy set --tenant t '<policy JSON>'

  --tenant <t>         the tenant whose policy it is
  -h, --help           show this help

The operator's way to change a policy, loosening included (a tenant's own token can only tighten it
over HTTP: PUT /v1/tenants/<t>/policy). A policy, every field optional:
  {"requireSession": true, "defaults": {"maxRounds": 2}, "maximums": {"maxRounds": 5, "budgetTokens": 200000,
   "budgetUsd": 2, "budgetMs": 900000, "idleMs": 3600000}, "windowMs": 3600000}
Sessions already open keep their bounds. Prints what is in force (over BVL_POLICY, the server's default).`,
  },
  eval: { summary: EVAL_SUMMARY, usage: EVAL_USAGE },
  'eval-worker': { summary: EVAL_WORKER_SUMMARY, usage: EVAL_WORKER_USAGE },
  baseline: {
    summary: 'record the current issues so later runs show only new ones',
    usage: `usage: bvl baseline <stack> [--drafts <stack>] [-o <file>]

  ${INPUT}
  --drafts <stack>     staged drafts, overlaid on the stack
  --layers <list>      graph,render (default both)
  --config <file>      use this bvl.config.json instead of the one found upward from the stack
  -o, --output <file>  the baseline file to write (default bvl-baseline.json)
  -h, --help           show this help

Then: bvl verify <stack> --baseline bvl-baseline.json`,
  },
  rules: {
    summary: 'list every code bvl reports: layer, default severity, what it means',
    usage: `usage: bvl rules [--format pretty|json]

  --format <f>         pretty (default) or json
  -h, --help           show this help`,
  },
  explain: {
    summary: 'explain one code: what it means, why it breaks the app, an example, the fix',
    usage: `usage: bvl explain <code>

  <code>               a code from bvl rules, e.g. unknown_measure
  -h, --help           show this help`,
  },
} as const satisfies Record<string, CommandHelp>;

/** The name of a `bvl` command. */
export type CommandName = keyof typeof COMMAND_HELP;
