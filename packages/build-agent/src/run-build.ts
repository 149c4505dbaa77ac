import { type BuildIssue, sortIssues } from '@bvl/build-issue';
import { mergeOverlay } from '@bvl/metadata';
import { latestProbeResult, overlayOf, type PackageScope, type PlatformContext, readOverlayRows } from '@bvl/platform';
import {
  AnswerError,
  type BuildCard,
  buildCard,
  cancelSession,
  cardProbes,
  createSession,
  exceededBudget,
  listRounds,
  type NextStep,
  type PublishBuildResult,
  publishBuild,
  recordReview,
  resumeSession,
  type SessionView,
  type StopReason,
  stopSession,
  type VerifyBuildResult,
  verifyBuild,
} from '@bvl/verify-build';
import type OpenAI from 'openai';
import type { AgentClient } from './agent-client.ts';
import { type AgentToolName, type ParsedCall, parseToolCall, toolDefinitions } from './agent-tools.ts';
import { type BuildBounds, BuildSetupError, estimateTokens, MAX_IDLE_INTERVENTIONS, reserveCall, splitBounds } from './build-bounds.ts';
import { buildSummary } from './build-summary.ts';
import { condenseConversation } from './condense-conversation.ts';
import { reviewFailedIssue } from './intent-review.ts';
import { publishForModel, toolJson, verifyForModel } from './model-view.ts';
import { ModelCallError, type RetryNotice, runChat } from './run-chat.ts';
import { type IntentReview, reviewIntent } from './run-intent-review.ts';
import { openingMessage } from './run-opening-message.ts';
import { applyPatches, discardDraft, getArtifact, listArtifacts, retireArtifact, stageDraft, type ToolAnswer } from './run-store-tool.ts';
import { systemPrompt } from './system-prompt.ts';
import { TranscriptRecorder } from './transcript-recorder.ts';
import { type AgentUsage, UsageMeter } from './usage-meter.ts';

/** What the agent reports as it goes (the CLI prints a line per round on a TTY). */
export type BuildProgress =
  | {
      readonly kind: 'round';
      readonly round: number;
      readonly roundKind: 'verify' | 'publish';
      readonly errors: number;
      readonly warnings: number;
      readonly fixed: number;
      readonly autoFixed: number;
      readonly next: NextStep;
      readonly stopReason?: string | undefined;
    }
  | ({ readonly kind: 'retry' } & RetryNotice)
  | { readonly kind: 'review'; readonly verdict: IntentReview['verdict']; readonly warnings: number };

/** What {@link runBuild} is given. */
export interface RunBuildInput {
  readonly platform: PlatformContext;
  readonly scope: PackageScope;
  /** The user's goal; it becomes the session's goal. */
  readonly prompt: string;
  readonly client: AgentClient;
  readonly bounds?: BuildBounds | undefined;
  /** Aborting ends the session as `cancelled`; the build stays as it is. */
  readonly signal?: AbortSignal | undefined;
  readonly onProgress?: ((event: BuildProgress) => void) | undefined;
  /** Run the intent review after a clean publish (default true). */
  readonly review?: boolean | undefined;
  /**
   * Resume this session (an interrupted or cancelled build) instead of starting one: it goes on
   * within what is left of its bounds, from the drafts as they are; `prompt` may be empty (the
   * session's goal is used).
   */
  readonly resume?: string | undefined;
  /** The model that judges the intent review (default `client`, the builder's). */
  readonly judge?: AgentClient | undefined;
}

/** How a build ended. */
export interface BuildResult {
  /** Ended clean (published, no error in any layer). */
  readonly ok: boolean;
  /** A publish committed during this build. */
  readonly published: boolean;
  readonly session: SessionView;
  readonly stopReason: StopReason | null;
  /** How it ended and what remains, in a sentence. */
  readonly summary: string;
  /** Every issue of the build as it ended (L1+L2 over the drafts, the latest L3, the intent review). */
  readonly issues: BuildIssue[];
  readonly card: BuildCard;
  readonly usage: AgentUsage;
  readonly review?: IntentReview['verdict'] | undefined;
  /** The intent review's spend, counted apart from the build's `usage` (by its judge model's price). */
  readonly reviewUsage?: IntentReview['usage'] | undefined;
  /** Set when the build could not go on (the model endpoint failed for good). */
  readonly error?: string | undefined;
  /** With `error`: the HTTP status the endpoint last answered, when it answered one (429: rate limited). */
  readonly errorStatus?: number | undefined;
  /** The build ended clean, but the turn that made it clean spent past a budget: by how much. */
  readonly overrun?: string | undefined;
  /** What went wrong beside the build without stopping it (a transcript that could not be stored). */
  readonly warnings: readonly string[];
}

type Messages = OpenAI.Chat.Completions.ChatCompletionMessageParam[];

/**
 * The built-in agent: a build session for `prompt`, then model turns over an OpenAI-compatible
 * endpoint with the tools list_artifacts, get_artifact, stage_draft, discard_draft,
 * retire_artifact, verify_build and publish — every write through the draft store, every check
 * through verifyBuild, every publish through publishBuild. The session decides: when verify_build
 * says stop the agent stops, and it publishes only when verify says publish. Its own loop is
 * bounded too: a round gets `maxTurnsPerRound` model turns, then bvl verifies for the agent (and
 * publishes when verify says so); {@link MAX_IDLE_INTERVENTIONS} such interventions that change
 * nothing stop the session as `no_progress`; a budget spent between rounds stops it as `budget`;
 * an abort as `cancelled`; an endpoint that fails after its retries as `endpoint_error`. Budgets
 * are reserved before each model call: its `max_tokens` is what the token and USD budgets leave
 * after the prompt, and the wall-clock budget cuts a call in flight off; a turn that makes the
 * build clean still publishes when it crossed a budget (the overrun is reported). A clean publish
 * is followed by the intent review. Never reports as published what was not.
 */
export async function runBuild(input: RunBuildInput): Promise<BuildResult> {
  const { platform, scope, client, signal } = input;
  const { maxTurnsPerRound, sessionBounds } = splitBounds(input.bounds, client);
  signal?.throwIfAborted();
  let session = input.resume
    ? await resumeSession(platform, { tenant: scope.tenant, id: input.resume })
    : await createSession(platform, { ...scope, goal: input.prompt, bounds: sessionBounds });
  if (session.package !== scope.package)
    throw new BuildSetupError(`session ${session.id} builds package ${JSON.stringify(session.package)}, not ${JSON.stringify(scope.package)}`);
  const goal = input.resume ? session.goal : input.prompt;
  const meter = new UsageMeter(client.price);
  const onRetry = (n: RetryNotice) => {
    meter.retries++;
    input.onProgress?.({ kind: 'retry', ...n });
  };
  const ref = { tenant: scope.tenant, id: session.id };
  const transcript = new TranscriptRecorder(platform, { tenant: scope.tenant, session: session.id }, secretsOf(client, input.judge));
  let next: NextStep = 'repair';
  let dirty = true;
  let published = false;
  let roundTurns = 0;
  let idle = 0;
  let seenRounds = session.rounds;
  let stopWhy: string | undefined;
  let error: string | undefined;
  let errorStatus: number | undefined;

  /** Takes in a session answer: reports the rounds it recorded, resets the round's turn count. */
  const took = (s: SessionView | null, card: BuildCard | undefined) => {
    if (!s) return;
    session = s;
    next = s.next;
    if (s.rounds <= seenRounds) return;
    idle = 0;
    roundTurns = 0;
    for (const r of card?.session?.rounds.slice(seenRounds) ?? [])
      input.onProgress?.({
        kind: 'round',
        round: r.round,
        roundKind: r.kind,
        errors: r.errors,
        warnings: r.warnings,
        fixed: r.fixed,
        autoFixed: r.autoFixed,
        next: r.round === s.rounds - 1 ? s.next : 'repair',
        stopReason: r.stopReason,
      });
    seenRounds = s.rounds;
  };
  const lastWhy = async () => (await listRounds(platform, ref)).at(-1)?.why;
  const verifyNow = async (): Promise<VerifyBuildResult> => {
    const r = await verifyBuild(platform, { ...scope, session: session.id, usage: meter.take() });
    dirty = false;
    took(r.session, r.card);
    return r;
  };
  const publishNow = async (): Promise<PublishBuildResult> => {
    const r = await publishBuild(platform, { ...scope, session: session.id, usage: meter.take() });
    if (r.published) {
      published = true;
      dirty = false;
    }
    took(r.session, r.card);
    return r;
  };

  const store = (call: Extract<ParsedCall, { ok: true }>): Promise<ToolAnswer> => {
    switch (call.name) {
      case 'list_artifacts':
        return listArtifacts(platform, scope, call.input.type);
      case 'get_artifact':
        return getArtifact(platform, scope, call.input.type, call.input.name);
      case 'stage_draft':
        return stageDraft(platform, scope, call.input);
      case 'discard_draft':
        return discardDraft(platform, scope, call.input.type, call.input.name);
      case 'retire_artifact':
        return retireArtifact(platform, scope, call.input.type, call.input.name);
      case 'apply_fix':
        return applyPatches(platform, scope, call.input.patches);
      case 'verify_build':
        return verifyNow().then((r) => ({ content: verifyForModel(r, call.input) }));
      case 'publish':
        if (dirty)
          return Promise.resolve({ content: { error: 'drafts changed since the last verify_build (or none ran): call verify_build first' }, error: true });
        if (next !== 'publish')
          return Promise.resolve({ content: { error: `verify_build says next: "${next}"; publish only when it says "publish"` }, error: true });
        return publishNow().then((r) => ({ content: publishForModel(r) }));
    }
  };
  /** Answers one tool call; a bad call or a failing tool is a tool error for the model, never a crash. */
  const answer = async (name: string, args: string): Promise<string> => {
    const parsed = parseToolCall(name, args);
    if (!parsed.ok) return toolJson({ error: parsed.error });
    try {
      const a = await store(parsed);
      if (a.changed) dirty = true;
      return toolJson(a.content);
    } catch (e) {
      if (signal?.aborted) throw e;
      // A caller's mistake in what it asked of an answer (an unknown code, another answer's cursor) names each problem.
      const problems = e instanceof AnswerError ? e.problems.map((p) => `${p.path}: ${p.message}`) : [];
      return toolJson({
        error: `${parsed.name satisfies AgentToolName} failed: ${(e as Error)?.message ?? String(e)}`,
        ...(problems.length ? { problems } : {}),
      });
    }
  };

  const messages: Messages = [{ role: 'system', content: systemPrompt() }];
  /** The agent ended its turn, or used up the round's turns: bvl verifies (and publishes) for it. */
  const intervene = async (reason: string) => {
    const before = session.rounds;
    const v = await verifyNow();
    let told = `${reason}, so bvl ran verify_build for you: ${toolJson(verifyForModel(v))}`;
    if (session.status === 'open' && next === 'publish')
      told = `${reason}; verify_build said publish, so bvl published for you: ${toolJson(publishForModel(await publishNow()))}`;
    if (session.status !== 'open') return;
    const content = `${told}\nRepair what is left, then call verify_build.`;
    messages.push({ role: 'user', content });
    await transcript.record({ role: 'user', content });
    roundTurns = 0;
    if (session.rounds === before && ++idle >= MAX_IDLE_INTERVENTIONS) {
      stopWhy = `the agent changed nothing in ${idle} round(s) of turns`;
      session = await stopSession(platform, { ...ref, reason: 'no_progress' });
    }
  };
  /**
   * A budget spent between rounds: report the usage (a changed draft set records the stopping
   * round; one that is clean goes on to publish, over budget or not), else stop here.
   */
  const stopForBudget = async (spent: string) => {
    await verifyNow();
    if (session.status === 'open' && next === 'publish' && !dirty) await publishNow();
    if (session.status !== 'open') return;
    stopWhy = `the session's budget is spent (${spent})`;
    session = await stopSession(platform, { ...ref, reason: 'budget' });
  };
  const elapsedMs = () => platform.now().getTime() - Date.parse(session.createdAt);
  const checkBudget = async () => {
    const spent = exceededBudget(session.bounds, { ...meter.usage, elapsedMs: elapsedMs() });
    if (spent) await stopForBudget(spent);
  };
  /** The prompt's size as the endpoint last counted it, and the characters it had then: the next prompt is estimated from it. */
  let lastPrompt: { tokens: number; chars: number } | undefined;
  /** The wall-clock budget as a signal: a call still in flight when it runs out is cut off. */
  const deadline = session.bounds.budgetMs !== undefined ? AbortSignal.timeout(Math.max(1, session.bounds.budgetMs - elapsedMs())) : undefined;
  const callSignal = signal && deadline ? AbortSignal.any([signal, deadline]) : (signal ?? deadline);

  try {
    const resumed = input.resume
      ? `\n\nResumed: this build was interrupted after ${session.rounds} round(s); the drafts hold its work so far. Call verify_build to see what is left.`
      : '';
    const opening = (await openingMessage(platform, scope, goal, session)) + resumed;
    messages.push({ role: 'user', content: opening });
    await transcript.record({
      role: 'system',
      content: `the system prompt: ${messages[0]!.content?.length} characters (role, workflow and the stack format reference)`,
    });
    await transcript.record({ role: 'user', content: opening });
    const tools = toolDefinitions();
    // The reference is sent until the first round is recorded; after it, the role and workflow alone.
    const shortPrompt = systemPrompt({ reference: false });
    while (session.status === 'open') {
      signal?.throwIfAborted();
      if (roundTurns >= maxTurnsPerRound) {
        await intervene(`You used the ${maxTurnsPerRound} model turns of this round`);
        continue;
      }
      const started = Date.now();
      const retriedBefore = meter.retries;
      // What is sent: the conversation condensed (old tool results cut, the reference once); the whole of it is kept for the transcript.
      const sent = condenseConversation(messages, session.rounds > 0 ? { system: shortPrompt } : {});
      const chars = JSON.stringify([sent, tools]).length;
      const prompt = lastPrompt ? lastPrompt.tokens + Math.ceil(Math.max(0, chars - lastPrompt.chars) / 4) : estimateTokens([sent, tools]);
      const reserved = reserveCall(session.bounds, meter.usage, prompt, client.price);
      if (!reserved.ok) {
        await stopForBudget(reserved.spent);
        continue;
      }
      const completion = await runChat(
        client,
        { messages: sent, tools, tool_choice: 'auto', ...(reserved.maxTokens !== undefined ? { max_tokens: reserved.maxTokens } : {}) },
        { signal: callSignal, onRetry },
      );
      const ms = Date.now() - started;
      meter.turns++;
      roundTurns++;
      meter.add(completion.usage);
      if (completion.usage?.prompt_tokens) lastPrompt = { tokens: completion.usage.prompt_tokens, chars };
      const msg = completion.choices[0]?.message;
      if (!msg) throw new ModelCallError(`the model endpoint ${client.endpoint} answered no choice`);
      const calls = normalizeCalls(msg.tool_calls, meter.turns);
      messages.push({ role: 'assistant', content: msg.content ?? (calls.length ? null : ''), ...(calls.length ? { tool_calls: calls } : {}) });
      const turn = {
        role: 'assistant' as const,
        content: msg.content ?? null,
        tokensIn: completion.usage?.prompt_tokens,
        tokensOut: completion.usage?.completion_tokens,
        tokensCached: completion.usage?.prompt_tokens_details?.cached_tokens,
        tokensReasoning: completion.usage?.completion_tokens_details?.reasoning_tokens,
        retries: meter.retries - retriedBefore,
        ms,
      };
      if (calls.length === 0) {
        await transcript.record(turn);
        await intervene('You ended your turn without a tool call');
      }
      const answered: Array<{ id: string; name: string; arguments: string; result: string | null }> = [];
      try {
        for (const call of calls) {
          const result = await answer(call.function.name, call.function.arguments);
          answered.push({ id: call.id, name: call.function.name, arguments: call.function.arguments, result });
          messages.push({ role: 'tool', tool_call_id: call.id, content: result });
          if (session.status !== 'open') break;
        }
      } finally {
        if (calls.length)
          await transcript.record({
            ...turn,
            toolCalls: [
              ...answered,
              ...calls.slice(answered.length).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments, result: null })),
            ],
          });
      }
      if (session.status === 'open') await checkBudget();
    }
  } catch (e) {
    if (signal?.aborted) {
      stopWhy = 'the build was cancelled';
      session = await cancelSession(platform, ref);
    } else if (deadline?.aborted) {
      stopWhy = `the session's budget is spent (wall clock ${elapsedMs()} ms > ${session.bounds.budgetMs} ms, a model call was cut off)`;
      session = await stopSession(platform, { ...ref, reason: 'budget' });
    } else if (e instanceof ModelCallError) {
      error = e.message;
      errorStatus = e.status;
      stopWhy = error;
      session = await stopSession(platform, { ...ref, reason: 'endpoint_error' });
    } else {
      await cancelSession(platform, ref).catch(() => undefined);
      throw e;
    }
  }
  return finish();

  async function finish(): Promise<BuildResult> {
    let review: IntentReview | undefined;
    let reviewWarning: string | undefined;
    if (session.stopReason === 'clean' && published && input.review !== false && !signal?.aborted) {
      const rows = (await readOverlayRows(platform.db, scope.tenant, scope.package)).filter((r) => r.package === scope.package);
      const overlay = overlayOf(rows, scope.package);
      const artifacts = [...mergeOverlay(overlay.published.artifacts, overlay.drafts.artifacts).merged.values()];
      // Only an abort escapes the review; a cancelled review still leaves its one warning.
      const judge = input.judge ?? client;
      const reviewStarted = Date.now();
      review = await reviewIntent({ client: judge, goal, artifacts, fallbackName: scope.package, signal, onRetry }).catch(
        (): IntentReview => ({
          verdict: 'failed',
          issues: [reviewFailedIssue('the review was cancelled', artifacts, scope.package)],
          usage: { tokensIn: 0, tokensOut: 0, costUsd: 0 },
        }),
      );
      await transcript.record({
        stage: 'review',
        role: 'assistant',
        content: JSON.stringify({ judge: judge.model, verdict: review.verdict, findings: review.issues.map((i) => i.message) }),
        tokensIn: review.usage.tokensIn,
        tokensOut: review.usage.tokensOut,
        ms: Date.now() - reviewStarted,
      });
      await recordReview(platform, ref, { judge: judge.model, ...review }).catch((e: unknown) => {
        reviewWarning = `the intent review's verdict could not be stored with the round: ${(e as Error)?.message ?? String(e)}`;
      });
      input.onProgress?.({ kind: 'review', verdict: review.verdict, warnings: review.issues.length });
    }
    // A stopped session records nothing more: this reads what remains (and reports the last usage).
    const final = await verifyBuild(platform, { ...scope, session: session.id, usage: meter.take() });
    session = final.session ?? session;
    const intent = review?.issues ?? [];
    const issues = sortIssues([...final.issues, ...intent]);
    const card = intent.length
      ? buildCard({
          issues: [...final.issues.filter((i) => i.layer === 'graph' || i.layer === 'render'), ...intent],
          checked: final.checked,
          probes: cardProbes(await latestProbeResult(platform, scope)),
          session: final.card.session,
        })
      : final.card;
    const why = stopWhy ?? (await lastWhy()) ?? '';
    const over = session.stopReason === 'clean' ? exceededBudget(session.bounds, { ...meter.usage, elapsedMs: elapsedMs() }) : undefined;
    const warnings = [transcript.warning, reviewWarning].filter((w): w is string => w !== undefined);
    return {
      ok: session.stopReason === 'clean' && !issues.some((i) => i.severity === 'error'),
      published,
      session,
      stopReason: session.stopReason,
      summary: buildSummary({ stopReason: session.stopReason, why, published, rounds: session.rounds, issues, error, overrun: over, warnings }),
      issues,
      card,
      usage: meter.usage,
      ...(review ? { review: review.verdict, reviewUsage: review.usage } : {}),
      ...(error ? { error } : {}),
      ...(errorStatus !== undefined ? { errorStatus } : {}),
      ...(over ? { overrun: over } : {}),
      warnings,
    };
  }
}

/** The endpoints' API keys, redacted from the transcript by value (beside everything shaped like a secret). */
function secretsOf(...clients: ReadonlyArray<AgentClient | undefined>): string[] {
  return clients.flatMap((c) => {
    const key = c?.openai.apiKey;
    return typeof key === 'string' && key !== 'none' ? [key] : [];
  });
}

type FunctionCall = OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;

/**
 * The model's tool calls as the loop answers them, whatever the endpoint sent: every call gets an
 * id (the answer must name it), a string name, and JSON-text arguments (some endpoints send an
 * object); a non-function call keeps its kind as its name, so it is answered as an unknown tool.
 */
function normalizeCalls(raw: unknown, turn: number): FunctionCall[] {
  if (!Array.isArray(raw)) return [];
  const rec = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});
  return raw.map((item, i): FunctionCall => {
    const c = rec(item);
    const fn = c.type === 'function' || c.function !== undefined ? rec(c.function) : undefined;
    const args = fn?.arguments;
    return {
      id: typeof c.id === 'string' && c.id !== '' ? c.id : `call_${turn}_${i}`,
      type: 'function',
      function: {
        name: fn ? String(fn.name ?? '') : `${String(c.type ?? 'unknown')} tool`,
        arguments: typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args),
      },
    };
  });
}
