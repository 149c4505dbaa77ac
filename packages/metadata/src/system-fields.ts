import type { FieldDef } from './schemas.ts';

/**
 * Columns every object has without declaring them (ObjectStack `packages/lint/src/system-fields.ts`).
 * `owner_id` is not injected under ownership business_unit | org | none.
 */
export const SYSTEM_FIELDS: Readonly<Record<string, FieldDef>> = {
  id: { type: 'text', label: 'ID' },
  created_at: { type: 'datetime', label: 'Created at' },
  created_by: { type: 'lookup', reference: 'sys_user', label: 'Created by' },
  updated_at: { type: 'datetime', label: 'Updated at' },
  updated_by: { type: 'lookup', reference: 'sys_user', label: 'Updated by' },
  owner_id: { type: 'lookup', reference: 'sys_user', label: 'Owner' },
  owning_business_unit_id: { type: 'lookup', reference: 'sys_business_unit', label: 'Owning business unit' },
  organization_id: { type: 'text', label: 'Organization' },
  tenant_id: { type: 'text', label: 'Tenant' },
  user_id: { type: 'lookup', reference: 'sys_user', label: 'User' },
  is_deleted: { type: 'boolean', label: 'Deleted' },
  deleted_at: { type: 'datetime', label: 'Deleted at' },
};

/** Ownership modes under which no `owner_id` column is injected. */
export const OWNERLESS_OWNERSHIP = new Set(['business_unit', 'org', 'none']);
