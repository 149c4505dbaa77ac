import { sortIssues } from '@bvl/build-issue';
import { artifactKey, didYouMean, mergeOverlay } from '@bvl/metadata';
import {
  discardDrafts,
  listDrafts,
  overlayOf,
  type PackageScope,
  type PlatformContext,
  readOverlay,
  readOverlayRows,
  stageDrafts,
  stageTombstones,
} from '@bvl/platform';
import { verify } from '@bvl/verify';
import { applyFix, draftHash } from '@bvl/verify-build';
import type { AgentArtifactType } from './agent-tools.ts';
import { collectDraft } from './collect-draft.ts';
import { artifactForModel, issuesForModel } from './model-view.ts';

/** Artifacts list_artifacts shows at most. */
export const MAX_LISTED = 500;

/** A tool's answer: JSON for the model, whether it is an error, and whether it changed the drafts. */
export interface ToolAnswer {
  readonly content: unknown;
  readonly error?: boolean;
  readonly changed?: boolean;
}

const fail = (error: string): ToolAnswer => ({ content: { error }, error: true });

/** list_artifacts: the tenant's published artifacts ⊕ this package's drafts, each with its state. */
export async function listArtifacts(ctx: PlatformContext, scope: PackageScope, type: AgentArtifactType | null | undefined): Promise<ToolAnswer> {
  const rows = await readOverlayRows(ctx.db, scope.tenant, scope.package);
  const slots = new Map<string, { type: string; name: string; owner?: string; draft?: 'body' | 'tombstone' }>();
  for (const r of rows) {
    if (type && r.type !== type) continue;
    const k = artifactKey(r.type, r.name);
    const slot = slots.get(k) ?? { type: r.type, name: r.name };
    if (r.state === 'active') slot.owner = r.package;
    else slot.draft = r.tombstone ? 'tombstone' : 'body';
    slots.set(k, slot);
  }
  const stateOf = (s: { owner?: string; draft?: 'body' | 'tombstone' }): string =>
    s.draft === 'tombstone'
      ? 'retiring (a draft removes it)'
      : s.draft === 'body'
        ? s.owner === undefined
          ? 'draft'
          : 'draft (changes the published one)'
        : s.owner === scope.package
          ? 'published'
          : `published by package ${s.owner} (read-only here)`;
  const all = [...slots.values()]
    .map((s) => ({ type: s.type, name: s.name, state: stateOf(s) }))
    .sort((a, b) => (a.type === b.type ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.type < b.type ? -1 : 1));
  return {
    content: {
      package: scope.package,
      count: all.length,
      artifacts: all.slice(0, MAX_LISTED),
      ...(all.length > MAX_LISTED ? { more: all.length - MAX_LISTED } : {}),
    },
  };
}

/** get_artifact: the artifact as the overlay has it (the draft when there is one). */
export async function getArtifact(ctx: PlatformContext, scope: PackageScope, type: AgentArtifactType, name: string): Promise<ToolAnswer> {
  const overlay = await readOverlay(ctx, scope);
  const merged = mergeOverlay(overlay.published.artifacts, overlay.drafts.artifacts).merged;
  const a = merged.get(artifactKey(type, name));
  if (a) return { content: artifactForModel(a, a.draft ? 'draft' : 'published') };
  if (overlay.retired.some((r) => r.type === type && r.name === name)) return fail(`${type} ${name} is retired by a draft; discard_draft undoes that`);
  const names = [...merged.values()].filter((x) => x.type === type).map((x) => x.name);
  const inContainer = type === 'view' ? names.filter((n) => n.startsWith(`${name}.`)) : [];
  const hint = inContainer.length
    ? `; the views of ${name} are: ${inContainer.join(', ')}`
    : didYouMean(name, names).length
      ? `; did you mean ${didYouMean(name, names).join(', ')}?`
      : names.length
        ? `; there are ${names.length} ${type}(s), see list_artifacts`
        : `; the app has no ${type} yet`;
  return fail(`no ${type} named ${JSON.stringify(name)}${hint}`);
}

/** stage_draft: collect the body as the loader would, stage it, and answer with its L1+L2 issues. */
export async function stageDraft(
  ctx: PlatformContext,
  scope: PackageScope,
  input: { readonly type: AgentArtifactType; readonly name: string; readonly body: Record<string, unknown> },
): Promise<ToolAnswer> {
  const collected = collectDraft(input.type, input.name, input.body);
  if (!collected.ok) return fail(collected.error);
  await stageDrafts(ctx, scope, collected.artifacts);
  const rows = await readOverlayRows(ctx.db, scope.tenant, scope.package);
  const overlay = overlayOf(rows, scope.package);
  const staged = new Set(collected.artifacts.map((a) => artifactKey(a.type, a.name)));
  const all = sortIssues(verify(overlay.published, overlay.drafts).issues);
  const mine = all.filter((i) => staged.has(artifactKey(i.artifact.type, i.artifact.name)));
  return {
    content: {
      staged: collected.artifacts.map((a) => `${a.type} ${a.name}`),
      ...issuesForModel(mine, draftHash(rows, scope.package)),
      note: mine.length
        ? 'these issues are in what you staged (some may resolve once the artifacts they name are staged too)'
        : 'no issue in what you staged; call verify_build when the drafts are complete',
    },
    changed: true,
  };
}

/** discard_draft: one draft slot, or every view draft of a container named by its object. */
export async function discardDraft(ctx: PlatformContext, scope: PackageScope, type: AgentArtifactType, name: string): Promise<ToolAnswer> {
  const drafts = (await listDrafts(ctx, scope)).filter((d) => d.type === type);
  let slots = drafts.filter((d) => d.name === name);
  if (slots.length === 0 && type === 'view') slots = drafts.filter((d) => d.name.startsWith(`${name}.`));
  if (slots.length === 0)
    return fail(`no draft of ${type} ${JSON.stringify(name)}${drafts.length ? `; the ${type} drafts are: ${drafts.map((d) => d.name).join(', ')}` : ''}`);
  const removed = await discardDrafts(
    ctx,
    scope,
    slots.map((s) => ({ type: s.type, name: s.name })),
  );
  return { content: { discarded: slots.map((s) => `${s.type} ${s.name}`), count: removed }, changed: true };
}

/** retire_artifact: a tombstone draft for a published artifact of this package. */
export async function retireArtifact(ctx: PlatformContext, scope: PackageScope, type: AgentArtifactType, name: string): Promise<ToolAnswer> {
  await stageTombstones(ctx, scope, [{ type, name }]);
  return { content: { retiring: `${type} ${name}`, note: 'references to it now dangle: change them too, then verify_build' }, changed: true };
}

/** apply_fix: the patches of issues by patch id (bound to the drafts they were offered on), verified first. */
export async function applyPatches(ctx: PlatformContext, scope: PackageScope, patches: readonly string[]): Promise<ToolAnswer> {
  const r = await applyFix(ctx, { ...scope, patches });
  return {
    content: {
      applied: r.applied.map((a) => `${a.code} in ${a.artifact.type} ${a.artifact.name}`),
      changes: r.changes,
      draftVersion: r.draftVersion,
      fixed: r.fixed.length,
      errors: r.errors,
      warnings: r.warnings,
      ...issuesForModel(r.issues, r.draftVersion),
    },
    changed: true,
  };
}
