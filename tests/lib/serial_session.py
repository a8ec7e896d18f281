#!/usr/bin/env python3
"""A person at the serial console, scripted: connects to QEMU's serial port (a unix socket,
-chardev socket,server=on) or a command on a pseudo-terminal ("exec:make run"), types a
session file's commands line by line at the shell's prompt and checks what comes back.
Prints one TAP line ("ok - X" / "not ok - X") per check; the whole
conversation goes to the log. usage: serial_session.py SOCKET SESSION_FILE LOG [PREFIX]

Session file, one directive a line ("#" lines are comments):
  prompt REGEX      the prompt (a regular expression matched at the end of the output)
  check NAME        starts a check; the directives up to the next one belong to it
  needs WHAT        this check depends on WHAT (another branch's work): a failure says so
  $ COMMAND         type COMMAND and Enter, wait for the next prompt; its output (without the
                    echoed command) becomes "the output"
  ! COMMAND         type COMMAND and Enter, do not wait (a foreground job keeps running)
  key X             type Ctrl-X (c: ^C, z: ^Z, d: ^D)
  sleep SECS        wait
  host COMMAND      run COMMAND in the host's shell (e.g. keys for QEMU's monitor); it must
                    succeed
  wait              wait for the next prompt; the output since the last command is the output
  eof               wait for the port to close (QEMU ended); what came is the output
  status N          (SOCKET "exec:COMMAND ARG...": COMMAND run on a pseudo-terminal instead of
                    a socket) COMMAND has ended with exit status N
  = LINE            the output has exactly this line
  ~ REGEX           a line of the output matches REGEX
  no REGEX          no line of the output matches REGEX
  let NAME REGEX    the first group of REGEX in the output becomes ${NAME} in later lines
  gt NAME REGEX     REGEX's first group in the output is a number greater than ${NAME}
"""
import os
import re
import select
import socket
import subprocess
import sys
import time

TIMEOUT = 60.0


class Pty:
    """A command on a pseudo-terminal, driven like a socket (Console's sock): `make run` as a
    person types into it. status() is its exit status once it has ended."""

    def __init__(self, argv):
        import pty
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            try:
                os.execvp(argv[0], argv)
            finally:
                os._exit(127)
        self.timeout, self.code = None, None

    def settimeout(self, t):
        self.timeout = t

    def sendall(self, data):
        os.write(self.fd, data)

    def recv(self, n):
        if not select.select([self.fd], [], [], self.timeout)[0]:
            raise socket.timeout()
        try:
            return os.read(self.fd, n)
        except OSError:  # EIO: the command has ended and closed the terminal
            return b""

    def status(self, timeout):
        end = time.time() + timeout
        while self.code is None and time.time() < end:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.code = os.waitstatus_to_exitcode(st)
            else:
                time.sleep(0.1)
        return self.code


class Console:
    def __init__(self, path, log):
        self.sock = None
        if path.startswith("exec:"):
            self.sock = Pty(path[5:].split())
            self.log, self.buf = log, ""
            return
        for _ in range(300):  # QEMU may not have made the socket yet
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(path)
                self.sock = s
                break
            except OSError:
                time.sleep(0.1)
        if not self.sock:
            raise OSError("cannot connect to " + path)
        self.log = log
        self.buf = ""  # received and not yet consumed

    def send(self, text):
        for ch in text:  # one key at a time, as typed
            self.sock.sendall(ch.encode("latin-1"))
            time.sleep(0.002)

    def rest(self, timeout=TIMEOUT):
        """Read until the port closes (QEMU ended); return all that was not consumed."""
        try:
            self.until(r"(?!)", timeout)
        except EOFError:
            pass
        out, self.buf = self.buf, ""
        return out

    def until(self, regex, timeout=TIMEOUT):
        """Read until regex matches the end of what arrived; return what came before it."""
        pat = re.compile(regex + r"\Z")
        end = time.time() + timeout
        while True:
            m = pat.search(self.buf)
            if m:
                out, self.buf = self.buf[: m.start()], ""
                return out
            left = end - time.time()
            if left <= 0:
                raise TimeoutError("no %r within %ds; got %r" % (regex, timeout, self.buf[-200:]))
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(4096)
            except socket.timeout:
                continue
            if not data:
                raise EOFError("the serial port closed; got %r" % self.buf[-200:])
            # busybox's line editor asks where the cursor is (ESC [ 6 n); no answer is needed
            text = data.decode("latin-1")
            self.log.write(text)
            self.log.flush()
            self.buf = (self.buf + text).replace("\x1b[6n", "")


def output_lines(out, command):
    lines = out.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if command is not None and lines and lines[0].endswith(command):
        lines = lines[1:]  # the terminal's echo of what was typed
    return [ln for ln in lines if ln != ""]


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    prefix = sys.argv[4] if len(sys.argv) > 4 else "serial"
    log = open(sys.argv[3], "w")
    con = Console(sys.argv[1], log)
    prompt, lines, command, names = r"\$ ", [], None, {}
    check, needs, why, dead = None, None, None, None

    def finish():
        if check is None:
            return
        if why is None:
            print("ok - %s: %s" % (prefix, check))
        else:
            dep = " (depends on %s)" % needs if needs else ""
            print("not ok - %s: %s%s: %s" % (prefix, check, dep, why))
        sys.stdout.flush()

    for raw in open(sys.argv[2]):
        d = raw.rstrip("\n")
        if not d.strip() or d.startswith("#"):
            continue
        for k, v in names.items():
            d = d.replace("${%s}" % k, v)
        op, _, arg = d.partition(" ")
        if op == "check":
            finish()
            check, needs, why = arg, None, dead
            continue
        if op == "needs":
            needs = arg
            continue
        if op == "prompt":
            prompt = arg
            continue
        if why is not None and op not in ("$", "!", "wait", "key", "sleep"):
            continue  # this check already failed: skip its comparisons, keep the session going
        try:
            if op == "$":
                con.send(arg + "\r")
                command, lines = arg, output_lines(con.until(prompt), arg)
            elif op == "!":
                con.send(arg + "\r")
                command = arg
            elif op == "key":
                con.send(chr(ord(arg.lower()) - ord("a") + 1))
            elif op == "host":
                if subprocess.run(arg, shell=True).returncode != 0:
                    why = "host command failed: %r" % arg
            elif op == "sleep":
                time.sleep(float(arg))
            elif op == "status":
                code = con.sock.status(TIMEOUT) if isinstance(con.sock, Pty) else None
                if code != int(arg):
                    why = "the command's exit status is %s, expected %s" % (code, arg)
            elif op == "eof":
                lines, command = output_lines(con.rest(), command), None
            elif op == "wait":
                lines, command = output_lines(con.until(prompt), command), None
            elif op == "=":
                if arg not in lines:
                    why = "no line %r in %r" % (arg, lines[:8])
            elif op == "~":
                if not any(re.search(arg, ln) for ln in lines):
                    why = "no line matching %r in %r" % (arg, lines[:8])
            elif op == "no":
                if any(re.search(arg, ln) for ln in lines):
                    why = "a line matches %r: %r" % (arg, lines[:8])
            elif op in ("let", "gt"):
                name, _, regex = arg.partition(" ")
                m = next((m for m in (re.search(regex, ln) for ln in lines) if m), None)
                if not m:
                    why = "no line matching %r in %r" % (regex, lines[:8])
                elif op == "let":
                    names[name] = m.group(1)
                elif not int(m.group(1)) > int(names.get(name, "0")):
                    why = "%s is not greater than %s" % (m.group(1), names.get(name))
            else:
                why = "bad directive %r" % d
        except (TimeoutError, EOFError, OSError) as e:
            why = str(e)
            if isinstance(e, EOFError):
                dead = "the serial session ended before this check"
    finish()
    log.close()


if __name__ == "__main__":
    main()
