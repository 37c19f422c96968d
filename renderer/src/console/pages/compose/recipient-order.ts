/**
 * Routing order as the page shows it: recipients in a list, each either its own step or "at the same time as
 * the one above" (a parallel group: equal sequence numbers). Reordering renumbers the steps 1, 2, 3…
 */
import type { RecipientView } from './compose-api';

/** The list in routing order: by sequence, then as added. */
export function inRoutingOrder(recipients: readonly RecipientView[]): RecipientView[] {
  return recipients
    .map((r, i) => ({ r, i }))
    .sort((a, b) => a.r.sequence - b.r.sequence || a.i - b.i)
    .map(({ r }) => r);
}

/** Whether each recipient acts together with the one above it. */
export function parallelFlags(ordered: readonly RecipientView[]): boolean[] {
  return ordered.map((r, i) => i > 0 && r.sequence === ordered[i - 1]!.sequence);
}

/** Sequence numbers for an order and its "together with the one above" flags. */
export function sequencesFor(flags: readonly boolean[]): number[] {
  const out: number[] = [];
  flags.forEach((together, i) => out.push(i === 0 ? 1 : out[i - 1]! + (together ? 0 : 1)));
  return out;
}

/** Moves one recipient from `from` to `to`; it becomes a step of its own, the others keep their grouping. */
export function moved(
  ordered: readonly RecipientView[],
  from: number,
  to: number,
): { order: RecipientView[]; sequences: number[] } {
  const flags = parallelFlags(ordered);
  const items = ordered.map((r, i) => ({ r, together: flags[i]! }));
  const [item] = items.splice(from, 1);
  items.splice(to, 0, { ...item!, together: false });
  if (items[0]) items[0].together = false;
  return { order: items.map((x) => x.r), sequences: sequencesFor(items.map((x) => x.together)) };
}

/** Toggles "together with the one above" for recipient `index`. */
export function regrouped(ordered: readonly RecipientView[], index: number, together: boolean): number[] {
  const flags = parallelFlags(ordered);
  flags[index] = index > 0 && together;
  return sequencesFor(flags);
}
