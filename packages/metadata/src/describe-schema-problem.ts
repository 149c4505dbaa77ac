import type { z } from 'zod';

const a = (type: string): string => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);
const quoted = (values: readonly unknown[]): string => values.map((v) => JSON.stringify(v)).join(', ');

/**
 * One schema problem in the user's words (`expected a string, got a number`; `"kanbn" is not one
 * of "grid", "kanban"`), instead of the validator's own phrasing. Messages a schema wrote itself
 * (`must be snake_case: …`) are kept.
 */
export function describeSchemaProblem(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type': {
      const got = /received (\w+)/.exec(issue.message)?.[1];
      if (got === 'undefined') return `is missing (expected ${a(issue.expected)})`;
      return `expected ${a(issue.expected)}${got ? `, got ${got === 'null' ? 'null' : a(got)}` : ''}`;
    }
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${quoted(issue.values)}` : `must be one of ${quoted(issue.values)}`;
    case 'too_small':
      if (issue.message && !issue.message.startsWith('Too small')) return issue.message;
      if (issue.origin === 'array' || issue.origin === 'set') return `needs at least ${issue.minimum} item${Number(issue.minimum) === 1 ? '' : 's'}`;
      if (issue.origin === 'string') return Number(issue.minimum) === 1 ? 'must not be empty' : `needs at least ${issue.minimum} characters`;
      return `must be ${issue.inclusive ? 'at least' : 'more than'} ${issue.minimum}`;
    case 'too_big':
      if (issue.message && !issue.message.startsWith('Too big')) return issue.message;
      if (issue.origin === 'array' || issue.origin === 'set') return `takes at most ${issue.maximum} items`;
      if (issue.origin === 'string') return `takes at most ${issue.maximum} characters`;
      return `must be ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}`;
    case 'invalid_format':
      return issue.message && !issue.message.startsWith('Invalid')
        ? issue.message
        : `is not in the expected format${issue.format === 'regex' ? '' : ` (${issue.format})`}`;
    case 'unrecognized_keys':
      return `has key${issue.keys.length === 1 ? '' : 's'} ${quoted(issue.keys)}, which ${issue.keys.length === 1 ? 'is' : 'are'} not allowed here`;
    case 'invalid_union':
      return 'matches none of the shapes allowed here';
    case 'invalid_key':
      return 'has a key that is not allowed here';
    case 'invalid_element':
      return 'has an element that is not allowed here';
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    default:
      return issue.message;
  }
}
