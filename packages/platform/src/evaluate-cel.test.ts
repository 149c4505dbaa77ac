import { CORPUS_NAMES, corpusDoc, exampleDoc, fixtureDoc } from '@bvl/test-support';
import { describeCorpora } from '@bvl/test-support/vitest';
import { describe, expect, it } from 'vitest';
import { evaluateCel, isCelEnvelope } from './evaluate-cel.ts';

const NOW = new Date('2026-03-15T10:30:00Z');
const at = (source: string) => {
  const r = evaluateCel(source, NOW);
  if (!r.ok) throw new Error(r.error);
  return typeof r.value === 'object' && r.value.kind === 'instant' ? r.value.at.toISOString() : r.value;
};

describe('evaluateCel', () => {
  const valid: Array<[string, unknown]> = [
    ['today()', '2026-03-15T00:00:00.000Z'],
    ['now()', '2026-03-15T10:30:00.000Z'],
    ['daysAgo(2)', '2026-03-13T00:00:00.000Z'],
    ['daysFromNow(30)', '2026-04-14T00:00:00.000Z'],
    ['daysAgo(9) + duration("6h20m")', '2026-03-06T06:20:00.000Z'],
    ['daysAgo(8) + duration("15h05m")', '2026-03-07T15:05:00.000Z'],
    ['now() - duration("90m")', '2026-03-15T09:00:00.000Z'],
    ['timestamp("2026-01-02T03:04:05Z")', '2026-01-02T03:04:05.000Z'],
    ['(1 + 2) - 4', -1],
    ["'a' + 'b'", 'ab'],
  ];
  it.each(valid)('%s', (source, expected) => expect(at(source)).toEqual(expected));

  const invalid: Array<[string, RegExp]> = [
    ['record.amount * 2', /unsupported character|expected "\("/],
    ['daysBetween(today(), today())', /unsupported function daysBetween/],
    // ObjectStack 17.4.0's CEL has no hours functions: its loader drops such a record, so bvl does too.
    ['hoursAgo(3)', /hoursAgo\(\) is not a CEL function of ObjectStack 17\.4\.0 .*use daysAgo\(n\)/],
    ['now() + hoursFromNow(1)', /hoursFromNow\(\) is not a CEL function of ObjectStack 17\.4\.0 .*use daysFromNow\(n\)/],
    ['daysAgo("x")', /takes one number/],
    ['duration("soon")', /not like "6h20m"/],
    ['daysAgo(1', /expected "\)"/],
    ['x'.repeat(600), /at most 500/],
    [`${'('.repeat(40)}1${')'.repeat(40)}`, /nesting deeper/],
  ];
  it.each(invalid)('refuses %s', (source, why) => {
    const r = evaluateCel(source, NOW);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(why);
  });

  it('evaluates every CEL value the fixtures and the example app seed', () => {
    const sources = celSources([fixtureDoc('field-service').data, exampleDoc('app').data]);
    expect(sources.size).toBeGreaterThan(15);
    for (const s of sources) expect(evaluateCel(s, NOW), s).toMatchObject({ ok: true });
  });
});

/** Every CEL source inside the values. */
function celSources(values: unknown[]): Set<string> {
  const sources = new Set<string>();
  const walk = (v: unknown): void => {
    if (isCelEnvelope(v)) sources.add(v.source);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(walk);
  };
  values.forEach(walk);
  return sources;
}

describeCorpora('evaluateCel on the corpora', () => {
  it('evaluates every CEL value the shared corpora seed', () => {
    const sources = celSources(CORPUS_NAMES.map((name) => corpusDoc(name).data));
    expect(sources.size).toBeGreaterThan(50);
    for (const s of sources) expect(evaluateCel(s, NOW), s).toMatchObject({ ok: true });
  });
});
