import { CATALOGUE, type IssueCode } from './catalogue.ts';
import { RULE_DOCS, ruleHelpUri } from './rule-docs.ts';

/** One code's help as Markdown (SARIF `help.markdown`, docs/rules.md). */
export function ruleHelpMarkdown(code: IssueCode): string {
  const entry = CATALOGUE[code];
  const doc = RULE_DOCS[code];
  return [
    `**${code}** (${entry.layer}, ${entry.severity})`,
    '',
    doc.meaning,
    '',
    `**Why it breaks the app.** ${doc.why}`,
    '',
    '**Example.**',
    '',
    '```jsonc',
    doc.example,
    '```',
    '',
    `**How to fix.** ${doc.fix}`,
  ].join('\n');
}

/** One code's help as plain text (`bvl explain`, SARIF `help.text`). */
export function ruleHelpText(code: IssueCode): string {
  const entry = CATALOGUE[code];
  const doc = RULE_DOCS[code];
  return [
    `${code} (${entry.layer}, default severity ${entry.severity})`,
    '',
    doc.meaning,
    '',
    'Why it breaks the app:',
    `  ${doc.why}`,
    '',
    'Example:',
    `  ${doc.example}`,
    '',
    'How to fix:',
    `  ${doc.fix}`,
    '',
    `More: ${ruleHelpUri(code)}`,
  ].join('\n');
}

/** docs/rules.md: every code's help, by layer, generated from the catalogue and RULE_DOCS. */
export function rulesDocument(): string {
  const out = [
    '# bvl rules',
    '',
    '<!-- Generated from packages/build-issue/src/rule-docs.ts by `npm run docs -w @bvl/build-issue`; a test keeps it current. -->',
    '',
    'Every code bvl reports, what it means, why it breaks the app, an example and how to fix it.',
    '`bvl rules` lists them and `bvl explain <code>` prints one in the terminal.',
    '',
  ];
  for (const code of Object.keys(CATALOGUE) as IssueCode[]) {
    const entry = CATALOGUE[code];
    out.push(`## ${code}`, '', `Layer: ${entry.layer} · default severity: ${entry.severity}`, '', ruleHelpMarkdown(code).split('\n').slice(2).join('\n'), '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
