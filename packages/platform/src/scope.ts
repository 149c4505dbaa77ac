import { packageProblem, showName, tenantProblem } from './identifier.ts';

/** Which tenant and package an operation is about. */
export interface PackageScope {
  readonly tenant: string;
  readonly package: string;
}

/** A tenant or package id that cannot be used: a caller's mistake, raised before any SQL runs. */
export class ScopeError extends Error {
  override readonly name = 'ScopeError';
}

/** Throws {@link ScopeError} when the tenant (or package) id is unusable. */
export function checkScope(scope: { readonly tenant: string; readonly package?: string | undefined }): void {
  const t = tenantProblem(scope.tenant);
  if (t) throw new ScopeError(`tenant ${showName(scope.tenant)} ${t}`);
  if (scope.package === undefined) return;
  const p = packageProblem(scope.package);
  if (p) throw new ScopeError(`package ${showName(scope.package)} ${p}`);
}
