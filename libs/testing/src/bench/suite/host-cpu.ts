import { readFileSync } from 'node:fs';

/**
 * The whole machine's CPU during one measured run, as shares of all its cores' time (100 = every core): how busy it
 * was, and how much time the hypervisor gave to other guests (`steal`). On a shared VM the same code measures up to
 * ±30% apart from one run to the next; a run with several percent of steal ran on a machine that was not all ours,
 * and the report says so next to its numbers.
 */
export interface HostCpu {
  /** user + nice + system + irq + softirq (the load generator and the stack together). */
  busyPercent: number;
  /** Time the hypervisor ran something else while this guest wanted the CPU. */
  stealPercent: number;
}

/** The aggregate `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal (clock ticks). */
export type CpuTicks = readonly number[];

/** The first line of /proc/stat (`cpu  user nice system idle iowait irq softirq steal ...`), or undefined. */
export function parseProcStat(text: string): CpuTicks | undefined {
  const m = /^cpu\s+(.+)$/m.exec(text);
  if (!m) return undefined;
  const ticks = m[1]!.trim().split(/\s+/).slice(0, 8).map(Number);
  return ticks.length === 8 && ticks.every((t) => Number.isFinite(t)) ? ticks : undefined;
}

/** The machine's CPU between two readings; undefined when nothing elapsed. */
export function hostCpuBetween(before: CpuTicks, after: CpuTicks): HostCpu | undefined {
  const d = after.map((t, i) => t - (before[i] ?? 0));
  const [user, nice, system, , , irq, softirq, steal] = d as [number, number, number, number, number, number, number, number];
  const total = d.reduce((a, b) => a + b, 0);
  if (total <= 0) return undefined;
  const pct = (x: number) => (100 * x) / total;
  return { busyPercent: pct(user + nice + system + irq + softirq), stealPercent: pct(steal) };
}

function readTicks(): CpuTicks | undefined {
  try {
    return parseProcStat(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return undefined; // not Linux: the report leaves the column empty
  }
}

/** Starts a reading; `stop()` gives the machine's CPU since (undefined where /proc/stat cannot be read). */
export function watchHostCpu(): { stop(): HostCpu | undefined } {
  const before = readTicks();
  return {
    stop() {
      const after = readTicks();
      return before && after ? hostCpuBetween(before, after) : undefined;
    },
  };
}
