import type { ArtifactRef, BuildIssue } from './build-issue.ts';
import { CATALOGUE, isCatalogueCode } from './catalogue.ts';
import { fingerprint } from './fingerprint.ts';
import { ruleHelpMarkdown, ruleHelpText } from './format-rule-help.ts';
import { RULE_DOCS, ruleHelpUri } from './rule-docs.ts';
import { sortIssues } from './sort-issues.ts';

/** Where an artifact came from, for issues that carry no location of their own. */
export type LocateArtifact = (artifact: ArtifactRef) => string | undefined;

/** The id results' relative URIs are based on (GitHub code scanning resolves it to the checkout). */
export const SARIF_SRCROOT = 'SRCROOT';

/** Options for {@link formatSarif}. */
export interface SarifOptions {
  /** bvl's version (tool.driver.version). */
  readonly toolVersion?: string;
  /**
   * Turns an issue's `location.file` into a URI relative to the repository root (forward slashes),
   * or undefined when the file is outside it. Default: the file as it is.
   */
  readonly relativeUri?: (file: string) => string | undefined;
  /** The repository root as an absolute `file:` URI ending in `/` (originalUriBaseIds.SRCROOT). */
  readonly srcRoot?: string;
  /** `automationDetails.id`: the category and run of this analysis, e.g. `bvl/verify/`. */
  readonly automationId?: string;
  /** Warnings that are not issues (what bvl did not read), as tool execution notifications. */
  readonly notices?: readonly string[];
  /** Fallback for issues without a location: the file an artifact was loaded from. */
  readonly locate?: LocateArtifact;
}

const SCHEMA_URI = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';
const INFORMATION_URI = 'https://github.com/bvl-dev/bvl';

/**
 * A SARIF 2.1.0 log for code-scanning UIs: one rule per code (short and full description, Markdown
 * help and helpUri from the rule docs, default level), one result per issue with its file relative
 * to the repository root (`uriBaseId` SRCROOT) and its region (line/column), the artifact as
 * logical location, a stable partial fingerprint, and bvl's own data (patch, suggestions) as
 * properties.
 */
export function formatSarif(issues: readonly BuildIssue[], options: SarifOptions = {}): object {
  const sorted = sortIssues(issues);
  const ruleIds = [...new Set(sorted.map((i) => i.code))].sort();
  const version = options.toolVersion ?? '0.0.0';
  const uriOf = options.relativeUri ?? ((f: string) => f);
  return {
    $schema: SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'bvl',
            fullName: 'bvl — Build Verification Loop',
            informationUri: INFORMATION_URI,
            version,
            semanticVersion: version,
            rules: ruleIds.map(rule),
          },
        },
        ...(options.automationId ? { automationDetails: { id: options.automationId } } : {}),
        ...(options.srcRoot ? { originalUriBaseIds: { [SARIF_SRCROOT]: { uri: options.srcRoot } } } : {}),
        invocations: [
          {
            executionSuccessful: true,
            ...(options.notices?.length ? { toolExecutionNotifications: options.notices.map((text) => ({ level: 'warning', message: { text } })) } : {}),
          },
        ],
        columnKind: 'utf16CodeUnits',
        results: sorted.map((issue) => result(issue, ruleIds.indexOf(issue.code), uriOf, options)),
      },
    ],
  };
}

function rule(id: string): object {
  if (!isCatalogueCode(id)) return { id, shortDescription: { text: id } };
  const entry = CATALOGUE[id];
  return {
    id,
    name: id,
    shortDescription: { text: entry.summary },
    fullDescription: { text: `${RULE_DOCS[id].meaning} ${RULE_DOCS[id].why}` },
    help: { text: ruleHelpText(id), markdown: ruleHelpMarkdown(id) },
    helpUri: ruleHelpUri(id),
    defaultConfiguration: { level: entry.severity },
    properties: { layer: entry.layer, tags: ['bvl', entry.layer] },
  };
}

function result(issue: BuildIssue, ruleIndex: number, uriOf: (file: string) => string | undefined, options: SarifOptions): object {
  const loc = issue.location;
  const uri = loc ? uriOf(loc.file) : options.locate?.(issue.artifact);
  const region =
    loc?.line !== undefined
      ? {
          startLine: loc.line,
          startColumn: loc.column ?? 1,
          ...(loc.endLine !== undefined ? { endLine: loc.endLine } : {}),
          ...(loc.endColumn !== undefined ? { endColumn: loc.endColumn } : {}),
        }
      : undefined;
  const fq = `${issue.artifact.type}/${issue.artifact.name}${issue.path ?? ''}`;
  return {
    ruleId: issue.code,
    ruleIndex,
    level: issue.severity === 'error' ? 'error' : 'warning',
    message: { text: issue.fix ? `${issue.message} Fix: ${issue.fix}` : issue.message },
    locations: [
      {
        ...(uri
          ? {
              physicalLocation: {
                artifactLocation: { uri, ...(options.srcRoot && loc && !/^[a-z][a-z0-9+.-]*:/i.test(uri) ? { uriBaseId: SARIF_SRCROOT } : {}) },
                ...(region ? { region } : {}),
              },
            }
          : {}),
        logicalLocations: [{ name: issue.artifact.name, fullyQualifiedName: fq, kind: issue.artifact.type }],
      },
    ],
    partialFingerprints: { 'bvl/v1': fingerprint(issue) },
    properties: {
      layer: issue.layer,
      ...(issue.draft ? { draft: true } : {}),
      ...(issue.ref ? { ref: issue.ref } : {}),
      ...(issue.path !== undefined ? { path: issue.path } : {}),
      ...(issue.suggestions ? { suggestions: issue.suggestions } : {}),
      ...(issue.patch ? { patch: issue.patch, fixSafety: issue.fixSafety } : {}),
      ...(loc?.patch ? { filePatch: loc.patch } : {}),
    },
  };
}
