import { ArtifactRefSchema, CATALOGUE, isCatalogueCode, JsonPatchOpSchema } from '@bvl/build-issue';
import { STACK_KEYS } from '@bvl/metadata';
import { z } from 'zod';

// The format of a golden case's two files: `case.json` (the prompt, the assertions graded after the
// build, the defect sets) and `blueprint.json` (the reference stack). golden-case.ts loads them.

/** A case, defect set or tag name: kebab-case. */
const KebabName = z.string().regex(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, 'must be kebab-case (a-z, 0-9, single dashes)');
/** A role name, referenced by other assertions of the case: snake_case. */
const RoleName = z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be snake_case');
/** Terms a role is matched with, against artifact names and labels (see matchRole). */
const Terms = z.array(z.string().regex(/[a-z0-9]/i, 'a term needs a letter or digit')).min(1);

/** Roles are matched by terms, not by exact names: an agent-built app names things its own way. */
const RoleMatch = { role: RoleName, match: Terms, exclude: Terms.optional() };

/** An issue verification must report once a defect set is applied: its code, artifact and (optionally) path. */
/** An attempt's budgets: tokens (in + out), US dollars (needs the model's price) and seconds of wall clock. */
export const AttemptBudgetSchema = z.strictObject({
  tokens: z.int().positive().optional(),
  usd: z.number().positive().optional(),
  seconds: z.number().positive().max(86_400).optional(),
});
export type AttemptBudget = z.output<typeof AttemptBudgetSchema>;

/**
 * An attempt's session budgets: the lower of the case's and the run's cap (`bvl eval --budget-*`)
 * for each, as session bounds (tokens, USD, milliseconds). Pure.
 */
export function attemptBounds(
  budget: AttemptBudget | undefined,
  cap: AttemptBudget | undefined,
): { budgetTokens?: number; budgetUsd?: number; budgetMs?: number } {
  const min = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));
  const tokens = min(budget?.tokens, cap?.tokens);
  const usd = min(budget?.usd, cap?.usd);
  const seconds = min(budget?.seconds, cap?.seconds);
  return {
    ...(tokens !== undefined ? { budgetTokens: tokens } : {}),
    ...(usd !== undefined ? { budgetUsd: usd } : {}),
    ...(seconds !== undefined ? { budgetMs: Math.round(seconds * 1000) } : {}),
  };
}

export const ExpectedIssueSchema = z.strictObject({
  code: z.string().refine(isCatalogueCode, 'must be a code of the BuildIssue catalogue'),
  artifact: ArtifactRefSchema.strict(),
  path: z
    .string()
    .refine((p) => p === '' || p.startsWith('/'), 'must be an RFC 6901 JSON pointer')
    .optional(),
});
/** One expected issue of a defect set. */
export type ExpectedIssue = z.infer<typeof ExpectedIssueSchema>;

/**
 * One machine-checkable assertion about a built app. Artifacts are asserted **by role**: a role is
 * satisfied by any published artifact whose name or label matches one of its terms (and none of its
 * `exclude` terms), so a case never depends on the names the agent chose.
 */
export const AssertionSchema = z.discriminatedUnion('kind', [
  /** An object playing this role exists. */
  z.strictObject({ kind: z.literal('object_exists'), ...RoleMatch }),
  /** A view playing this role exists: on an object of `objectRole`, of `viewType` (grid, kanban, …) or `viewKind`, matching `match`. */
  z
    .strictObject({
      kind: z.literal('view_exists'),
      role: RoleName,
      match: Terms.optional(),
      exclude: Terms.optional(),
      objectRole: RoleName.optional(),
      viewKind: z.enum(['list', 'form']).optional(),
      viewType: z.string().min(1).optional(),
    })
    .refine((a) => a.match !== undefined || a.objectRole !== undefined, { message: 'a view role needs match terms or an objectRole' }),
  /** A dashboard playing this role exists, with at least `minWidgets` widgets. */
  z.strictObject({ kind: z.literal('dashboard_exists'), ...RoleMatch, minWidgets: z.int().min(1).optional() }),
  /** Some object of `objectRole` holds at least `min` rows after publish. */
  z.strictObject({ kind: z.literal('seeded_rows'), objectRole: RoleName, min: z.int().min(1) }),
  /** Every widget's real query returns rows (of the dashboards of `dashboardRole`, or of all); no widget at all fails. */
  z.strictObject({ kind: z.literal('widgets_return_rows'), dashboardRole: RoleName.optional() }),
  /** The DOM sweep of every published view and dashboard finds no red "Unknown component type" box. */
  z.strictObject({ kind: z.literal('no_error_boxes') }),
  /** The DOM sweep finds no widget drawn empty for a missing binding or an unfit query shape. */
  z.strictObject({ kind: z.literal('no_empty_widgets') }),
  /** Every published dashboard is the target of a navigation item of some app (at any depth). */
  z.strictObject({ kind: z.literal('dashboards_reachable') }),
  /** The package was published through the gate. */
  z.strictObject({ kind: z.literal('published') }),
  /** The L3 probes report no error on the published app. */
  z.strictObject({ kind: z.literal('probes_clean') }),
  /** The build used at most `max` repair rounds. */
  z.strictObject({ kind: z.literal('rounds_at_most'), max: z.int().min(0) }),
  /**
   * None of these issues remains when the build ends (code and artifact, and path when given): an
   * incident that must never recur. The runner adds one for a defect set's `expect` on its own.
   */
  z.strictObject({ kind: z.literal('issues_absent'), issues: z.array(ExpectedIssueSchema).min(1) }),
  /**
   * Every widget the DOM sweep rendered shows the numbers its real dataset query returned (each
   * measure value of each row appears in the widget's cells): evidence that does not go through L2.
   */
  z.strictObject({ kind: z.literal('widgets_show_numbers') }),
  /**
   * Model-graded: a judge model (not the agent's) reads the prompt and the published app and says
   * whether `criterion` holds, with its reasoning. Ungraded when the run has no judge.
   */
  z.strictObject({ kind: z.literal('rubric'), id: RoleName, criterion: z.string().min(10).max(2000) }),
  /** The agent's intent review judged the app to serve the prompt. Ungraded for an agent that runs no review. */
  z.strictObject({ kind: z.literal('intent_review') }),
]);
/** One assertion of a golden case. */
export type Assertion = z.infer<typeof AssertionSchema>;
/** The kinds of assertion. */
export type AssertionKind = Assertion['kind'];

/** Who can repair a defect set: the deterministic fixer (every issue carries a safe patch) or only an agent. */
export const REPAIRERS = ['fixer', 'agent'] as const;

/** The outcome a defect set expects of an agent: most agents should repair it; one that cannot is expected to fail. */
export const EXPECTED_OUTCOMES = ['pass', 'fail'] as const;
/** An agent's name (as `bvl eval --agent` takes it). */
const AgentName = z.string().regex(/^[a-z][a-z0-9_-]*$/, 'must be an agent name (lowercase)');

/**
 * A named defect set: RFC 6902 operations on the blueprint's stack document, the issues
 * verification (and, for runtime codes, the probes after publish) must then report, and who can
 * repair it. `incident` is the ADR-0038 incident number, `defectClass` the row of defect-classes.md.
 */
export const DefectSetSchema = z
  .strictObject({
    description: z.string().min(10),
    incident: z.int().min(1).max(6).optional(),
    defectClass: z.int().min(1).optional(),
    ops: z.array(JsonPatchOpSchema).min(1),
    expect: z.array(ExpectedIssueSchema).min(1),
    repair: z.enum(REPAIRERS),
    /**
     * The outcome expected per agent (by name); an agent not named is expected to pass. The
     * blueprint agent repairs only through the fixer, so a set only a model can repair expects
     * `{"blueprint": "fail"}`: the summary counts that failure as expected, not as a regression.
     */
    expected: z.record(AgentName, z.enum(EXPECTED_OUTCOMES)).optional(),
  })
  .refine((d) => d.repair === 'agent' || d.expect.every((e) => !isCatalogueCode(e.code) || CATALOGUE[e.code].layer !== 'runtime'), {
    message: 'a runtime issue has no patch: a defect set that expects one is repaired by an agent, not the fixer',
    path: ['repair'],
  });
/** One defect set of a golden case. */
export type DefectSet = z.infer<typeof DefectSetSchema>;

/** Where a case recorded from a build session came from. */
export const OriginSchema = z.strictObject({
  session: z.string().min(1),
  tenant: z.string().min(1),
  package: z.string().min(1),
  /** When the case was recorded (ISO 8601). */
  recordedAt: z.string().min(1),
});
/** The session a case was recorded from. */
export type CaseOrigin = z.infer<typeof OriginSchema>;

/** `case.json`: everything of a golden case except its blueprint. */
export const CaseFileSchema = z
  .strictObject({
    name: KebabName,
    /** What a user would ask an agent to build. */
    prompt: z.string().min(20),
    /**
     * Prompt variants: the same goal worded otherwise (terse, detailed, …). A batch runs each as an
     * entry of its own for agents that read the prompt; `default` names `prompt` itself.
     */
    prompts: z
      .record(
        KebabName.refine((n) => n !== 'default', '"default" names the case\'s own prompt'),
        z.string().min(20),
      )
      .optional(),
    tags: z.array(KebabName),
    /** Repair rounds the agent may use. */
    maxRounds: z.int().min(0).max(20),
    /** What one attempt of a model agent may spend: its session's token, USD and wall-clock budgets (`bvl eval --budget-*` can only lower them). */
    budget: AttemptBudgetSchema.optional(),
    assertions: z.array(AssertionSchema).min(1),
    defects: z.record(KebabName, DefectSetSchema).default({}),
    /**
     * Set by `bvl eval add-case --from-session`: the case records a failed build session, and its
     * blueprint is the state that session left (the starting point), not a clean reference.
     */
    origin: OriginSchema.optional(),
  })
  .superRefine((c, ctx) => {
    if (c.origin && Object.keys(c.defects).length > 0)
      ctx.addIssue({
        code: 'custom',
        message:
          'a case recorded from a session has no reference blueprint, so no defect set can apply to one; drop "origin" once the blueprint is the reference',
        path: ['defects'],
      });
    const roles = new Map<string, Assertion['kind']>();
    c.assertions.forEach((a, i) => {
      if (!('role' in a)) return;
      if (roles.has(a.role)) ctx.addIssue({ code: 'custom', message: `role "${a.role}" is declared twice`, path: ['assertions', i, 'role'] });
      roles.set(a.role, a.kind);
    });
    const rubrics = new Set<string>();
    c.assertions.forEach((a, i) => {
      if (a.kind !== 'rubric') return;
      if (rubrics.has(a.id)) ctx.addIssue({ code: 'custom', message: `rubric "${a.id}" is declared twice`, path: ['assertions', i, 'id'] });
      rubrics.add(a.id);
    });
    const needs = (i: number, key: string, role: string | undefined, kind: Assertion['kind']) => {
      if (role !== undefined && roles.get(role) !== kind)
        ctx.addIssue({ code: 'custom', message: `"${role}" is not a role of a ${kind} assertion of this case`, path: ['assertions', i, key] });
    };
    c.assertions.forEach((a, i) => {
      if (a.kind === 'view_exists') needs(i, 'objectRole', a.objectRole, 'object_exists');
      if (a.kind === 'seeded_rows') needs(i, 'objectRole', a.objectRole, 'object_exists');
      if (a.kind === 'widgets_return_rows') needs(i, 'dashboardRole', a.dashboardRole, 'dashboard_exists');
    });
  });
/** The parsed `case.json`. */
export type CaseFile = z.infer<typeof CaseFileSchema>;

/** `blueprint.json`: an ObjectStack stack document whose artifact keys (objects, views, …) are arrays. */
export const BlueprintSchema = z.record(z.string(), z.unknown()).superRefine((doc, ctx) => {
  for (const [key] of STACK_KEYS)
    if (doc[key] !== undefined && !Array.isArray(doc[key])) ctx.addIssue({ code: 'custom', message: `"${key}" must be an array of artifacts`, path: [key] });
  if (!Array.isArray(doc.objects) || doc.objects.length === 0)
    ctx.addIssue({ code: 'custom', message: 'a blueprint declares at least one object', path: ['objects'] });
});
/** A blueprint stack document. */
export type Blueprint = Record<string, unknown>;
