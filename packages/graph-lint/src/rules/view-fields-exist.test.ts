import { describe } from 'vitest';
import { ruleTester } from '../rule-tester.ts';
import rule from './view-fields-exist.ts';

describe(rule.meta.name, () =>
  ruleTester(rule, {
    valid: [
      { name: 'system fields', stack: (s) => s.views[0].list.columns.push({ field: 'created_at' }, { field: 'owner_id' }, { field: 'id' }) },
      { name: 'legacy sort string', stack: (s) => (s.views[0].list.sort = 'amount desc, title') },
      { name: 'dotted path through a lookup', stack: (s) => s.views[0].list.columns.push({ field: 'category.name' }) },
      {
        name: 'groups alias of sections',
        stack: (s) => {
          const f = s.views[0].formViews.create;
          f.groups = f.sections;
          delete f.sections;
        },
      },
    ],
    invalid: [
      {
        name: 'every slot',
        stack: (s) => {
          const l = s.views[0].list;
          l.columns.push({ field: 'titel' });
          l.filter = [{ field: 'state', operator: 'equals', value: 'x' }];
          l.sort = [{ field: 'date', order: 'desc' }];
          l.searchableFields = ['description'];
          l.grouping = { fields: [{ field: 'kind' }] };
          s.views[0].listViews.by_day.calendar.startDateField = 'due_date';
          s.views[0].formViews.create.sections[0].fields.push({ field: 'notes' });
        },
        errors: [
          {
            code: 'unknown_field',
            artifact: 'view/exp_expense.default',
            path: '/columns/5/field',
            patch: [{ op: 'replace', path: '/columns/5/field', value: 'title' }],
          },
          { code: 'unknown_field', artifact: 'view/exp_expense.default', path: '/filter/0/field' },
          { code: 'unknown_field', artifact: 'view/exp_expense.default', path: '/sort/0/field' },
          { code: 'unknown_field', artifact: 'view/exp_expense.default', path: '/searchableFields/0' },
          { code: 'unknown_field', artifact: 'view/exp_expense.default', path: '/grouping/fields/0/field' },
          { code: 'unknown_field', artifact: 'view/exp_expense.by_day', path: '/calendar/startDateField' },
          { code: 'unknown_display_field', artifact: 'view/exp_expense.create', path: '/sections/0/fields/5/field' },
        ],
      },
      {
        name: 'legacy sort string naming a missing field',
        stack: (s) => (s.views[1].list.sort = 'codes desc'),
        errors: [{ code: 'unknown_field', artifact: 'view/exp_report.default', path: '/sort' }],
      },
      {
        name: 'every entry of a legacy sort string is judged, and no whole-string patch is offered',
        stack: (s) => (s.views[1].list.sort = 'cod asc, stte desc'),
        errors: [
          { code: 'unknown_field', artifact: 'view/exp_report.default', path: '/sort', suggestion: 'code' },
          { code: 'unknown_field', artifact: 'view/exp_report.default', path: '/sort' }, // suggests "state"
        ],
      },
      {
        name: "an object's own listViews are checked too",
        stack: (s) => (s.objects[2].listViews = { mine: { type: 'grid', columns: ['cde'] } }),
        errors: [{ code: 'unknown_field', artifact: 'view/exp_report.mine', path: '/columns/0' }],
      },
      {
        name: 'dotted path through a non-lookup',
        stack: (s) => s.views[0].list.columns.push('title.name'),
        errors: [{ code: 'unknown_field', artifact: 'view/exp_expense.default', path: '/columns/5' }],
      },
      {
        name: 'draft view',
        drafts: () => ({ views: [{ name: 'exp_expense.mine', viewKind: 'list', object: 'exp_expense', config: { type: 'grid', columns: ['ammount'] } }] }),
        errors: [{ code: 'unknown_field', artifact: 'view/exp_expense.mine', path: '/columns/0', draft: true }],
      },
    ],
  }),
);
