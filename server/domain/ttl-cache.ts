/** A small bounded cache whose entries expire; used to keep hot lookups (API keys) off the database. */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  get(key: K, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V, now: number): void {
    if (!this.enabled) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
  }

  /** Drops every entry the predicate selects (e.g. all keys of one account after a rotation). */
  deleteWhere(predicate: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (predicate(entry.value)) this.entries.delete(key);
  }
}
