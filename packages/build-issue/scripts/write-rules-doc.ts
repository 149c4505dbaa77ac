// Writes docs/rules.md from the catalogue and RULE_DOCS (`npm run docs -w @bvl/build-issue`).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rulesDocument } from '../src/format-rule-help.ts';

writeFileSync(join(import.meta.dirname, '../../../docs/rules.md'), rulesDocument());
