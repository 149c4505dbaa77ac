import { planUnits } from './engine-units.ts';
import { loadObjectStackEngine } from './objectstack-engine.ts';
import { cleanStacks } from './stacks.ts';

const os = await loadObjectStackEngine(process.env.DATABASE_URL);
if (typeof os === 'string') throw new Error(os);
const s = cleanStacks().find((x) => x.name === 'golden/helpdesk')!;
const units = planUnits(s.doc).units.filter((u) => u.key === 'widget hd_support#by_agent');
console.log(JSON.stringify(units));
console.log(JSON.stringify(await os.answer(s.doc, units)));
