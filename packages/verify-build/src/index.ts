export {
  answerPublish,
  answerVerify,
  type MaskedIssue,
  type PublishAnswer,
  type RoundBrief,
  remainingOf,
  type SessionBrief,
  type SessionRemaining,
  sessionBrief,
  type VerifyAnswer,
} from './answer-verify.ts';
export {
  type AnswerIssue,
  type CardView,
  cardView,
  compactIssue,
  type FullAnswerIssue,
  fullIssue,
  type IssuePage,
  idLookup,
  MAX_UNLISTED_ARTIFACTS,
  type MoreIssues,
  pageIssues,
  type UnlistedErrors,
} from './answer-view.ts';
export {
  boundTurn,
  CONDENSED_CHARS,
  MAX_ARGUMENT_CHARS,
  MAX_CONTENT_CHARS,
  MAX_RESULT_CHARS,
  MAX_TRANSCRIPT_CHARS,
  type TranscriptRole,
  type TranscriptStage,
  type TranscriptToolCall,
  type TurnToRecord,
} from './bound-turn.ts';
export { type BuildCard, buildCard, type CardLayer, type CardProbes, type CardRound } from './build-card.ts';
export {
  decideRound,
  diffRound,
  MAX_WHY_ISSUES,
  type NextStep,
  oscillationWhy,
  type PastRound,
  type RoundDecision,
  type RoundDiff,
  type RoundInput,
  type RoundKind,
  repairRoundsOf,
} from './decide-round.ts';
export { draftHash } from './draft-hash.ts';
export { formatCardLine, formatCardText } from './format-card-text.ts';
export { type ChosenPatch, choosePatches, issueIds, issueOfPatchId, MAX_PATCHES, patchIdOf } from './issue-ids.ts';
export { MASKS, maskerOf, masks, masksOf } from './mask-issues.ts';
export { type PatchedArtifacts, patchArtifacts } from './patch-artifacts.ts';
export { REDACTED, redactSecrets } from './redact-secrets.ts';
export { renderCardHtml } from './render-card-html.ts';
export { type ApplyFixInput, type ApplyFixResult, applyFix } from './run-apply-fix.ts';
export { type FixReport, fixDrafts, MAX_FIX_PASSES } from './run-fix-drafts.ts';
export { type ProbeSummary, type PublishBuildInput, type PublishBuildResult, publishBuild } from './run-publish-build.ts';
export { resumeSession } from './run-resume-session.ts';
export { recordReview, type StageUsage, type StoredReview, sessionReviews } from './run-review-store.ts';
export {
  cancelSession,
  createSession,
  type ExternalStopReason,
  expireSessions,
  type FixChange,
  getSession,
  lastRoundIssues,
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
export { getTenantPolicy, type PolicyView, putTenantPolicy } from './run-tenant-policy.ts';
export { appendTurn, readTranscript, type TranscriptRef, type TranscriptTurnView } from './run-transcript-store.ts';
export { cardProbes, cardSession, issueLabels, maskedSince, type VerifyBuildInput, type VerifyBuildResult, verifyBuild } from './run-verify-build.ts';
export {
  DEFAULT_IDLE_MS,
  DEFAULT_MAX_ROUNDS,
  DEFAULT_NO_PROGRESS_ROUNDS,
  exceededBudget,
  MAX_IDLE_MS,
  MAX_MAX_ROUNDS,
  type SessionBounds,
  SessionBoundsSchema,
  type SessionUsage,
  STOP_REASONS,
  type StopReason,
} from './session-bounds.ts';
export { MAX_GOAL_LENGTH, SessionError } from './session-error.ts';
export {
  type BoundsDecision,
  DEFAULT_POLICY,
  decideBounds,
  type EffectivePolicy,
  effectivePolicy,
  loosenings,
  MAX_WINDOW_MS,
  type PolicyBounds,
  PolicyBoundsSchema,
  type TenantPolicy,
  TenantPolicySchema,
  type WindowUse,
} from './tenant-policy.ts';
export {
  AnswerError,
  type AnswerProblem,
  DEFAULT_SUMMARY_LIMIT,
  DETAILS,
  type Detail,
  encodeCursor,
  filtersOf,
  MAX_FILTER_CODES,
  MAX_LIMIT,
  resolvePage,
  type ViewFilters,
  type ViewOptions,
  ViewOptionsSchema,
  versionTag,
} from './view-options.ts';
