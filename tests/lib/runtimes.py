#!/usr/bin/env python3
# Where a runlist boot's time goes, program by program: `run` boots with the serial line on
# stdout and stamps each line with the QEMU process's CPU seconds (or the wall clock), `show`
# sums the stamps per program of one log, or compares two logs program by program.
"""usage: tests/lib/runtimes.py run [--wall] LOG QEMU.SH-ARGS...
       tests/lib/runtimes.py show LOG [OTHER_LOG] [N]

run:  sh tests/lib/qemu.sh --serial stdio QEMU.SH-ARGS..., each serial line written to LOG
      after its stamp: QEMU's user+system CPU seconds (all its threads) when the line came,
      or with --wall the seconds since the start. CPU seconds move less than wall time when
      other work shares the host's cores.
show: per runlist program, the seconds from the previous program's last line (its kcheck or
      runstats line, else its result) to its result line, and from there to its last line
      (runstats and kcheck); with OTHER_LOG the programs whose time differs most, first."""
import os
import re
import subprocess
import sys
import time

RESULT = re.compile(r'run: (.*): (exit \d+|killed by .*|timed out after .*)$')


def qemu_pid(pid):
    """pid, or its first descendant whose name starts with qemu (timeout's child)."""
    try:
        with open(f'/proc/{pid}/comm') as f:
            if f.read().startswith('qemu'):
                return pid
        with open(f'/proc/{pid}/task/{pid}/children') as f:
            for child in f.read().split():
                found = qemu_pid(int(child))
                if found:
                    return found
    except OSError:
        pass
    return None


def cpu_seconds(pid):
    try:
        with open(f'/proc/{qemu_pid(pid)}/stat') as f:
            fields = f.read().rsplit(')', 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')
    except (OSError, IndexError, ValueError):
        return None


def run(args):
    wall = args[:1] == ['--wall']
    log, qemu_args = args[wall:][0], args[wall + 1:]
    p = subprocess.Popen(['sh', 'tests/lib/qemu.sh', '--serial', 'stdio'] + qemu_args,
                         stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    t0, last, rest = time.monotonic(), 0.0, b''
    with open(log, 'w') as out:
        for chunk in iter(lambda: p.stdout.read1(65536), b''):
            now = time.monotonic() - t0 if wall else cpu_seconds(p.pid)
            last = last if now is None else now
            *lines, rest = (rest + chunk).split(b'\n')
            for line in lines:
                out.write('%9.2f %s\n' % (last, line.decode('latin-1').rstrip('\r')))
            out.flush()
    return p.wait()


def programs(log):
    """[(program, seconds to its result, seconds of its runstats and kcheck)], the total."""
    rows, start, prog, result, after, end = [], 0.0, None, 0.0, 0.0, 0.0
    with open(log, encoding='latin-1') as f:
        for line in f:
            stamp, _, text = line.strip().partition(' ')
            try:
                end = float(stamp)
            except ValueError:
                continue
            m = RESULT.match(text)
            if m:
                if prog:
                    rows.append((prog, result - start, after - result))
                    start = after
                prog, result, after = m.group(1), end, end
            elif prog and text.startswith(('frames: ', 'kcheck: ')):
                after = end
    if prog:
        rows.append((prog, result - start, after - result))
    return rows, end


def show(args):
    n = int(args[-1]) if len(args) > 1 and args[-1].isdigit() else 20
    logs = [a for a in args if not a.isdigit()]
    tables = [programs(log) for log in logs]
    for log, (rows, total) in zip(logs, tables):
        print('%s: %.1f s in all, %.1f s in %d programs, %.1f s in runstats and kcheck' %
              (log, total, sum(r[1] for r in rows), len(rows), sum(r[2] for r in rows)))
    if len(tables) == 1:
        for prog, t, check in sorted(tables[0][0], key=lambda r: -r[1])[:n]:
            print('%8.2f %6.2f  %s' % (t, check, prog))
    elif len(tables) == 2:
        a = {r[0]: r for r in tables[0][0]}
        b = {r[0]: r for r in tables[1][0]}
        print('  change   first  second | kcheck: first second  program')
        diff = sorted(((b[k][1] + b[k][2] - a[k][1] - a[k][2], k) for k in a if k in b),
                      key=lambda d: -abs(d[0]))
        for d, k in diff[:n]:
            print('%8.2f %7.2f %7.2f | %13.2f %6.2f  %s' % (d, a[k][1], b[k][1], a[k][2],
                                                         b[k][2], k))


if __name__ == '__main__':
    if len(sys.argv) > 2 and sys.argv[1] == 'run':
        sys.exit(run(sys.argv[2:]))
    if len(sys.argv) > 2 and sys.argv[1] == 'show':
        sys.exit(show(sys.argv[2:]))
    print(__doc__)
    sys.exit(2)
