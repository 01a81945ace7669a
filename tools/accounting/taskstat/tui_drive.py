#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Drives `taskstat top` in a terminal for smoke.sh.

    tui_drive.py TASKSTAT pty     keys and resize in a pseudo-terminal of
                                  python's own (no tmux needed)
    tui_drive.py TASKSTAT pipe    stdin a terminal, stdout a pipe: plain text
    tui_drive.py TASKSTAT tmux    the screen as tmux shows it: fits 80x24,
                                  200x60 and 40x12, help, P, o, q

Prints one line per check, "RESULT ok NAME", "RESULT fail NAME" or
"RESULT skip NAME # REASON", each failure followed by "# " lines saying
why; smoke.sh numbers them. Python 3 standard library only.
"""
import errno
import fcntl
import os
import pty
import re
import select
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time

# ncurses' ways of taking the screen: the alternate screen (smcup) or a
# clear; and of giving it back (rmcup).
TAKE = (b"\x1b[?1049h", b"\x1b[?47h", b"\x1b[2J", b"\x1b[H\x1b[J", b"\x1b[J")
GIVE_BACK = b"\x1b[?1049l"


def result(status, name, why=()):
    if status == "skip":
        print("RESULT skip %s # %s" % (name, why))
        return
    print("RESULT %s %s" % ("ok" if status else "fail", name))
    if not status:
        for w in why:
            print("# " + str(w).replace("\n", "\\n")[:300])
    sys.stdout.flush()


def term_env():
    env = dict(os.environ)
    # A terminal every ncurses knows, whatever runs this.
    env["TERM"] = "xterm" if os.path.exists("/usr/share/terminfo/x/xterm") or \
        os.path.exists("/lib/terminfo/x/xterm") else env.get("TERM", "vt100")
    env.setdefault("LANG", "C.UTF-8")
    return env


def set_size(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


class Pty:
    def __init__(self, argv, rows, cols):
        env = term_env()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            try:
                set_size(0, rows, cols)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.status = None

    def read(self, secs, until=None, quiet=None):
        """Output for at most @secs s; earlier once @until is in it, or
        once @quiet s pass without any after some came."""
        out = b""
        end = time.monotonic() + secs
        last = None
        while time.monotonic() < end:
            wait = end - time.monotonic()
            if quiet and last:
                wait = min(wait, last + quiet - time.monotonic())
                if wait <= 0:
                    break
            ready, _, _ = select.select([self.fd], [], [], max(wait, 0))
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError as e:
                if e.errno != errno.EIO:
                    raise
                chunk = b""
            if not chunk:
                break
            out += chunk
            last = time.monotonic()
            if until and until in out:
                break
        return out

    def exited(self, secs):
        """Waits up to @secs s for the end, draining its output: the
        wait status, or None."""
        end = time.monotonic() + secs
        self.tail = b""
        while time.monotonic() < end:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = st
                return st
            self.tail += self.read(0.1)
        return None

    def kill(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
        os.close(self.fd)


def mode_pty(ts):
    """q quits within 3 s with status 0, the screen is taken (and given
    back), and a resize (TIOCSWINSZ, SIGWINCH) is followed by a redraw."""
    t = Pty([ts, "top", "-d", "3"], 24, 80)
    try:
        first = t.read(8, quiet=0.5)
        # xterm's terminfo has smcup: ncurses takes the alternate screen.
        if term_env()["TERM"] == "xterm":
            took = b"\x1b[?1049h" in first
        else:
            took = any(s in first for s in TAKE)
        result(took and b"taskstat" in first,
               "top in a terminal takes the screen (ncurses) and draws a frame",
               ["%d bytes of output in 8 s: %r" % (len(first), first[:300])])
        # Just after a tick, a redraw within 1.5 s can only be the resize's.
        t.read(4, quiet=0.3)
        set_size(t.fd, 30, 100)
        os.kill(t.pid, signal.SIGWINCH)
        again = t.read(1.5)
        result(len(again) > 0, "top redraws after TIOCSWINSZ and SIGWINCH",
               ["nothing written within 1.5 s of the resize"])
        os.write(t.fd, b"q")
        st = t.exited(3)
        ok = st is not None and os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0
        result(ok, "top quits with status 0 within 3 s of 'q'",
               ["still running after 3 s" if st is None else "wait status 0x%x" % st])
        name = "top gives the terminal back on 'q' (rmcup)"
        if b"\x1b[?1049h" in first:
            result(GIVE_BACK in t.tail, name,
                   ["took the alternate screen, never left it: %r" % t.tail[-200:]])
        else:
            result("skip", name, "it took no alternate screen")
    finally:
        t.kill()


def mode_pipe(ts):
    """Standard input a terminal, output a pipe: plain text."""
    master, slave = pty.openpty()
    set_size(slave, 24, 80)
    try:
        p = subprocess.run([ts, "top", "-n", "1"], stdin=slave, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=term_env(), timeout=20)
    finally:
        os.close(slave)
        os.close(master)
    result(p.returncode == 0 and b"\x1b" not in p.stdout and b"taskstat top" in p.stdout,
           "top -n 1 | cat (stdin a terminal): plain text, no escape code",
           ["status %d, ESC at %d: %r" % (p.returncode, p.stdout.find(b"\x1b"),
                                          p.stdout[:200])])


class Tmux:
    def __init__(self, tmp):
        self.sock = "tsmoke%d" % os.getpid()
        self.env = dict(os.environ, TMUX_TMPDIR=tmp)
        self.env.pop("TMUX", None)

    def __call__(self, *args, check=True):
        p = subprocess.run(["tmux", "-L", self.sock, "-f", "/dev/null", *args],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=self.env, timeout=10)
        if check and p.returncode:
            raise RuntimeError("tmux %s: %s" % (" ".join(args), p.stderr.decode()))
        return p.stdout.decode("utf-8", "replace")

    def screen(self):
        """The visible lines, wrapped ones joined, trailing blanks cut."""
        lines = [ln.rstrip() for ln in self("capture-pane", "-p", "-J", "-t", "t")
                 .split("\n")]
        while lines and not lines[-1]:
            lines.pop()
        return lines


COLHDR = re.compile(r"\b(PID|TID)\b.*\b(COMM|NAME|COMMAND|CMD)\b|"
                    r"\b(COMM|NAME|COMMAND|CMD)\b.*\b(PID|TID)\b", re.I)


def fits(lines, rows, cols):
    why = ["%d lines for %d rows" % (len(lines), rows)] if len(lines) > rows else []
    why += ["line %d is %d columns wide: %r" % (i + 1, len(ln), ln[:120])
            for i, ln in enumerate(lines) if len(ln) > cols][:3]
    return why


def task_rows(lines):
    """The rows below the column header: lines whose first word is a number."""
    for i, ln in enumerate(lines):
        if COLHDR.search(ln):
            return [ln for ln in lines[i + 1:] if re.match(r"\s*\d+\s", ln)]
    return []


def row_ids(lines, prefer):
    """The ids of the rows, from the column the header names first in
    @prefer (say ("TID", "PID")); the first word if it names none."""
    hdr = next((ln.split() for ln in lines if COLHDR.search(ln)), [])
    idx = next((hdr.index(c) for c in prefer if c in hdr), 0)
    ids = []
    for ln in task_rows(lines):
        words = ln.split()
        if idx < len(words) and words[idx].isdigit():
            ids.append(int(words[idx]))
    return ids


def is_tgid(tid):
    try:
        with open("/proc/%d/status" % tid) as f:
            for ln in f:
                if ln.startswith("Tgid:"):
                    return int(ln.split()[1]) == tid
    except OSError:
        return None
    return None


def schedstats():
    """Each task's /proc/PID/task/TID/schedstat: run and wait time, slices."""
    st = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            for t in os.listdir("/proc/%s/task" % p):
                with open("/proc/%s/task/%s/schedstat" % (p, t)) as f:
                    st[int(t)] = f.read()
        except OSError:
            pass
    return st


def wait_screen(tm, secs, want):
    end = time.monotonic() + secs
    lines = []
    while time.monotonic() < end:
        lines = tm.screen()
        if want(lines):
            break
        time.sleep(0.2)
    return lines


def dump(lines):
    return ["screen: " + ln for ln in lines[:30]]


def mode_tmux(ts):
    names = ["top in tmux 80x24: header and column header, fits", "top 'h' shows the keys",
             "top: a key leaves the help", "top follows a resize to 200x60",
             "top 'P': one row per process", "top 'o': only active tasks",
             "top follows a resize to 40x12", "top 'q' quits (0) and gives the screen back"]
    if not shutil.which("tmux"):
        for n in names:
            result("skip", n, "no tmux")
        return
    tmp = tempfile.mkdtemp(prefix="tsmoke-tmux.")
    tm = Tmux(tmp)
    rcfile = os.path.join(tmp, "rc")
    spin = subprocess.Popen(["sh", "-c", "while :; do :; done"])
    sleeper = subprocess.Popen(["sleep", "300"])
    cmd = "printf 'BEFORE-TUI\\n'; TERM=%s LANG=C.UTF-8 %s top -d 1; rc=$?; " \
          "echo \"TUI-EXIT=$rc\"; : >%s; sleep 60" % (term_env()["TERM"], shlex.quote(ts),
                                                       shlex.quote(rcfile))
    try:
        tm("new-session", "-d", "-x", "80", "-y", "24", "-s", "t", cmd)
        head = lambda ls: any("taskstat top" in ln for ln in ls) and \
            any(COLHDR.search(ln) for ln in ls) and len(task_rows(ls)) > 0
        lines = wait_screen(tm, 8, head)
        why = fits(lines, 24, 80)
        result(head(lines) and not why, names[0], why + dump(lines))

        tm("send-keys", "-t", "t", "h")
        lines = wait_screen(tm, 3, lambda ls: any(re.search(r"\bquit", ln, re.I) for ln in ls))
        helped = any(re.search(r"\bq\b.*quit|quit.*\bq\b", ln, re.I) for ln in lines)
        why = fits(lines, 24, 80)
        result(helped and not why, names[1], why + dump(lines))
        tm("send-keys", "-t", "t", "z")
        lines = wait_screen(tm, 3, head)
        result(head(lines), names[2], dump(lines))

        tm("resize-window", "-t", "t", "-x", "200", "-y", "60")
        ntasks = sum(len(os.listdir("/proc/%s/task" % p)) for p in os.listdir("/proc")
                     if p.isdigit() and os.path.isdir("/proc/%s/task" % p))
        more = lambda ls: head(ls) and (len(ls) > 24 or ntasks < 40)
        lines = wait_screen(tm, 4, more)
        why = fits(lines, 60, 200)
        result(more(lines) and not why, names[3] + " (%d tasks: more than 24 lines)" % ntasks,
               why + dump(lines))

        tm("send-keys", "-t", "t", "P")
        time.sleep(2.5)
        lines = tm.screen()
        ids = row_ids(lines, ("PID", "TGID", "TID"))
        threads = [i for i in ids if is_tgid(i) is False]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        result(ids and not threads and not twice, names[4],
               ["rows of threads, not processes: %r; more than one row: %r" %
                (threads[:10], twice[:10])] + dump(lines))
        tm("send-keys", "-t", "t", "P")

        # Ground truth: a task that ran or waited to run changed its
        # schedstat; one that did not was idle (but for I/O in flight).
        before = schedstats()
        time.sleep(1.2)
        tm("send-keys", "-t", "t", "o")
        time.sleep(2.5)
        lines = tm.screen()
        after = schedstats()
        ids = row_ids(lines, ("TID", "PID"))
        idle = [i for i in ids if i in before and before[i] == after.get(i)]
        result(spin.pid in ids and sleeper.pid not in ids and not idle, names[5] +
               " (a spinner %d shown, a sleeper %d not, no idle task)" % (spin.pid, sleeper.pid),
               ["idle tasks shown: %r, rows of %r" % (idle[:10], ids[:40])] + dump(lines))
        tm("send-keys", "-t", "t", "o")

        tm("resize-window", "-t", "t", "-x", "40", "-y", "12")
        time.sleep(2.5)
        lines = tm.screen()
        why = fits(lines, 12, 40)
        result(any("taskstat" in ln for ln in lines) and not why, names[6], why + dump(lines))

        tm("send-keys", "-t", "t", "q")
        end = time.monotonic() + 3
        while time.monotonic() < end and not os.path.exists(rcfile):
            time.sleep(0.1)
        time.sleep(0.2)
        lines = tm.screen()
        quit_ok = any("TUI-EXIT=0" in ln for ln in lines)
        restored = any("BEFORE-TUI" in ln for ln in lines) and \
            not any("taskstat top" in ln for ln in lines)
        result(quit_ok and restored, names[7],
               ["no 'TUI-EXIT=0' within 3 s" if not quit_ok else "the screen is not restored"]
               + dump(lines))
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        result(False, "top in tmux", [str(e)])
    finally:
        tm("kill-server", check=False)
        for p in (spin, sleeper):
            p.kill()
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    sys.stdout.reconfigure(errors="backslashreplace")
    ts, mode = os.path.abspath(sys.argv[1]), sys.argv[2]
    {"pty": mode_pty, "pipe": mode_pipe, "tmux": mode_tmux}[mode](ts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
