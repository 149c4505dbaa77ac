const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What a body weighs in memory, roughly: 1, plus an object's fields, plus a seed's records times
 * their width. (Counting nodes would cost a walk; these are the members that make bodies large.)
 */
export function bodyWeight(body: unknown): number {
  if (!isRecord(body)) return 1;
  let w = WEIGHTS.get(body);
  if (w !== undefined) return w;
  w = 1;
  if (isRecord(body.fields)) w += Object.keys(body.fields).length;
  for (const list of [body.records, body.data, body.rows])
    if (Array.isArray(list) && list.length > 0) w += list.length * (isRecord(list[0]) ? Object.keys(list[0]).length : 1);
  WEIGHTS.set(body, w);
  return w;
}

/** Weights of bodies already weighed (a cached body is never mutated). */
const WEIGHTS = new WeakMap<object, number>();

/** One tenant's cached bodies; keeps the cache's total weight as bodies come and go. */
class TenantBodies extends Map<string, unknown> {
  private readonly weights = new Map<string, number>();

  constructor(private readonly total: { weight: number }) {
    super();
  }

  override set(hash: string, body: unknown): this {
    // Map's constructor calls set before the fields exist.
    if (this.weights === undefined) return super.set(hash, body);
    this.delete(hash);
    const w = bodyWeight(body);
    this.weights.set(hash, w);
    this.total.weight += w;
    return super.set(hash, body);
  }

  override delete(hash: string): boolean {
    const w = this.weights.get(hash);
    if (w !== undefined) {
      this.weights.delete(hash);
      this.total.weight -= w;
    }
    return super.delete(hash);
  }

  override clear(): void {
    for (const w of this.weights.values()) this.total.weight -= w;
    this.weights.clear();
    super.clear();
  }

  weightOf(hash: string): number {
    return this.weights.get(hash) ?? 0;
  }
}

/**
 * Parsed metadata bodies by content hash, per tenant. A body is an immutable value of its hash, so
 * a cached copy is never stale and any number of processes may each keep one (nothing here is
 * shared state). Bounded: the least recently used tenant and the oldest bodies go first — past a
 * count of bodies per tenant, a count of tenants, and a total weight ({@link bodyWeight}) for all
 * tenants together, so large drafts (an at-bound object holds 100,000 fields) cannot fill the
 * server's memory; a body heavier than the whole bound is not kept.
 */
export class BodyCache {
  private readonly tenants = new Map<string, TenantBodies>();
  private readonly total = { weight: 0 };

  constructor(
    /** Bodies kept per tenant. */
    readonly perTenant = 20_000,
    /** Tenants kept. */
    readonly maxTenants = 64,
    /** Total weight kept, all tenants together (about ten at-bound objects' fields). */
    readonly maxWeight = 1_000_000,
  ) {}

  /** The tenant's cached bodies (most recently used tenant last). */
  of(tenant: string): Map<string, unknown> {
    let m = this.tenants.get(tenant);
    if (m) this.tenants.delete(tenant);
    else m = new TenantBodies(this.total);
    this.tenants.set(tenant, m);
    while (this.tenants.size > this.maxTenants) this.drop(this.tenants.keys().next().value!);
    return m;
  }

  /** The weight of all bodies kept. */
  get weight(): number {
    return this.total.weight;
  }

  /** Keeps a body; drops the oldest of the tenant's bodies past the count, then the least recently used bodies of all past the weight. */
  put(bodies: Map<string, unknown>, hash: string, body: unknown): void {
    if (bodyWeight(body) > this.maxWeight) return;
    bodies.set(hash, body);
    while (bodies.size > this.perTenant) bodies.delete(bodies.keys().next().value!);
    // Least recently used tenants first, each from its oldest body; never the body just kept.
    for (const [tenant, m] of this.tenants) {
      if (this.total.weight <= this.maxWeight) break;
      for (const h of m.keys()) {
        if (this.total.weight <= this.maxWeight) break;
        if (m === bodies && h === hash) continue;
        m.delete(h);
      }
      if (m.size === 0 && m !== bodies) this.tenants.delete(tenant);
    }
  }

  private drop(tenant: string): void {
    this.tenants.get(tenant)?.clear();
    this.tenants.delete(tenant);
  }
}

/** The process's body cache (readOverlayRows uses it). */
export const BODY_CACHE = new BodyCache();

/**
 * The content hash of a body the store read (readOverlayRows), by the parsed body object: lets a
 * consumer that ships bodies elsewhere (a worker thread) name one it already shipped instead of
 * copying it again.
 */
const HASH_OF = new WeakMap<object, string>();

/** Remembers that `body` is the stored body of content hash `hash`. */
export function rememberBodyHash(body: unknown, hash: string): void {
  if (typeof body === 'object' && body !== null) HASH_OF.set(body, hash);
}

/** The content hash of a stored body as read from the store, or undefined for any other value. */
export function storedBodyHash(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null ? HASH_OF.get(body) : undefined;
}
