import { pointer } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { q } from '../describe-names.ts';

/** mode 'insert' duplicates every row on each replay of the seed (#3434). */
export default defineRule({
  meta: { name: 'seed-insert-mode', codes: ['seed_insert_mode_replay'], docs: "Seeds use an idempotent mode (upsert/ignore/replace), not 'insert'." },
  run(graph, emit) {
    for (const seed of graph.seeds.values()) {
      if (seed.invalid || seed.mode !== 'insert') continue;
      emit({
        code: 'seed_insert_mode_replay',
        artifact: { type: 'seed', name: seed.name },
        message: `Seed ${q(seed.name)} uses mode "insert", so its ${seed.recordCount} record(s) are inserted again on every publish or replay.`,
        fix: `Use mode "upsert" keyed by externalId ${q(seed.externalId.join(', '))}.`,
        path: pointer('mode'),
        patch: [{ op: 'replace', path: pointer('mode'), value: 'upsert' }],
      });
    }
  },
});
