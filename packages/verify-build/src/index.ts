export { type BuildCard, buildCard, type CardLayer, type CardProbes, type CardRound } from './build-card.ts';
export {
  decideRound,
  diffRound,
  type NextStep,
  type PastRound,
  type RoundDecision,
  type RoundDiff,
  type RoundInput,
  type RoundKind,
  repairRoundsOf,
} from './decide-round.ts';
export { draftHash } from './draft-hash.ts';
export { formatCardLine, formatCardText } from './format-card-text.ts';
export { renderCardHtml } from './render-card-html.ts';
export { type FixReport, fixDrafts, MAX_FIX_PASSES } from './run-fix-drafts.ts';
export { type ProbeSummary, type PublishBuildInput, type PublishBuildResult, publishBuild } from './run-publish-build.ts';
export {
  cancelSession,
  createSession,
  type ExternalStopReason,
  type FixChange,
  getSession,
  listRounds,
  listSessions,
  loadSession,
  type ReportedUsage,
  type RoundView,
  type SessionState,
  type SessionView,
  sessionOf,
  stopSession,
} from './run-session-store.ts';
export { cardProbes, cardSession, type VerifyBuildInput, type VerifyBuildResult, verifyBuild } from './run-verify-build.ts';
export {
  DEFAULT_MAX_ROUNDS,
  DEFAULT_NO_PROGRESS_ROUNDS,
  exceededBudget,
  MAX_MAX_ROUNDS,
  type SessionBounds,
  SessionBoundsSchema,
  type SessionUsage,
  STOP_REASONS,
  type StopReason,
} from './session-bounds.ts';
export { MAX_GOAL_LENGTH, SessionError } from './session-error.ts';
