/** Timestamps as stored and answered: ISO 8601 in UTC (a leaf, so any module may use it without a cycle). */
export function iso(date: Date): string {
  return date.toISOString();
}
