import { JsonValueSchema } from '@bvl/build-issue';
import type { Platform } from '@bvl/platform';
import { packageProblem, tenantProblem } from '@bvl/platform';
import { verify } from '@bvl/verify';
import { buildCard, formatCardLine, renderCardHtml } from '@bvl/verify-build';
import { z } from '@hono/zod-openapi';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { toolError, toolResult } from '../mcp/tool-result.ts';
import { CardSchema, CheckedSchema, IssueSchema, open, outputObject, PublishResultSchema } from '../schemas.ts';
import { fixFiles } from './fix-files.ts';
import { loadFiles } from './load-files.ts';
import { publishFiles } from './publish-files.ts';

/** What `bvl mcp` tells an agent about itself. */
export const LOCAL_INSTRUCTIONS =
  "bvl verifies metadata apps in the ObjectStack stack format, on this machine. Give a stack JSON file or a per-artifact folder (objects/, views/, dashboards/, datasets/, apps/, seeds/), and optionally drafts over it. verify lists every L1/L2 issue (artifact, member, path, fix; a `patch` is RFC 6902 on the artifact's document); fix applies the safe patches to the files (stack JSON or folder, formatting kept); publish puts the app in the local database (gated: refused while any L1/L2 error remains) and probes it; card summarises.";

const Source = {
  path: z.string().min(1).max(4096).describe('The app: a stack JSON file or a per-artifact folder, relative to the folder bvl mcp runs in.'),
  drafts: z.string().min(1).max(4096).optional().describe('Drafts over the app (a stack file or folder), as an agent stages them.'),
};
const Ref = z.object({ type: z.string(), name: z.string() });
const VerifyOutput = outputObject({ ok: z.boolean(), publishable: z.boolean(), issues: z.array(IssueSchema), checked: CheckedSchema, line: z.string() });
const FixOutput = outputObject({
  changes: z.array(
    outputObject({ file: z.string(), artifact: Ref, path: z.string(), old: JsonValueSchema.optional(), new: JsonValueSchema.optional(), code: z.string() }),
  ),
  skipped: z.array(outputObject({ artifact: Ref, code: z.string(), path: z.string().optional(), reason: z.string(), detail: z.string().optional() })),
  written: z.array(z.string()),
  passes: z.number(),
  dryRun: z.boolean(),
  ok: z.boolean(),
  issues: z.array(IssueSchema),
});
const PublishOutput = open(
  PublishResultSchema.extend({
    target: outputObject({ tenant: z.string(), package: z.string(), schema: z.string(), database: z.string().optional() }),
  }),
);
const CardOutput = outputObject({ card: CardSchema, line: z.string(), html: z.string().optional() });
const scopeName = (problem: (v: unknown) => string | undefined, what: string) =>
  z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      const p = v === undefined ? undefined : problem(v);
      if (p) ctx.addIssue({ code: 'custom', message: `${what} ${p}` });
    });

/** What the local server needs: where it runs and how to open the local database (per publish). */
export interface LocalMcpDeps {
  readonly cwd: string;
  readonly version: string;
  readonly openPlatform: () => Promise<Platform>;
}

/**
 * The local MCP server `bvl mcp` runs over stdio: verify, fix, publish and card over files, for an
 * agent working on a folder or stack file. The same functions as `bvl verify` / `bvl publish` and
 * the service (verify, planFixes/applyPatch, publishBuild, the card); blocking issues are data,
 * `isError` only when bvl itself failed.
 */
export function createLocalMcp(deps: LocalMcpDeps): McpServer {
  const server = new McpServer({ name: 'bvl', version: deps.version }, { capabilities: { tools: {} }, instructions: LOCAL_INSTRUCTIONS });
  const guard =
    <A>(fn: (args: A) => Promise<{ output: object; failed?: boolean }>) =>
    async (args: A) => {
      try {
        const { output, failed } = await fn(args);
        return toolResult(output, failed);
      } catch (e) {
        return toolError(e, { local: true }).result;
      }
    };

  server.registerTool(
    'verify',
    {
      title: 'Verify an app',
      description: 'L1 graph lint + L2 render contract over the app ⊕ drafts — what bvl verify prints. ok=false lists the blocking issues; nothing is written.',
      inputSchema: Source,
      outputSchema: VerifyOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guard(async (a: { path: string; drafts?: string }) => {
      const files = await loadFiles(deps.cwd, a);
      const v = verify(files.published, files.drafts);
      const card = buildCard({ issues: v.issues, checked: v.checked });
      return { output: { ok: v.publishable, publishable: v.publishable, issues: v.issues, checked: v.checked, line: formatCardLine(card) } };
    }),
  );
  server.registerTool(
    'fix',
    {
      title: 'Fix the files',
      description:
        'Apply the safe patches (one clearly right candidate) to the per-artifact files of the folder, re-verify, repeat; unsafe ones only with unsafe=true. Reports every value changed and what is left (skipped patches with why; the remaining issues). dryRun shows the changes without writing.',
      inputSchema: { ...Source, unsafe: z.boolean().optional(), dryRun: z.boolean().optional() },
      outputSchema: FixOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guard(async (a: { path: string; drafts?: string; unsafe?: boolean; dryRun?: boolean }) => ({
      output: await fixFiles(deps.cwd, a, { unsafe: a.unsafe, dryRun: a.dryRun }),
    })),
  );
  server.registerTool(
    'publish',
    {
      title: 'Publish to the local database',
      description:
        'Publish the app ⊕ drafts to the local database (embedded PGlite in .bvl/data, or DATABASE_URL): refused (outcome=refused, nothing published) while L1/L2 has an error; otherwise tables, seeds and the L3 probes, whose issues come back in `issues`.',
      inputSchema: {
        ...Source,
        tenant: scopeName(tenantProblem, 'tenant').describe('Default "default".'),
        package: scopeName(packageProblem, 'package').describe('Default "default".'),
      },
      outputSchema: PublishOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    guard(async (a: { path: string; drafts?: string; tenant?: string; package?: string }) => {
      const r = await publishFiles(deps.cwd, { ...a, tenant: a.tenant ?? 'default', package: a.package ?? 'default' }, deps.openPlatform);
      return { output: r, failed: r.outcome === 'failed' };
    }),
  );
  server.registerTool(
    'card',
    {
      title: 'Build-health card',
      description:
        'The build-health card of the app ⊕ drafts: ✓/✗ structure and renders, the issues by artifact; html=true adds the card as a self-contained page.',
      inputSchema: { ...Source, html: z.boolean().optional() },
      outputSchema: CardOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guard(async (a: { path: string; drafts?: string; html?: boolean }) => {
      const files = await loadFiles(deps.cwd, a);
      const v = verify(files.published, files.drafts);
      const card = buildCard({ issues: v.issues, checked: v.checked });
      return { output: { card, line: formatCardLine(card), ...(a.html ? { html: renderCardHtml(card, `Build health — ${a.path}`) } : {}) } };
    }),
  );
  return server;
}
