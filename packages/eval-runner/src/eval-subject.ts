import type { EvalAgent } from './eval-agent.ts';

/** What a batch runs its cases through: an agent, with the model behind it when it has one. A matrix has several. */
export interface EvalSubject {
  readonly agent: string;
  readonly model?: string | null | undefined;
  /** Where the model endpoint is (no credentials), for the record. */
  readonly endpoint?: string | null | undefined;
  /** False for an agent that does not read the prompt: it runs a case's default prompt only. */
  readonly readsPrompt?: boolean | undefined;
}

/** A subject's stable id, stored with each attempt: the agent, and `@model` when it has one (agent names hold no `@`). */
export const subjectId = (s: Pick<EvalSubject, 'agent' | 'model'>): string => (s.model ? `${s.agent}@${s.model}` : s.agent);

/** The subject an agent under test is. */
export function subjectOf(agent: EvalAgent): EvalSubject {
  return {
    agent: agent.name,
    model: agent.model ?? null,
    endpoint: agent.endpoint ?? null,
    ...(agent.readsPrompt === false ? { readsPrompt: false } : {}),
  };
}

/** The agent of a subject id. */
export const agentOfSubject = (id: string): string => id.split('@', 1)[0]!;
