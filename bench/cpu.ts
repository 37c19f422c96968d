/**
 * CPU accounting from Linux /proc, so a run on a shared machine says how much of the CPU was
 * ours: the server's event-loop thread per request, the database processes per request, and the
 * cores that other processes took meanwhile. Elsewhere the functions return undefined.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

export interface CpuAccount {
  /** CPU time of the server's event-loop thread (this process's main thread) per completed request. */
  serverUsPerRequest: number;
  /** CPU time of the database server processes (PostgreSQL backends) per completed request. */
  dbUsPerRequest: number;
  /** Average cores busy: this process (server + autocannon worker), the database processes, everything else. */
  cores: { bench: number; db: number; others: number };
}

/** More cores than this taken by other processes during a run marks it as disturbed. */
export const DISTURBED_CORES = 0.25;

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** utime + stime, in clock ticks, of a /proc/.../stat file; undefined when it cannot be read (process gone). */
function statTicks(path: string): number | undefined {
  try {
    const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** Busy and total ticks of all CPUs together, from /proc/stat. */
function systemTicks(): { busy: number; total: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    return { busy: total - fields[3]! - fields[4]!, total };
  } catch {
    return undefined;
  }
}

/** Starts accounting; the returned function ends it, given the number of completed requests. */
export function startCpuAccount(dbPids: readonly number[]): (requests: number) => CpuAccount | undefined {
  const mainThread = `/proc/${process.pid}/task/${process.pid}/stat`;
  const dbTicks = (): (number | undefined)[] => dbPids.map((pid) => statTicks(`/proc/${pid}/stat`));
  const system = systemTicks();
  const server = statTicks(mainThread);
  const db = dbTicks();
  const own = process.cpuUsage();
  const started = process.hrtime.bigint();
  return (requests) => {
    const systemNow = systemTicks();
    const serverNow = statTicks(mainThread);
    if (!system || !systemNow || server === undefined || serverNow === undefined || requests === 0) return undefined;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const usage = process.cpuUsage(own);
    const bench = (usage.user + usage.system) / 1e6 / seconds;
    // A backend that the pool closed meanwhile (idle timeout) drops out; its last ticks are lost.
    const dbSeconds =
      dbTicks().reduce<number>((sum, now, i) => sum + (now === undefined || db[i] === undefined ? 0 : now - db[i]), 0) /
      TICKS_PER_SECOND;
    const busy = ((systemNow.busy - system.busy) / (systemNow.total - system.total)) * availableParallelism();
    return {
      serverUsPerRequest: round(((serverNow - server) / TICKS_PER_SECOND / requests) * 1e6, 1),
      dbUsPerRequest: round((dbSeconds / requests) * 1e6, 1),
      cores: {
        bench: round(bench),
        db: round(dbSeconds / seconds),
        others: round(Math.max(0, busy - bench - dbSeconds / seconds)),
      },
    };
  };
}

/** Cores kept busy by everything on the machine over a short sample. */
export async function machineBusyCores(seconds = 2): Promise<number | undefined> {
  const before = systemTicks();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const after = systemTicks();
  if (!before || !after) return undefined;
  return round(((after.busy - before.busy) / (after.total - before.total)) * availableParallelism());
}

/** Waits (at most `limitSeconds`) until other processes leave the cores alone; true when they did. */
export async function waitForQuiet(limitSeconds: number): Promise<boolean> {
  const until = Date.now() + limitSeconds * 1000;
  while (Date.now() < until) {
    const busy = await machineBusyCores();
    if (busy === undefined || busy < DISTURBED_CORES) return true;
  }
  return false;
}
