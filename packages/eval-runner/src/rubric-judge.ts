import { z } from 'zod';
import type { RubricVerdict } from './evidence.ts';
import type { AppSummary } from './summarize-graph.ts';

/** What a judge reads for one rubric assertion: the user's goal, the criterion, and the app as published. */
export interface RubricInput {
  /** What the agent was asked. */
  readonly prompt: string;
  readonly criterion: string;
  readonly app: AppSummary;
  /** Rows per object after publish. */
  readonly rowCounts: Readonly<Record<string, number>>;
  /** Rows each widget's real query returned, by `dashboard.widget`. */
  readonly widgetRows: Readonly<Record<string, number>>;
}

/**
 * A judge model for rubric assertions — not the agent's model: a port the composition root fills
 * (an OpenAI-compatible endpoint, see openaiJudge). It throws when it cannot judge (the endpoint
 * failed for good): the attempt is then `error`, never a verdict.
 */
export interface RubricJudge {
  readonly model: string;
  judge(input: RubricInput, signal: AbortSignal): Promise<RubricVerdict>;
}

/** The judge's answer: a verdict and why. */
export const JudgeAnswerSchema = z.strictObject({
  verdict: z.enum(['pass', 'fail']),
  reasoning: z.string().min(1).max(4000),
});
export type JudgeAnswer = z.infer<typeof JudgeAnswerSchema>;

/** The judge's instructions: it grades one criterion against the app, and nothing else. */
export const JUDGE_INSTRUCTIONS = [
  'You grade an app built in the ObjectStack metadata format against one criterion.',
  'You see the goal its user stated, the criterion, and a digest of the app as published: objects (with their field counts), views, dashboards with their widgets, navigation, rows per object and rows each widget query returned.',
  'Answer verdict "pass" only when the app as published meets the criterion; otherwise "fail".',
  'Reasoning: two or three sentences naming the artifacts that decide it.',
].join(' ');

/** The user message the judge reads (pure: the same input gives the same text, so a cassette replays it). */
export function judgeMessage(input: RubricInput): string {
  return [
    `Goal: ${input.prompt}`,
    `Criterion: ${input.criterion}`,
    '',
    'The app as published:',
    JSON.stringify({ ...input.app, rowCounts: input.rowCounts, widgetRows: input.widgetRows }),
  ].join('\n');
}
