import { type BuildIssue, makeIssue } from '@bvl/build-issue';
import { ARTIFACT_TYPES, type RawArtifact } from '@bvl/metadata';
import { z } from 'zod';

/** What the review model answers (a structured output; every field required, as strict JSON schemas need). */
export const IntentReviewSchema = z.strictObject({
  verdict: z.enum(['pass', 'mismatch']).describe('pass when the app serves the goal, mismatch when something the goal needs is missing or wrong'),
  findings: z
    .array(
      z.strictObject({
        artifact: z.strictObject({ type: z.enum(ARTIFACT_TYPES), name: z.string() }).describe('the artifact at fault, or the one that should exist'),
        problem: z.string().describe('what about it does not serve the goal'),
        fix: z.string().nullable().describe('what to change, or null'),
      }),
    )
    .describe('one entry per gap between the app and the goal; empty when the verdict is pass'),
});
export type IntentReviewAnswer = z.output<typeof IntentReviewSchema>;

/** Findings turned into warnings at most (a review is advice, not a gate). */
export const MAX_INTENT_FINDINGS = 20;
/** Characters of app summary the review reads at most. */
export const MAX_APP_SUMMARY_CHARS = 40_000;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const names = (v: unknown, key = 'name'): string[] =>
  Array.isArray(v) ? v.flatMap((x) => (typeof x === 'string' ? [x] : isRecord(x) && typeof x[key] === 'string' ? [x[key] as string] : [])) : [];

/** What the review needs to know of one artifact: its shape, not its every key. */
function digest(a: RawArtifact): Record<string, unknown> {
  const b = isRecord(a.body) ? a.body : {};
  switch (a.type) {
    case 'object':
      return {
        label: b.label,
        fields: isRecord(b.fields)
          ? Object.fromEntries(Object.entries(b.fields).map(([k, f]) => [k, isRecord(f) ? [f.type, f.reference].filter(Boolean).join(' → ') : '?']))
          : {},
      };
    case 'view':
      return { object: a.object, kind: a.viewKind, type: b.type, label: b.label, columns: names(b.columns, 'field') };
    case 'dataset':
      return { object: b.object ?? b.source, dimensions: names(b.dimensions), measures: names(b.measures) };
    case 'dashboard':
      return {
        label: b.label,
        widgets: Array.isArray(b.widgets)
          ? b.widgets.filter(isRecord).map((w) => ({ id: w.id, type: w.type, title: w.title, dataset: w.dataset, dimensions: w.dimensions, values: w.values }))
          : [],
      };
    case 'app':
      return { label: b.label, navigation: b.navigation };
    case 'seed':
      return { object: b.object, records: Array.isArray(b.records) ? b.records.length : 0 };
    case 'report':
    case 'page':
      return { label: b.label };
    case 'permission':
      return { label: b.label, objects: isRecord(b.objects) ? Object.keys(b.objects) : [] };
    case 'sharing_rule':
      return { object: b.object, accessLevel: b.accessLevel };
  }
}

/** The app as the reviewer reads it: every artifact's digest, as JSON, cut at MAX_APP_SUMMARY_CHARS. Pure. */
export function summarizeApp(artifacts: readonly RawArtifact[]): string {
  const sorted = [...artifacts].sort((x, y) => (x.type === y.type ? (x.name < y.name ? -1 : 1) : x.type < y.type ? -1 : 1));
  const text = JSON.stringify(sorted.map((a) => ({ type: a.type, name: a.name, ...digest(a) })));
  return text.length > MAX_APP_SUMMARY_CHARS ? `${text.slice(0, MAX_APP_SUMMARY_CHARS)} … (cut: the app is larger)` : text;
}

/** The artifact a review-wide warning names: the app, else the first object, else the package. */
export function reviewSubject(artifacts: readonly RawArtifact[], fallback: string): { type: string; name: string } {
  const a = artifacts.find((x) => x.type === 'app') ?? artifacts.find((x) => x.type === 'object');
  return a ? { type: a.type, name: a.name } : { type: 'app', name: fallback };
}

const quote = (goal: string) => JSON.stringify(goal.length > 120 ? `${goal.slice(0, 117)}…` : goal);

/** The review's answer as `intent_mismatch` warnings naming the artifact. Pure. */
export function reviewIssues(answer: IntentReviewAnswer, goal: string, artifacts: readonly RawArtifact[], fallback: string): BuildIssue[] {
  const present = new Set(artifacts.map((a) => `${a.type}\u0000${a.name}`));
  const issues = answer.findings.slice(0, MAX_INTENT_FINDINGS).map((f) =>
    makeIssue({
      code: 'intent_mismatch',
      artifact: f.artifact,
      message: `Against the goal ${quote(goal)}, ${f.artifact.type} "${f.artifact.name}"${present.has(`${f.artifact.type}\u0000${f.artifact.name}`) ? '' : ' (not in the app)'}: ${f.problem}`,
      ...(f.fix ? { fix: f.fix } : {}),
    }),
  );
  if (answer.verdict === 'mismatch' && issues.length === 0)
    issues.push(
      makeIssue({
        code: 'intent_mismatch',
        artifact: reviewSubject(artifacts, fallback),
        message: `The intent review judged the app a mismatch for the goal ${quote(goal)} but named no artifact.`,
        fix: 'Compare the app with the goal by hand.',
      }),
    );
  return issues;
}

/** The one warning a review that could not judge the app leaves (never silence). */
export function reviewFailedIssue(why: string, artifacts: readonly RawArtifact[], fallback: string): BuildIssue {
  return makeIssue({
    code: 'intent_mismatch',
    artifact: reviewSubject(artifacts, fallback),
    message: `The intent review could not judge the app against its goal (${why}); it is unreviewed, not approved.`,
    fix: 'Review the app against the goal by hand, or run the build again with a model that answers the review.',
  });
}
