import { describe, expect, it } from 'vitest';
import { collectStack } from './collect-artifacts.ts';
import { buildGraph } from './graph.ts';
import { isPlatformObjectName, mayBeHidden, PLATFORM_OBJECTS, platformObjectsReached } from './platform-objects.ts';

describe('the platform object catalogue', () => {
  it("holds ObjectStack's registry: every core package's objects with fields, the cloud's as names", () => {
    // PLATFORM_OBJECTS_BY_PACKAGE (76 names in 11 packages) plus CLOUD_PROVIDED_OBJECT_NAMES (5), spec commit 5337ef162.
    expect(PLATFORM_OBJECTS).toHaveLength(81);
    expect(new Set(PLATFORM_OBJECTS.map((o) => o.name)).size).toBe(81);
    for (const o of PLATFORM_OBJECTS) {
      expect(o.name).toMatch(/^sys_[a-z_]+$/);
      expect(Object.keys(o.fields ?? {}).length > 0, o.name).toBe(o.fieldsDeclared);
    }
    expect(PLATFORM_OBJECTS.filter((o) => o.provider === 'cloud').map((o) => o.name)).toEqual([
      'sys_app',
      'sys_environment',
      'sys_environment_member',
      'sys_package',
      'sys_package_installation',
    ]);
    for (const name of ['sys_audit_log', 'sys_approval_request', 'sys_webhook', 'sys_file', 'sys_presence', 'sys_metadata'])
      expect(isPlatformObjectName(name), name).toBe(true);
    expect(isPlatformObjectName('sys_approval_process')).toBe(false); // removed by ObjectStack ADR-0019: a real typo class
  });

  it('reaches what a mentioned object looks up, and nothing else', () => {
    expect(platformObjectsReached(['sys_user']).map((o) => o.name)).toEqual(['sys_business_unit', 'sys_organization', 'sys_user']);
    expect(platformObjectsReached(['exp_expense', 'nope']).map((o) => o.name)).toEqual([]);
  });

  it('joins the graph only when the stack needs it', () => {
    const stack = (extra: Record<string, unknown>) => ({ objects: [{ name: 'a', fields: { t: { type: 'text' } } }], ...extra });
    const plain = buildGraph(collectStack(stack({}))).graph;
    expect([...plain.objects.values()].filter((o) => o.platform).map((o) => o.name)).toEqual(['sys_business_unit', 'sys_organization', 'sys_user']);
    const audited = buildGraph(
      collectStack(stack({ views: [{ list: { type: 'grid', data: { provider: 'object', object: 'sys_audit_log' }, columns: ['action'] } }] })),
    ).graph;
    expect(audited.objects.get('sys_audit_log')?.platform).toBe(true);
    const cloud = buildGraph(collectStack(stack({ apps: [{ name: 'x', navigation: [{ id: 'i', type: 'object', objectName: 'sys_app' }] }] }))).graph;
    // The cloud's objects declare no fields: the name resolves, the fields are opaque (not judged).
    expect(cloud.objects.get('sys_app')).toMatchObject({ platform: true, invalid: true });
  });

  it("says which requiresObject gates may hide an item: anything but the stack's own and the core platform objects", () => {
    const { graph } = buildGraph(
      collectStack({
        objects: [{ name: 'a', fields: {} }],
        apps: [{ name: 'x', navigation: [{ id: 'i', type: 'object', objectName: 'sys_audit_log' }] }],
      }),
    );
    expect(mayBeHidden(graph.objects, 'a')).toBe(false);
    expect(mayBeHidden(graph.objects, 'sys_user')).toBe(false);
    expect(mayBeHidden(graph.objects, 'sys_audit_log')).toBe(true); // plugin-audit may not be installed
    expect(mayBeHidden(graph.objects, 'sys_app')).toBe(true);
    expect(mayBeHidden(graph.objects, 'nothing_of_that_name')).toBe(true);
    expect(mayBeHidden(graph.objects, undefined)).toBe(false);
  });
});
