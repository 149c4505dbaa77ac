import { ViewOptionsSchema } from '@bvl/verify-build';
import type OpenAI from 'openai';
import { z } from 'zod';

/** The artifact types the agent may write (reports and pages are navigation targets only). */
export const AGENT_ARTIFACT_TYPES = ['object', 'view', 'dashboard', 'dataset', 'app', 'seed'] as const;
export type AgentArtifactType = (typeof AGENT_ARTIFACT_TYPES)[number];

const Type = z.enum(AGENT_ARTIFACT_TYPES).describe('The artifact type.');
const Name = z.string().min(1).max(256).describe('The artifact name, as list_artifacts shows it (a view: <object>.<key>).');
const Slot = z.strictObject({ type: Type, name: Name });

/**
 * Every tool the agent has: its description and its input schema. The JSON schemas the model sees
 * are generated from these zod schemas, and the same schemas validate what the model sends.
 */
export const AGENT_TOOLS = {
  list_artifacts: {
    description: 'Lists the artifacts of the app (published and drafts), optionally of one type.',
    // Optional fields are nullable too: models often send null for "not given".
    input: z.strictObject({ type: Type.nullable().optional() }),
  },
  get_artifact: {
    description: 'Returns one artifact as stored in the stack format (a view as a view item {name, object, viewKind, config}).',
    input: Slot,
  },
  stage_draft: {
    description:
      'Stages one artifact as a draft, replacing any draft of the same name. body is the whole artifact in the stack format (a view: a container {list, listViews, formViews} named after its object, or a view item). Returns the issues bvl finds in it.',
    input: z.strictObject({
      type: Type,
      name: z.string().min(1).max(256).describe('The artifact name (a view container: its object name; a view item: <object>.<key>; a seed: its object name).'),
      body: z.looseObject({}).describe('The artifact body, a JSON object.'),
    }),
  },
  discard_draft: {
    description: 'Drops a draft (a view container: pass the object name to drop all its views).',
    input: Slot,
  },
  retire_artifact: {
    description: 'Stages the removal of a published artifact: references to it dangle until they are changed too; publish removes it.',
    input: Slot,
  },
  verify_build: {
    description:
      'Verifies every draft over the published app (structure and rendering; safe fixes are applied for you) and says what to do next: repair, publish, or stop. Errors come first, 20 at a time: more.cursor fetches the next page; codes, severity, layer and artifact filter.',
    // The view options every surface takes; optional fields are nullable too (models send null for "not given").
    input: z.strictObject(
      Object.fromEntries(Object.entries(ViewOptionsSchema.shape).map(([k, v]) => [k, v.unwrap().nullable().optional()])) as {
        [K in keyof typeof ViewOptionsSchema.shape]: z.ZodOptional<z.ZodNullable<ReturnType<(typeof ViewOptionsSchema.shape)[K]['unwrap']>>>;
      },
    ),
  },
  apply_fix: {
    description:
      'Applies the patches of issues by their patchId (from the latest verify_build or stage_draft answer), verified first; refused if the drafts changed since.',
    input: z.strictObject({ patches: z.array(z.string().min(1).max(100)).min(1).max(100).describe('patchId values.') }),
  },
  publish: {
    description: 'Publishes the drafts. Allowed only when the last verify_build said next: "publish" and nothing changed since.',
    input: z.strictObject({}),
  },
} as const satisfies Record<string, { readonly description: string; readonly input: z.ZodType }>;

export type AgentToolName = keyof typeof AGENT_TOOLS;
export const AGENT_TOOL_NAMES = Object.keys(AGENT_TOOLS) as AgentToolName[];

/** A tool's JSON schema as the model receives it (zod 4's generator, input side, no `$schema`). */
export function toolParameters(name: AgentToolName): Record<string, unknown> {
  const { $schema: _drop, ...schema } = z.toJSONSchema(AGENT_TOOLS[name].input, { io: 'input' }) as Record<string, unknown>;
  return schema;
}

/** The tool list of a chat completion request. */
export function toolDefinitions(): OpenAI.Chat.Completions.ChatCompletionTool[] {
  return AGENT_TOOL_NAMES.map((name) => ({
    type: 'function' as const,
    function: { name, description: AGENT_TOOLS[name].description, parameters: toolParameters(name) },
  }));
}

/** A tool call parsed and validated, or the error the model is told. */
export type ParsedCall =
  | { [K in AgentToolName]: { readonly ok: true; readonly name: K; readonly input: z.output<(typeof AGENT_TOOLS)[K]['input']> } }[AgentToolName]
  | { readonly ok: false; readonly error: string };

/** Longest argument string the agent reads (a whole app in one stage_draft is far below it). */
export const MAX_ARGUMENT_CHARS = 2_000_000;

/** Parses a tool call's name and JSON arguments against its schema; never throws. */
export function parseToolCall(name: string, args: string): ParsedCall {
  if (!Object.hasOwn(AGENT_TOOLS, name))
    return { ok: false, error: `unknown tool ${JSON.stringify(name.slice(0, 80))}; the tools are: ${AGENT_TOOL_NAMES.join(', ')}` };
  const tool = name as AgentToolName;
  if (args.length > MAX_ARGUMENT_CHARS)
    return { ok: false, error: `the arguments of ${tool} are ${args.length} characters, over the ${MAX_ARGUMENT_CHARS} limit` };
  let raw: unknown;
  try {
    raw = args.trim() === '' ? {} : JSON.parse(args);
  } catch (e) {
    return { ok: false, error: `the arguments of ${tool} are not valid JSON (${(e as Error).message}); send one JSON object` };
  }
  const parsed = AGENT_TOOLS[tool].input.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 5).map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`);
    return { ok: false, error: `invalid arguments for ${tool}: ${problems.join('; ')}` };
  }
  return { ok: true, name: tool, input: parsed.data } as ParsedCall;
}
