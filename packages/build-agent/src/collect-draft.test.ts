import { describe, expect, it } from 'vitest';
import { collectDraft } from './collect-draft.ts';

const names = (r: ReturnType<typeof collectDraft>) => (r.ok ? r.artifacts.map((a) => `${a.type} ${a.name}`) : r.error);

describe('collectDraft (a stage_draft body through the loader)', () => {
  it('expands a view container into <object>.<key> views, as a file would', () => {
    const r = collectDraft('view', 'hd_ticket', {
      list: { type: 'grid', columns: ['subject'] },
      listViews: { board: { type: 'kanban', columns: ['subject'], kanban: { groupByField: 'status', columns: ['subject'] } } },
      formViews: { create: { type: 'simple', sections: [] } },
    });
    expect(names(r)).toEqual(['view hd_ticket.board', 'view hd_ticket.default', 'view hd_ticket.create']);
    expect(r.ok && r.artifacts.every((a) => a.draft && a.object === 'hd_ticket' && a.container === 'container:hd_ticket')).toBe(true);
  });

  it('takes a view item under its name, filling the name in', () => {
    const config = { type: 'grid', data: { provider: 'object', object: 'hd_ticket' }, columns: ['subject'] };
    expect(names(collectDraft('view', 'hd_ticket.recent', { object: 'hd_ticket', viewKind: 'list', config }))).toEqual(['view hd_ticket.recent']);
    expect(names(collectDraft('view', 'hd_ticket.recent', { name: 'hd_ticket.old', viewKind: 'list', config }))).toMatch(
      /^the view item's name is "hd_ticket.old" but name is "hd_ticket.recent"$/,
    );
  });

  it('names objects, datasets, dashboards and apps by name; a body naming another is an error', () => {
    expect(names(collectDraft('object', 'hd_ticket', { fields: {} }))).toEqual(['object hd_ticket']);
    expect(names(collectDraft('object', 'hd_ticket', { name: 'hd_tickets', fields: {} }))).toBe(
      'the object\'s body names it "hd_tickets" but name is "hd_ticket"',
    );
    // An object's own listViews are views too.
    expect(names(collectDraft('object', 'hd_ticket', { fields: {}, listViews: { mine: { type: 'grid', columns: ['id'] } } }))).toEqual([
      'object hd_ticket',
      'view hd_ticket.mine',
    ]);
  });

  it('names a seed by its object (a second seed of it by <object>#2)', () => {
    expect(names(collectDraft('seed', 'hd_ticket', { records: [] }))).toEqual(['seed hd_ticket']);
    expect(names(collectDraft('seed', 'hd_ticket#2', { object: 'hd_ticket', records: [] }))).toEqual(['seed hd_ticket#2']);
    expect(names(collectDraft('seed', 'hd_ticket', { object: 'hd_customer', records: [] }))).toMatch(/^the seed's object is "hd_customer"/);
  });

  it('stages nothing when the loader cannot read the body', () => {
    expect(names(collectDraft('view', 'hd_ticket', { columns: ['a'] }))).toMatch(/^nothing staged: view hd_ticket: This view body is neither a container/);
    expect(names(collectDraft('dashboard', 'd', { widgets: [], label: 'a\u0000b' }))).toMatch(/^nothing staged: dashboard d at \/label: .*NUL character/);
  });
});
