import { collectStack } from '@bvl/metadata';
import { stageDrafts } from '@bvl/platform';
import { createSession, publishBuild, verifyBuild } from '@bvl/verify-build';
import { type EvalAgent, type EvalAgentInput, type EvalAgentResult, NO_USAGE } from './eval-agent.ts';

/**
 * Steps the blueprint agent takes at most (verify or publish calls). A clean build takes two
 * (verify, publish); the session's own bounds stop it long before this in any other case.
 */
export const BLUEPRINT_AGENT_MAX_STEPS = 12;

/**
 * The deterministic agent: stages the attempt's starting stack (the blueprint, with the defect set
 * applied), then repairs only through verify_build in a session — whose first act is the safe
 * fixer — and publishes when verify says `publish`. When verify asks for a repair the fixer could
 * not make, it has nothing else to try and stops, leaving the build as it is: the runner then
 * grades what remains, so an unrepaired defect is a `fail` with its issues, never hidden. No model,
 * so the golden suite runs in CI.
 */
export function blueprintAgent(): EvalAgent {
  return {
    name: 'blueprint',
    readsPrompt: false,
    async run({ platform, scope, case: c, signal }: EvalAgentInput): Promise<EvalAgentResult> {
      signal.throwIfAborted();
      await stageDrafts(platform, scope, collectStack(c.start, { draft: true }));
      const session = await createSession(platform, { ...scope, goal: c.prompt, bounds: { maxRounds: c.maxRounds } });
      const done = (stopped?: string): EvalAgentResult => ({ sessionId: session.id, usage: NO_USAGE, ...(stopped ? { stopped } : {}) });
      for (let step = 0; step < BLUEPRINT_AGENT_MAX_STEPS; step++) {
        signal.throwIfAborted();
        const v = await verifyBuild(platform, { ...scope, session: session.id });
        const next = v.session?.next ?? 'stop';
        if (next === 'stop') return done();
        if (next === 'publish') {
          signal.throwIfAborted();
          const p = await publishBuild(platform, { ...scope, session: session.id });
          if (!p.published || p.session?.next !== 'repair') return done(p.published ? undefined : `publish ${p.outcome}`);
          continue; // L3 re-opened the session: verify again (the fixer may find something now)
        }
        // `repair`: the fixer ran inside verify_build; when it changed nothing there is nothing left to try.
        if (v.fixes.length === 0) return done('nothing_to_fix');
      }
      return done('max_steps');
    },
  };
}
