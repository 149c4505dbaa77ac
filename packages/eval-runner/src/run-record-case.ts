import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mergeOverlay } from '@bvl/metadata';
import { type PlatformContext, readOverlay } from '@bvl/platform';
import { getSession, SessionError, verifyBuild } from '@bvl/verify-build';
import { caseFromSession } from './case-from-session.ts';
import { BLUEPRINT_FILE, CASE_FILE, type GoldenCase, parseGoldenCase } from './golden-case.ts';
import { EvalRunError } from './run-evals.ts';
import { stackDocument } from './stack-document.ts';

/** What {@link recordCase} is asked: the session, the folder of cases to add to, and optionally the case's name. */
export interface RecordCaseInput {
  readonly session: string;
  /** The session's tenant; looked up by the session id when absent. */
  readonly tenant?: string | undefined;
  /** The folder of golden cases (the case is written to `<dir>/<name>/`). */
  readonly dir: string;
  readonly name?: string | undefined;
}

/** What was written. */
export interface RecordedCase {
  readonly case: GoldenCase;
  readonly dir: string;
  /** Errors the session left, now `issues_absent` expectations. */
  readonly errorsLeft: number;
}

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

/**
 * `bvl eval add-case --from-session`: reads a build session — its goal, its package as it was left
 * (published ⊕ drafts), the issues left (verify over the store, the latest L3) — and writes it as
 * a golden case folder (see caseFromSession), checked by the same parser the suite loads cases
 * with. Refuses to overwrite an existing folder.
 */
export async function recordCase(ctx: PlatformContext, input: RecordCaseInput): Promise<RecordedCase> {
  let tenant = input.tenant;
  if (tenant === undefined) {
    const row = /^[0-9a-f-]{36}$/i.test(input.session)
      ? await ctx.db.selectFrom('bvl.build_sessions').select('tenant_id').where('id', '=', input.session).executeTakeFirst()
      : undefined;
    if (!row) throw new EvalRunError(`there is no build session ${JSON.stringify(input.session)} in this database`);
    tenant = row.tenant_id;
  }
  let session: Awaited<ReturnType<typeof getSession>>;
  try {
    session = await getSession(ctx, { tenant, id: input.session });
  } catch (e) {
    if (e instanceof SessionError) throw new EvalRunError(e.message);
    throw e;
  }
  const scope = { tenant, package: session.package };
  const overlay = await readOverlay(ctx, scope);
  const stack = stackDocument(mergeOverlay(overlay.published.artifacts, overlay.drafts.artifacts).merged.values());
  const { issues } = await verifyBuild(ctx, scope);
  const { caseFile, blueprint } = caseFromSession(
    {
      origin: { session: session.id, tenant, package: session.package, recordedAt: ctx.now().toISOString() },
      goal: session.goal,
      maxRounds: session.bounds.maxRounds,
      stack,
      issues,
    },
    input.name,
  );
  const dir = join(input.dir, caseFile.name);
  // The same checks the suite applies when it loads the case: a bad name or a too-short goal is said here.
  let parsed: GoldenCase;
  try {
    parsed = parseGoldenCase(dir, json(caseFile), json(blueprint));
  } catch (e) {
    throw new EvalRunError(`session ${session.id} does not make a valid case: ${(e as Error).message}`);
  }
  if (
    await stat(dir).then(
      () => true,
      () => false,
    )
  )
    throw new EvalRunError(`${dir} already exists; choose another name with --name`);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, CASE_FILE), json(caseFile));
  await writeFile(join(dir, BLUEPRINT_FILE), json(blueprint));
  return { case: parsed, dir, errorsLeft: issues.filter((i) => i.severity === 'error').length };
}
