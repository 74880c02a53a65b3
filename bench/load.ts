/**
 * How much CPU other processes on the machine took while a run was measured: the machine's busy time
 * (/proc/stat) minus the measured tool's, the mock's and the bench's own CPU time. The machine is
 * shared, so a noisy run is flagged rather than silently trusted.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

const TICK_S = 0.01; // USER_HZ is 100 on Linux

/** CPU counters at one moment. */
export interface CpuSnapshot {
  /** Busy CPU seconds of the whole machine since boot. */
  machineBusyS: number;
  /** CPU seconds of the mock server. */
  mockS: number;
  /** CPU seconds of this bench process. */
  selfS: number;
  /** Monotonic seconds. */
  at: number;
}

function readMachineBusyS(): number {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
    return (user + nice + system + irq + softirq + steal) * TICK_S;
  } catch {
    return Number.NaN;
  }
}

function readProcessCpuS(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_S;
  } catch {
    return 0;
  }
}

/** Reads the counters now. */
export function cpuSnapshot(mockPid: number): CpuSnapshot {
  const self = process.cpuUsage();
  return {
    machineBusyS: readMachineBusyS(),
    mockS: readProcessCpuS(mockPid),
    selfS: (self.user + self.system) / 1e6,
    at: performance.now() / 1000,
  };
}

/** The share of the machine's CPU capacity (0…1) that other processes used between two snapshots. */
export function othersShare(
  before: CpuSnapshot,
  after: CpuSnapshot,
  toolCpuS: number | undefined,
): number | undefined {
  if (toolCpuS === undefined || !Number.isFinite(before.machineBusyS)) return undefined;
  const busy = after.machineBusyS - before.machineBusyS;
  const ours = toolCpuS + (after.mockS - before.mockS) + (after.selfS - before.selfS);
  const capacity = (after.at - before.at) * availableParallelism();
  return capacity > 0 ? Math.max(0, busy - ours) / capacity : undefined;
}
