import { hostCpuBetween, parseProcStat, watchHostCpu } from './host-cpu';

const STAT = (user: number, system: number, idle: number, steal: number) =>
  `cpu  ${user} 0 ${system} ${idle} 5 0 7 ${steal} 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 123\n`;

describe('host CPU from /proc/stat', () => {
  it("reads the aggregate line's first eight fields", () => {
    expect(parseProcStat(STAT(100, 20, 300, 9))).toEqual([100, 0, 20, 300, 5, 0, 7, 9]);
    expect(parseProcStat('intr 1 2 3\n')).toBeUndefined();
    expect(parseProcStat('cpu  1 2 x 4 5 6 7 8\n')).toBeUndefined();
  });

  it('gives busy (user, nice, system, irq, softirq) and steal as shares of all the elapsed ticks', () => {
    const before = parseProcStat(STAT(100, 20, 300, 10))!;
    // +130 user, +20 system, +30 idle, +10 softirq, +10 steal: 200 ticks, 160 busy.
    const after = parseProcStat(STAT(230, 40, 330, 20).replace(' 5 0 7 ', ' 5 0 17 '))!;
    expect(hostCpuBetween(before, after)).toEqual({ busyPercent: 80, stealPercent: 5 });
    expect(hostCpuBetween(before, before)).toBeUndefined();
  });

  it('measures this machine where /proc/stat exists', () => {
    const host = watchHostCpu();
    const end = Date.now() + 30;
    while (Date.now() < end); // keep one core busy
    const got = host.stop();
    if (process.platform !== 'linux') return expect(got).toBeUndefined();
    expect(got!.busyPercent).toBeGreaterThan(0);
    expect(got!.busyPercent).toBeLessThanOrEqual(100);
    expect(got!.stealPercent).toBeGreaterThanOrEqual(0);
  });
});
