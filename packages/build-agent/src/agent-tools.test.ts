import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AGENT_TOOL_NAMES, AGENT_TOOLS, parseToolCall, toolDefinitions, toolParameters } from './agent-tools.ts';

describe('agent tools', () => {
  it('every tool schema the model sees is generated from the zod schema that validates its input', () => {
    const defs = toolDefinitions();
    expect(defs.map((d) => d.type === 'function' && d.function.name)).toEqual(AGENT_TOOL_NAMES);
    for (const name of AGENT_TOOL_NAMES) {
      const { $schema: _, ...generated } = z.toJSONSchema(AGENT_TOOLS[name].input, { io: 'input' }) as Record<string, unknown>;
      expect(toolParameters(name)).toEqual(generated);
      expect(toolParameters(name)).toMatchObject({ type: 'object', additionalProperties: false });
    }
  });

  it('an optional field is nullable too (models send null for "not given")', () => {
    expect(toolParameters('list_artifacts')).toMatchObject({ properties: { type: { anyOf: [{ type: 'string' }, { type: 'null' }] } } });
    expect(toolParameters('list_artifacts').required).toBeUndefined();
    expect(parseToolCall('list_artifacts', '{"type": null}')).toMatchObject({ ok: true, input: { type: null } });
  });

  const valid: Array<[string, string, unknown]> = [
    ['list_artifacts', '', {}],
    ['list_artifacts', '{"type":"view"}', { type: 'view' }],
    ['get_artifact', '{"type":"dashboard","name":"exp_spending"}', { type: 'dashboard', name: 'exp_spending' }],
    ['stage_draft', '{"type":"object","name":"a","body":{"fields":{}}}', { type: 'object', name: 'a', body: { fields: {} } }],
    ['verify_build', '{}', {}],
    ['publish', '  ', {}],
  ];
  it.each(valid)('accepts %s %s', (name, args, input) => {
    expect(parseToolCall(name, args)).toEqual({ ok: true, name, input });
  });

  const invalid: Array<[string, string, RegExp]> = [
    ['rm_rf', '{}', /^unknown tool "rm_rf"; the tools are: list_artifacts, /],
    ['get_artifact', '{"type":"dashboard"', /^the arguments of get_artifact are not valid JSON \(/],
    ['get_artifact', '[1]', /^invalid arguments for get_artifact: \(arguments\): Invalid input: expected object, received array$/],
    ['get_artifact', '{"type":"widget","name":"x"}', /^invalid arguments for get_artifact: type: Invalid option/],
    ['get_artifact', '{"type":"view","name":""}', /^invalid arguments for get_artifact: name: Too small/],
    ['stage_draft', '{"type":"object","name":"a","body":[]}', /^invalid arguments for stage_draft: body: Invalid input: expected object, received array$/],
    ['stage_draft', '{"type":"object","name":"a"}', /^invalid arguments for stage_draft: body: Invalid input: expected object, received undefined$/],
    ['verify_build', '{"session":"x"}', /^invalid arguments for verify_build: \(arguments\): Unrecognized key: "session"$/],
    ['publish', `{"pad":"${'x'.repeat(2_000_001)}"}`, /^the arguments of publish are \d+ characters, over the 2000000 limit$/],
  ];
  it.each(invalid)('refuses %s %s with a tool error', (name, args, error) => {
    const r = parseToolCall(name, args);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(error);
  });
});
