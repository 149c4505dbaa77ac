import type { ArtifactRef, BuildIssue } from './build-issue.ts';
import { CATALOGUE, isCatalogueCode } from './catalogue.ts';
import { fingerprint } from './fingerprint.ts';
import { sortIssues } from './sort-issues.ts';

/** Where an artifact came from, for SARIF physical locations. */
export type LocateArtifact = (artifact: ArtifactRef) => string | undefined;

/** Options for {@link formatSarif}. */
export interface SarifOptions {
  /** Maps an artifact to the file (URI or relative path) it was loaded from. */
  readonly locate?: LocateArtifact;
  readonly toolVersion?: string;
}

/** A SARIF 2.1.0 log: ruleId = code, level from severity, logical location = artifact. */
export function formatSarif(issues: readonly BuildIssue[], options: SarifOptions = {}): object {
  const sorted = sortIssues(issues);
  const ruleIds = [...new Set(sorted.map((i) => i.code))].sort();
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'bvl',
            informationUri: 'https://github.com/bvl-dev/bvl',
            version: options.toolVersion ?? '0.1.0',
            rules: ruleIds.map((id) => ({
              id,
              shortDescription: { text: isCatalogueCode(id) ? CATALOGUE[id].summary : id },
              properties: { layer: isCatalogueCode(id) ? CATALOGUE[id].layer : 'unknown' },
            })),
          },
        },
        results: sorted.map((issue) => {
          const uri = options.locate?.(issue.artifact);
          const fq = `${issue.artifact.type}/${issue.artifact.name}${issue.path ?? ''}`;
          return {
            ruleId: issue.code,
            ruleIndex: ruleIds.indexOf(issue.code),
            level: issue.severity === 'error' ? 'error' : 'warning',
            message: { text: issue.fix ? `${issue.message} Fix: ${issue.fix}` : issue.message },
            locations: [
              {
                ...(uri ? { physicalLocation: { artifactLocation: { uri } } } : {}),
                logicalLocations: [{ name: issue.artifact.name, fullyQualifiedName: fq, kind: issue.artifact.type }],
              },
            ],
            partialFingerprints: { 'bvl/v1': fingerprint(issue) },
            properties: {
              layer: issue.layer,
              ...(issue.draft ? { draft: true } : {}),
              ...(issue.ref ? { ref: issue.ref } : {}),
              ...(issue.suggestions ? { suggestions: issue.suggestions } : {}),
              ...(issue.patch ? { patch: issue.patch } : {}),
            },
          };
        }),
      },
    ],
  };
}
