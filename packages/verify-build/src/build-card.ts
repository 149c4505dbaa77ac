import type { ArtifactRef, BuildIssue } from '@bvl/build-issue';
import type { Checked } from '@bvl/verify';

/** One line of the card: a layer's verdict. `skip` when the layer has not run (not published yet). */
export interface CardLayer {
  readonly status: 'pass' | 'fail' | 'warn' | 'skip';
  readonly errors: number;
  readonly warnings: number;
  /** What the mark says: "structure", "12 rows", "3/3 widgets return data". */
  readonly label: string;
}

/** A session round as the card shows it. */
export interface CardRound {
  readonly round: number;
  readonly kind: 'verify' | 'publish';
  readonly errors: number;
  readonly warnings: number;
  readonly fixed: number;
  readonly new: number;
  readonly reappeared: number;
  readonly autoFixed: number;
  readonly stopReason?: string | undefined;
}

/** The build-health card as data: the layer verdicts, the issues by artifact, the session's rounds. */
export interface BuildCard {
  readonly ok: boolean;
  readonly publishable: boolean;
  readonly published: boolean;
  readonly layers: { readonly structure: CardLayer; readonly renders: CardLayer; readonly rows: CardLayer; readonly widgets: CardLayer };
  readonly warnings: number;
  readonly checked: Checked;
  readonly byArtifact: ReadonlyArray<{ readonly artifact: ArtifactRef; readonly issues: readonly BuildIssue[] }>;
  readonly session?: {
    readonly id: string;
    readonly goal: string;
    readonly status: string;
    readonly stopReason?: string | undefined;
    readonly rounds: readonly CardRound[];
  };
}

/** The L3 part the card reads (what bvl stored for the latest publish). */
export interface CardProbes {
  readonly issues: readonly BuildIssue[];
  /** Rows the seeds wrote or found, and the widget plane's counts. */
  readonly rows: number;
  readonly widgets: { readonly checked: number; readonly total: number };
}

const count = (issues: readonly BuildIssue[], layer: BuildIssue['layer'], severity: BuildIssue['severity']) =>
  issues.filter((i) => i.layer === layer && i.severity === severity).length;

const verdict = (errors: number, warnings: number): CardLayer['status'] => (errors > 0 ? 'fail' : warnings > 0 ? 'warn' : 'pass');

/**
 * Builds the card from a verification (L1+L2 over the drafts), the latest L3 result (when the
 * package was published) and the session. Pure.
 */
export function buildCard(input: {
  readonly issues: readonly BuildIssue[];
  readonly checked: Checked;
  readonly probes?: CardProbes | undefined;
  readonly session?: BuildCard['session'] | undefined;
}): BuildCard {
  const { issues, probes } = input;
  const structure = { errors: count(issues, 'graph', 'error'), warnings: count(issues, 'graph', 'warning') };
  const renders = { errors: count(issues, 'render', 'error'), warnings: count(issues, 'render', 'warning') };
  const runtime = probes?.issues ?? [];
  const seedErrors = runtime.filter((i) => i.severity === 'error' && (i.code === 'seed_not_applied' || i.code === 'row_count_mismatch')).length;
  const widgetIssues = runtime.filter((i) => i.severity === 'error' && (i.code === 'empty_query' || i.code === 'widget_query_failed'));
  const failingWidgets = new Set(widgetIssues.map((i) => `${i.artifact.name}\u0000${i.ref?.member ?? ''}`)).size;
  const returning = probes ? Math.max(0, probes.widgets.checked - failingWidgets) : 0;
  const all = [...issues, ...runtime];
  const byArtifact = new Map<string, { artifact: ArtifactRef; issues: BuildIssue[] }>();
  for (const i of all) {
    const k = `${i.artifact.type}\u0000${i.artifact.name}`;
    let g = byArtifact.get(k);
    if (!g) byArtifact.set(k, (g = { artifact: i.artifact, issues: [] }));
    g.issues.push(i);
  }
  const errors = all.filter((i) => i.severity === 'error').length;
  return {
    ok: errors === 0,
    publishable: structure.errors + renders.errors === 0,
    published: probes !== undefined,
    layers: {
      structure: { status: verdict(structure.errors, structure.warnings), ...structure, label: 'structure' },
      renders: { status: verdict(renders.errors, renders.warnings), ...renders, label: 'renders' },
      rows: probes
        ? { status: seedErrors > 0 ? 'fail' : 'pass', errors: seedErrors, warnings: 0, label: `${probes.rows} row${probes.rows === 1 ? '' : 's'}` }
        : { status: 'skip', errors: 0, warnings: 0, label: 'rows (not published)' },
      widgets: probes
        ? {
            status: failingWidgets > 0 ? 'fail' : 'pass',
            errors: widgetIssues.length,
            warnings: 0,
            label: `${returning}/${probes.widgets.total} widget${probes.widgets.total === 1 ? '' : 's'} return data`,
          }
        : { status: 'skip', errors: 0, warnings: 0, label: 'widgets (not published)' },
    },
    warnings: all.filter((i) => i.severity === 'warning').length,
    checked: input.checked,
    byArtifact: [...byArtifact.values()].sort((a, b) =>
      a.artifact.type === b.artifact.type ? (a.artifact.name < b.artifact.name ? -1 : 1) : a.artifact.type < b.artifact.type ? -1 : 1,
    ),
    ...(input.session ? { session: input.session } : {}),
  };
}
