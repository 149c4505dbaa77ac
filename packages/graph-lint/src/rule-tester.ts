// Test support (not exported from index.ts): ESLint-style named valid/invalid tables for L1 rules.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BuildIssueSchema } from '@bvl/build-issue';
import { buildGraph, collectStack } from '@bvl/metadata';
import { expect, it } from 'vitest';
import type { Rule } from './define-rule.ts';
import { lintGraph } from './lint-graph.ts';

/** A stack document as JSON. */
export type Stack = { objects: any[]; views: any[]; dashboards: any[]; datasets: any[]; apps: any[]; data: any[]; reports?: any[]; pages?: any[] };

const EXAMPLE = join(import.meta.dirname, '../../../examples/expense-tracker/app');
const DIRS = { objects: 'objects', views: 'views', dashboards: 'dashboards', datasets: 'datasets', apps: 'apps', data: 'seeds' } as const;

/** A fresh copy of the expense-tracker example app as one stack document (a correct app). */
export function baseStack(): Stack {
  const stack: Record<string, unknown[]> = {};
  for (const [key, dir] of Object.entries(DIRS)) {
    stack[key] = readdirSync(join(EXAMPLE, dir))
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => JSON.parse(readFileSync(join(EXAMPLE, dir, f), 'utf8')));
  }
  return stack as Stack;
}

/** One expected issue: code, `type/name` of the artifact, and the path. */
export interface Expected {
  readonly code: string;
  readonly artifact: string;
  readonly path?: string;
  readonly draft?: boolean;
  /** The expected patch; `null` asserts there is none. */
  readonly patch?: unknown;
  readonly fixSafety?: 'safe' | 'unsafe';
  readonly suggestion?: string;
}

export interface Case {
  readonly name: string;
  /** Mutates the base stack (the published set). */
  readonly stack?: (s: Stack) => void;
  /** A draft set staged over it. */
  readonly drafts?: (base: Stack) => Partial<Stack>;
}

export interface InvalidCase extends Case {
  readonly errors: readonly Expected[];
}

/** Runs the rule over the base stack with `c` applied and returns its issues. */
export function runCase(rule: Rule, c: Case) {
  const s = baseStack();
  c.stack?.(s);
  const published = collectStack(s);
  const drafts = c.drafts ? collectStack(c.drafts(baseStack()), { draft: true }) : undefined;
  const { graph } = buildGraph(published, drafts);
  return lintGraph(graph, [rule]);
}

/** Registers the tables: valid cases produce no issue; invalid cases produce exactly `errors`. */
export function ruleTester(rule: Rule, tables: { valid: readonly Case[]; invalid: readonly InvalidCase[] }): void {
  const names = [...tables.valid, ...tables.invalid].map((c) => c.name);
  it('has uniquely named cases', () => expect(new Set(names).size).toBe(names.length));
  it('is silent on the correct base app', () => expect(runCase(rule, { name: 'base' })).toEqual([]));
  for (const c of tables.valid) it(`valid: ${c.name}`, () => expect(runCase(rule, c)).toEqual([]));
  for (const c of tables.invalid) {
    it(`invalid: ${c.name}`, () => {
      expect(c.errors.length).toBeGreaterThan(0);
      const issues = runCase(rule, c);
      for (const i of issues) {
        expect(BuildIssueSchema.parse(i)).toEqual(i);
        expect(rule.meta.codes).toContain(i.code);
        expect(i.message).toContain(i.artifact.name.split('#')[0]!);
      }
      const got = issues.map((i) => `${i.code} ${i.artifact.type}/${i.artifact.name} ${i.path ?? ''}`).sort();
      const want = c.errors.map((e) => `${e.code} ${e.artifact} ${e.path ?? ''}`).sort();
      expect(got).toEqual(want);
      for (const e of c.errors) {
        const i = issues.find(
          (x) => x.code === e.code && `${x.artifact.type}/${x.artifact.name}` === e.artifact && (e.path === undefined || x.path === e.path),
        )!;
        if (e.draft !== undefined) expect(i.draft ?? false).toBe(e.draft);
        if (e.patch === null) expect(i.patch).toBeUndefined();
        else if (e.patch !== undefined) expect(i.patch).toEqual(e.patch);
        if (e.fixSafety !== undefined) expect(i.fixSafety).toBe(e.fixSafety);
        if (e.suggestion !== undefined) expect(i.suggestions?.[0]).toBe(e.suggestion);
      }
    });
  }
}
