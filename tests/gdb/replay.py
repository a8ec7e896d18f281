# Types one docs/gdb.md walkthrough into gdb, as a student would: sourced by gdb after
# tests/gdb/faultline.gdb (make gdb's script) has attached to a fresh `make debug` boot.
# REPLAY_CMDS names a file of the walkthrough's commands, one a line, in the doc's order.
# Each is echoed after a "REPLAY-CMD N" line (tests/gdb/transcripts.py cuts the log there) and
# run as if typed (from_tty), its output going straight to the log. After each command,
# tests/gdb/fault_checks.py looks at the machine (read only) and prints "ok - " lines.
import os
import signal
import sys
import threading
import traceback

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fault_checks  # noqa: E402

SESSION = os.environ.get("FAULT_TEST", "")
CMDS = os.environ.get("REPLAY_CMDS", "")
# A command that runs the target and stops nowhere (a breakpoint the doc forgot) is
# interrupted after this many seconds, as Ctrl-C would: the transcript then shows it.
STOP_TIMEOUT = float(os.environ.get("REPLAY_STOP_TIMEOUT", "20"))
RUNS = ("c", "continue", "fg", "finish", "fin", "next", "n", "step", "s", "until", "u",
        "advance", "nexti", "ni", "stepi", "si")


interrupted = []


def interrupt():
    gdb.write("replay: no stop after %g s: interrupted as Ctrl-C would\n" % STOP_TIMEOUT)
    interrupted.append(True)
    os.kill(os.getpid(), signal.SIGINT)


def typed(cmd):
    """Run cmd as if typed at the prompt: gdb's own output and its error text, as a user sees."""
    timer = None
    if cmd.split()[0] in RUNS:
        timer = threading.Timer(STOP_TIMEOUT, interrupt)
        timer.start()
    try:
        gdb.execute(cmd, from_tty=True)
    except gdb.error as e:
        gdb.write("%s\n" % e)
    except KeyboardInterrupt:
        gdb.write("Quit\n")
    finally:
        if timer:
            timer.cancel()


def main():
    # The doc's lines are not wrapped at a terminal's width (a wide terminal shows the same).
    gdb.execute("set width 0", to_string=True)
    gdb.execute("set height 0", to_string=True)
    with open(CMDS, encoding="utf-8") as f:
        cmds = [l.rstrip("\n") for l in f if l.strip()]
    checks = fault_checks.for_session(SESSION)
    n_retry = int(os.environ.get("FAULT_TEST_RUN", "1")) - 1
    for i, cmd in enumerate(cmds):
        gdb.write("REPLAY-CMD %d\n(gdb) %s\n" % (i, cmd))
        checks.before(cmd)
        typed(cmd)
        gdb.flush()
        gdb.write("REPLAY-QUIET\n")
        checks.after(cmd)
        if checks.retry and n_retry < 2:
            # off the path by the machine's timing (fault_checks.Session.retry): the run
            # script boots again; the third time, the checks' failures stand
            gdb.write("FAULT-TEST-RETRY %s\n" % checks.retry)
            break
        if interrupted:
            # the session is off the doc's path: what follows would only wait for stops too
            gdb.write("replay: the commands after the interrupt are not typed\n")
            break
    gdb.write("REPLAY-END\n")
    if checks.retry and n_retry < 2:
        return
    checks.epilogue(bool(interrupted))
    checks.summary()


try:
    main()
except Exception as e:  # a driver or check that throws is a failed test, not a hung gdb
    gdb.write(traceback.format_exc())
    gdb.write("not ok - gdb fault %s: the replay itself raised %s: %s\n"
              % (SESSION, type(e).__name__, e))
gdb.write("FAULT-TEST-DONE %s\n" % SESSION)
