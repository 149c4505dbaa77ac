import { type AgentClient, reviewIntent } from '@bvl/build-agent';
import { sortIssues } from '@bvl/build-issue';
import { type ArtifactType, locateIssues, mergeOverlay } from '@bvl/metadata';
import type { Platform } from '@bvl/platform';
import { packageProblem, tenantProblem } from '@bvl/platform';
import { verify } from '@bvl/verify';
import {
  answerPublish,
  answerVerify,
  buildCard,
  cardView,
  formatCardLine,
  fullIssue,
  idLookup,
  issueIds,
  pageIssues,
  renderCardHtml,
  type VerifyBuildResult,
  type ViewOptions,
  ViewOptionsSchema,
} from '@bvl/verify-build';
import { z } from '@hono/zod-openapi';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type McpToolDef, registerTools } from '../mcp/register-tools.ts';
import { toolError, toolResult } from '../mcp/tool-result.ts';
import {
  ApplyFixInput,
  ApplyFixResultSchema,
  CardSchema,
  FixChangeSchema,
  IssueSchema,
  open,
  openObject,
  outputObject,
  PublishResultSchema,
  StageDraftsInput,
  VerifyResultSchema,
  WriteResultSchema,
} from '../schemas.ts';
import { applyFixFiles } from './apply-fix-files.ts';
import { filesVersion } from './files-version.ts';
import { fixFiles } from './fix-files.ts';
import { type LocalSource, loadFiles } from './load-files.ts';
import { publishFiles } from './publish-files.ts';
import { stageFiles } from './stage-files.ts';

/** What `bvl mcp` tells an agent about itself. */
export const LOCAL_INSTRUCTIONS =
  'bvl verifies metadata apps in the ObjectStack stack format, on this machine. Give a stack JSON file or a per-artifact folder (objects/, views/, dashboards/, datasets/, apps/, seeds/), and optionally drafts over it. verify answers a summary: errors first, a page of issues (each once: id, code, artifact, member, message, fix, at = file:line:column, patchId) and an index of every other error; `more.cursor` pages on, filters (codes, severity, layer, artifact) narrow it, detail "full" gives every field. apply_fix applies issues\' patches by patchId to the files; fix applies every safe patch; stage_drafts writes artifacts into the drafts folder; publish puts the app in the local database (refused while any L1/L2 error remains) and probes it; card summarises.';

/** A path argument: 1 to 4096 characters, checked here rather than spelled out in every tool's schema (tools/list is read on every turn). */
const PathString = z.string().superRefine((v, ctx) => {
  if (v.length < 1 || v.length > 4096) ctx.addIssue({ code: 'custom', message: `a path must be 1 to 4096 characters (got ${v.length})` });
});
const Source = {
  path: PathString.describe('The app: a stack file or folder.'),
  drafts: PathString.optional().describe('Drafts over it.'),
};
const View = ViewOptionsSchema.shape;
const PublishOutput = open(PublishResultSchema.omit({ session: true }).extend({ target: openObject('{tenant, package, schema, database}') }));
const FixOutput = outputObject({
  changes: z.array(FixChangeSchema),
  skipped: z.array(openObject('{artifact, code, path, reason}')),
  written: z.array(z.string()),
  ok: z.boolean(),
  errors: z.number(),
  warnings: z.number(),
  issues: z.array(IssueSchema),
  more: openObject('Left out: errors, warnings, cursor, next.').optional(),
});
const StageOutput = open(WriteResultSchema.extend({ written: z.array(z.string()).describe('Files written.') }));
const ApplyOutput = open(ApplyFixResultSchema.extend({ written: z.array(z.string()).describe('Files written.') }));
const ReviewOutput = outputObject({ verdict: z.enum(['pass', 'mismatch', 'failed']) }).describe('Also judge, issues (intent_mismatch warnings), usage.');
const CardOutput = outputObject({ line: z.string(), card: CardSchema, issues: z.array(IssueSchema), html: z.string().optional() });
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
  /** Whether the local database may hold published artifacts (an embedded one not yet made holds none); default yes. */
  readonly databaseMayHaveState?: (() => boolean) | undefined;
  /** review_intent's judge model (BVL_JUDGE_MODEL, else BVL_MODEL), or why there is none. */
  readonly judge?: (() => { readonly client: AgentClient } | { readonly problem: string }) | undefined;
}

/** The files verified, as verify_build's result: what the one answer view reads. */
async function verifyFiles(cwd: string, source: LocalSource): Promise<VerifyBuildResult> {
  const files = await loadFiles(cwd, source);
  const v = verify(files.published, files.drafts);
  // Where each issue is in its file (`at` in the compact form): the agent edits files.
  const issues = locateIssues(sortIssues(v.issues), v.graph, [files.published, files.drafts]);
  const card = buildCard({ issues, checked: v.checked });
  return {
    ok: !issues.some((i) => i.severity === 'error'),
    publishable: v.publishable,
    issues,
    checked: v.checked,
    card,
    session: null,
    fixes: [],
    unchanged: false,
    draftVersion: filesVersion(files.published, files.drafts),
  };
}

const readOnly = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
const writes = { openWorldHint: false };

/**
 * The local MCP server `bvl mcp` runs over stdio, for an agent working on a folder or stack file:
 * verify, stage_drafts and apply_fix over the files, fix, publish (to the local database) and card.
 * The same functions as `bvl verify` / `bvl fix` / `bvl publish` and the service, and the same
 * answers (a summary by default: compact issues, each once, errors first, a cursor for the rest);
 * blocking issues are data, `isError` only when bvl itself failed or the call was wrong.
 */
export function createLocalMcp(deps: LocalMcpDeps): McpServer {
  const server = new McpServer({ name: 'bvl', version: deps.version }, { capabilities: { tools: {} }, instructions: LOCAL_INSTRUCTIONS });
  const tools: Array<McpToolDef & { run: (args: never) => Promise<{ output: object; failed?: boolean }> }> = [
    {
      name: 'verify',
      title: 'Verify an app',
      description: 'L1 graph lint + L2 render contract over the app ⊕ drafts; errors first, `more` pages on.',
      input: z.object({ ...Source, ...View }),
      output: open(VerifyResultSchema.omit({ session: true, fixes: true, unchanged: true, round: true })),
      annotations: readOnly,
      run: async (a: LocalSource & ViewOptions) => {
        // Files have no session, fixer round or store: what verify_build says of those is left out.
        const { session: _s, fixes: _f, unchanged: _u, ...answer } = answerVerify(await verifyFiles(deps.cwd, a), a, 'summary');
        return { output: answer };
      },
    },
    {
      name: 'stage_drafts',
      title: 'Write drafts',
      description: 'Write artifacts into the drafts folder (<type>s/<name>.json); answers with the L1 issues they caused.',
      input: z.object({ path: Source.path, drafts: Source.drafts.unwrap(), artifacts: StageDraftsInput.shape.artifacts }),
      output: StageOutput,
      annotations: writes,
      run: async (a: LocalSource & { drafts: string; artifacts: Array<{ type: ArtifactType; name: string; body: unknown }> } & ViewOptions) => {
        const r = await stageFiles(deps.cwd, a, a.artifacts);
        const { issues, issueIds: ids, ...rest } = r;
        const { detail: _d, more, ...page } = pageIssues(issues, ids, r.draftVersion, { detail: a.detail, limit: a.limit }, 'summary');
        return {
          output: {
            ...rest,
            ...page,
            ...(more ? { more: { errors: more.errors, warnings: more.warnings, next: 'verify lists every issue, with limit and cursor' } } : {}),
          },
        };
      },
    },
    {
      name: 'apply_fix',
      title: 'Apply offered patches',
      description: "Apply issues' patches by patchId to their files, verified first; refused if the files changed since.",
      input: z.object({ ...Source, patches: ApplyFixInput.shape.patches, draftVersion: ApplyFixInput.shape.draftVersion }),
      output: ApplyOutput,
      annotations: writes,
      run: async (a: LocalSource & { patches: string[]; draftVersion?: string } & ViewOptions) => {
        const { issues, ...rest } = await applyFixFiles(deps.cwd, a, a);
        const { detail: _d, ...page } = pageIssues(issues, issueIds(issues), rest.draftVersion, { detail: a.detail, limit: a.limit }, 'summary');
        return { output: { ...rest, ...page } };
      },
    },
    {
      name: 'fix',
      title: 'Fix the files',
      description: 'Apply every safe patch to the files (unsafe ones with unsafe=true), re-verify, repeat. dryRun writes nothing.',
      input: z.object({ ...Source, unsafe: z.boolean().optional(), dryRun: z.boolean().optional() }),
      output: FixOutput,
      annotations: { idempotentHint: true, openWorldHint: false },
      run: async (a: LocalSource & { unsafe?: boolean; dryRun?: boolean } & ViewOptions) => {
        const { issues, ...rest } = await fixFiles(deps.cwd, a, { unsafe: a.unsafe, dryRun: a.dryRun });
        const errors = issues.filter((i) => i.severity === 'error').length;
        const { detail: _d, more, ...page } = pageIssues(issues, issueIds(issues), undefined, { detail: a.detail, limit: a.limit }, 'summary');
        return {
          output: {
            ...rest,
            errors,
            warnings: issues.length - errors,
            ...page,
            ...(more ? { more: { ...more, next: 'verify lists every issue, with limit and cursor' } } : {}),
          },
        };
      },
    },
    {
      name: 'review_intent',
      title: 'Intent review',
      description: 'A judge model reviews app ⊕ drafts against the goal.',
      input: z.object({ ...Source, goal: z.string().min(1).max(20_000) }),
      output: ReviewOutput,
      annotations: { readOnlyHint: true },
      run: async (a: LocalSource & { goal: string }) => {
        const judged = deps.judge?.() ?? { problem: 'review_intent needs a judge model: none is configured' };
        if ('problem' in judged) throw new Error(judged.problem);
        const files = await loadFiles(deps.cwd, a);
        const artifacts = [...mergeOverlay(files.published.artifacts, files.drafts?.artifacts ?? []).merged.values()];
        const r = await reviewIntent({ client: judged.client, goal: a.goal, artifacts });
        const ids = issueIds(r.issues);
        return { output: { verdict: r.verdict, judge: judged.client.model, issues: r.issues.map((x, k) => fullIssue(x, ids[k]!, undefined)), usage: r.usage } };
      },
    },
    {
      name: 'publish',
      title: 'Publish to the local database',
      description: 'Publish the app ⊕ drafts to the local database (.bvl/data, or DATABASE_URL): refused while L1/L2 has an error; then the L3 probes.',
      input: z.object({
        ...Source,
        tenant: scopeName(tenantProblem, 'tenant').describe('Default "default".'),
        package: scopeName(packageProblem, 'package').describe('Default "default".'),
        allowDataChange: z.boolean().optional().describe('Let a republish change or lose rows already there; refused otherwise, rows counted.'),
      }),
      output: PublishOutput,
      annotations: writes,
      run: async (a: LocalSource & { tenant?: string; package?: string; allowDataChange?: boolean } & ViewOptions) => {
        const r = await publishFiles(
          deps.cwd,
          { ...a, tenant: a.tenant ?? 'default', package: a.package ?? 'default' },
          deps.openPlatform,
          deps.databaseMayHaveState,
        );
        const { session: _s, ...answer } = answerPublish(r, a, 'summary');
        return { output: { ...answer, target: r.target }, failed: r.outcome === 'failed' };
      },
    },
    {
      name: 'card',
      title: 'Build-health card',
      description: 'The build-health card of the app ⊕ drafts (issue ids by artifact); html=true adds it as a page.',
      input: z.object({ ...Source, html: z.boolean().optional() }),
      output: CardOutput,
      annotations: readOnly,
      run: async (a: LocalSource & { html?: boolean } & ViewOptions) => {
        const r = await verifyFiles(deps.cwd, a);
        const ids = issueIds(r.issues);
        const { detail: _d, ...page } = pageIssues(r.issues, ids, r.draftVersion, { detail: a.detail, limit: a.limit }, 'summary');
        return {
          output: {
            line: formatCardLine(r.card),
            card: cardView(r.card, idLookup(r.issues, ids)),
            ...page,
            ...(a.html ? { html: renderCardHtml(r.card, `Build health — ${a.path}`) } : {}),
          },
        };
      },
    },
  ];
  registerTools(server, tools, (def) => async (args) => {
    try {
      const { output, failed } = await (tools.find((t) => t.name === def.name)!.run as (a: unknown) => Promise<{ output: object; failed?: boolean }>)(args);
      return toolResult(output, failed);
    } catch (e) {
      return toolError(e, { local: true }).result;
    }
  });
  return server;
}
