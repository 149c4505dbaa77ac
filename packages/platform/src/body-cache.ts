/**
 * Parsed metadata bodies by content hash, per tenant. A body is an immutable value of its hash, so
 * a cached copy is never stale and any number of processes may each keep one (nothing here is
 * shared state). Bounded: the least recently used tenant and the oldest bodies go first.
 */
export class BodyCache {
  private readonly tenants = new Map<string, Map<string, unknown>>();

  constructor(
    /** Bodies kept per tenant. */
    readonly perTenant = 20_000,
    /** Tenants kept. */
    readonly maxTenants = 64,
  ) {}

  /** The tenant's cached bodies (most recently used tenant last). */
  of(tenant: string): Map<string, unknown> {
    let m = this.tenants.get(tenant);
    if (m) this.tenants.delete(tenant);
    else m = new Map();
    this.tenants.set(tenant, m);
    while (this.tenants.size > this.maxTenants) this.tenants.delete(this.tenants.keys().next().value!);
    return m;
  }

  /** Keeps a body; drops the oldest of the tenant's bodies past the bound. */
  put(bodies: Map<string, unknown>, hash: string, body: unknown): void {
    bodies.set(hash, body);
    while (bodies.size > this.perTenant) bodies.delete(bodies.keys().next().value!);
  }
}

/** The process's body cache (readOverlayRows uses it). */
export const BODY_CACHE = new BodyCache();
