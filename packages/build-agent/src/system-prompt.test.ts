import { collectStack } from '@bvl/metadata';
import { verify } from '@bvl/verify';
import { describe, expect, it } from 'vitest';
import { AGENT_ARTIFACT_TYPES } from './agent-tools.ts';
import { MAX_SYSTEM_PROMPT_CHARS, referenceStack, systemPrompt } from './system-prompt.ts';

describe('the system prompt and its stack-format reference', () => {
  it('stays under its size budget', () => {
    expect(systemPrompt().length).toBeLessThanOrEqual(MAX_SYSTEM_PROMPT_CHARS);
  });

  it('has a section per artifact type the agent writes, and no unfilled placeholder', () => {
    const prompt = systemPrompt();
    for (const t of AGENT_ARTIFACT_TYPES) expect(prompt).toContain(`\n## ${t}\n`);
    expect(prompt).not.toContain('{{');
    expect(prompt).toContain('between.');
    // The lists come from the code bvl checks with, so they cannot drift.
    expect(prompt).toContain('grid | kanban | gallery | calendar');
    expect(prompt).toContain('count | count_distinct | sum | avg | min | max');
    expect(prompt).toContain('master_detail');
  });

  it('its examples form one small app that verifies clean (L1 + L2: no issue at all)', () => {
    const set = collectStack(referenceStack());
    expect(set.problems).toEqual([]);
    const r = verify(set);
    expect(r.issues).toEqual([]);
    expect(r.checked).toMatchObject({ objects: 2, views: 4, dashboards: 1, widgets: 3, datasets: 1, apps: 1, seeds: 2 });
  });
});
