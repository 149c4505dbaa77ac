import { buildGraph, collectStack } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { defineRule, type Finding } from './define-rule.ts';
import { lintGraph } from './lint-graph.ts';
import { RULES } from './rules/index.ts';

const finding = (name: string): Finding => ({ code: 'unknown_field', artifact: { type: 'object', name }, message: `about ${name}` });
const { graph } = buildGraph(collectStack({ objects: [{ name: 'o', fields: { name: { type: 'text' } } }] }));

describe('defineRule with run(graph, emit)', () => {
  it('derives check(graph): what run emits, in order', () => {
    const rule = defineRule({
      meta: { name: 'two', codes: ['unknown_field'], docs: 'Two findings.' },
      run(_graph, emit) {
        emit(finding('a'));
        emit(finding('b'));
      },
    });
    expect([...rule.check(graph)].map((f) => f.artifact.name)).toEqual(['a', 'b']);
    expect(lintGraph(graph, [rule]).map((i) => i.artifact.name)).toEqual(['a', 'b']);
  });

  it('keeps what a rule emitted before it crashed, as a generator rule did', () => {
    const streaming = defineRule({
      meta: { name: 'crashes', codes: ['unknown_field'], docs: 'Crashes.' },
      run(_graph, emit) {
        emit(finding('a'));
        throw new Error('boom');
      },
    });
    const generator = defineRule({
      meta: { name: 'crashes', codes: ['unknown_field'], docs: 'Crashes.' },
      *check() {
        yield finding('a');
        throw new Error('boom');
      },
    });
    const streamed = lintGraph(graph, [streaming]);
    expect(streamed.map((i) => [i.code, i.artifact.name])).toEqual([
      ['unknown_field', 'a'],
      ['invalid_artifact', 'crashes'],
    ]);
    expect(lintGraph(graph, [generator])).toEqual(streamed);
  });

  it('refuses a finding whose code the meta does not declare, as a crash', () => {
    const rule = defineRule({ meta: { name: 'undeclared', codes: ['dangling_object'], docs: 'Wrong code.' }, run: (_g, emit) => emit(finding('a')) });
    expect(lintGraph(graph, [rule]).map((i) => i.message)).toEqual([expect.stringContaining('emitted unknown_field, which its meta does not declare')]);
  });

  it('every shipped rule streams (no generator per loop step)', () => {
    expect(RULES.filter((r) => r.run === undefined).map((r) => r.meta.name)).toEqual([]);
  });
});
