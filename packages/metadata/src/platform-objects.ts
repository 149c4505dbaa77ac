import type { ObjectDef } from './schemas.ts';

/**
 * Objects the platform provides that stacks reference without declaring
 * (ObjectStack `packages/platform-objects/src/identity/*.object.ts`), with the fields stacks use.
 */
export const PLATFORM_OBJECTS: readonly ObjectDef[] = [
  {
    name: 'sys_user',
    label: 'User',
    nameField: 'name',
    fields: {
      name: { type: 'text' },
      email: { type: 'email', externalId: true },
      email_verified: { type: 'boolean' },
      image: { type: 'url' },
      role: { type: 'text' },
      manager_id: { type: 'lookup', reference: 'sys_user' },
      primary_business_unit_id: { type: 'lookup', reference: 'sys_business_unit' },
      phone_number: { type: 'phone' },
      source: { type: 'text' },
      last_login_at: { type: 'datetime' },
      banned: { type: 'boolean' },
      ban_reason: { type: 'text' },
      ban_expires: { type: 'datetime' },
      locked_until: { type: 'datetime' },
      failed_login_count: { type: 'number' },
    },
  },
  {
    name: 'sys_business_unit',
    label: 'Business unit',
    nameField: 'name',
    fields: {
      name: { type: 'text' },
      code: { type: 'text' },
      kind: {
        type: 'select',
        options: ['company', 'division', 'office', 'department', 'team', 'region', 'branch'].map((v) => ({ label: v, value: v })),
      },
      parent_business_unit_id: { type: 'lookup', reference: 'sys_business_unit' },
      manager_user_id: { type: 'lookup', reference: 'sys_user' },
      active: { type: 'boolean' },
      effective_from: { type: 'date' },
      effective_to: { type: 'date' },
      external_ref: { type: 'text' },
    },
  },
  {
    name: 'sys_organization',
    label: 'Organization',
    nameField: 'name',
    fields: { name: { type: 'text' }, slug: { type: 'text' }, logo: { type: 'url' } },
  },
  {
    name: 'sys_team',
    label: 'Team',
    nameField: 'name',
    fields: { name: { type: 'text' }, organization_id: { type: 'text' } },
  },
  {
    name: 'sys_file',
    label: 'File',
    nameField: 'name',
    fields: { name: { type: 'text' }, url: { type: 'url' }, size: { type: 'number' }, mime_type: { type: 'text' } },
  },
];
