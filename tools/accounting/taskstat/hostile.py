#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hostile task names for smoke.sh: tasks that name themselves with
control characters, invalid UTF-8, UTF-8 and 15 bytes, then taskstat's
output about them checked against the bytes the kernel holds (read back
from /proc/PID/comm, the ground truth).

    hostile.py TASKSTAT get|get-json|listen|listen-json|top|top-json

Exits 0 if every name is shown right, 1 otherwise, with "# " lines that
say what was wrong. Python 3 standard library only.
"""
import calendar
import ctypes
import json
import os
import re
import select
import subprocess
import sys
import time

PR_SET_NAME = 15
# What each task asks for; the kernel keeps the first 15 bytes.
NAMES = [
    b"\x1b[31mred\nx\ty",       # an escape sequence, a newline, a tab
    b"\xc3\x28ab\xff",          # invalid UTF-8
    "é-café".encode(),          # valid UTF-8: shown as it is
    b"exactly15bytes!",         # 15 bytes: none cut
    "abcdefghijklmné".encode(),  # 16 bytes: the kernel cuts the é in two
    b"back\\slash\x7f",         # a backslash and DEL
]
RFC3339_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
problems = []


def bad(msg):
    problems.append(msg)


def text_form(raw):
    """The name as taskstat's text output must show it (taskstat(8)):
    printable UTF-8 as it is, a backslash doubled, each byte of a control
    character (C0, DEL, C1) or of invalid UTF-8 as \\xNN."""
    out = []
    for ch in raw.decode("utf-8", "surrogateescape"):
        cp = ord(ch)
        if 0xDC80 <= cp <= 0xDCFF:
            out.append("\\x%02x" % (cp - 0xDC00))
        elif cp < 0x20 or 0x7F <= cp < 0xA0:
            out.extend("\\x%02x" % b for b in ch.encode())
        elif ch == "\\":
            out.append("\\\\")
        else:
            out.append(ch)
    return "".join(out)


def set_name(raw):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NAME, ctypes.c_char_p(raw), 0, 0, 0):
        os._exit(99)


def comm_of(pid):
    """/proc's copy of the name: the bytes before the last newline."""
    with open("/proc/%d/comm" % pid, "rb") as f:
        data = f.read()
    return data[:-1] if data.endswith(b"\n") else data


def spawn_holders():
    """One child per name, renamed and waiting; returns [(pid, bytes)]
    and the pipe whose closing ends them."""
    r, w = os.pipe()
    kids = []
    for raw in NAMES:
        ready_r, ready_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(w)
            os.close(ready_r)
            set_name(raw)
            os.write(ready_w, b"x")
            os.close(ready_w)
            os.read(r, 1)  # until the parent closes its end
            os._exit(0)
        os.close(ready_w)
        os.read(ready_r, 1)
        os.close(ready_r)
        kids.append((pid, comm_of(pid)))
    os.close(r)
    return kids, w


def end_holders(kids, w):
    os.close(w)
    for pid, _ in kids:
        os.waitpid(pid, 0)


def expect_kernel_copy(kids):
    for (pid, got), raw in zip(kids, NAMES):
        if got != raw[:15]:
            bad("the kernel holds %r for %r: not the test's assumption" % (got, raw))


def run(ts, *args, timeout=30):
    p = subprocess.run([ts, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def text_safe(out, what):
    """No control byte but the newlines that end lines: decoded leniently,
    no C0 (but \\n), DEL or C1 character."""
    s = out.decode("utf-8", "surrogateescape")
    for i, ch in enumerate(s):
        cp = ord(ch)
        if ch != "\n" and (cp < 0x20 or 0x7F <= cp < 0xA0):
            bad("%s: a raw control character U+%04X at offset %d: %r" %
                (what, cp, i, s[max(0, i - 20):i + 20]))
            return False
    return True


def json_objs(out, what):
    objs = []
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        if not line.strip():
            continue
        try:
            objs.append(json.loads(line))
        except ValueError as e:
            bad("%s: not JSON (%s): %r" % (what, e, line[:200]))
    return objs


def json_name_ok(obj, key, raw, what):
    name = obj.get(key)
    if not isinstance(name, str):
        bad("%s: %s is %r, not a string" % (what, key, name))
        return
    try:
        back = name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as e:
        bad("%s: %s %r does not encode back to bytes (%s)" % (what, key, name, e))
        return
    if back != raw:
        bad("%s: %s decodes to %r, the task's name is %r" % (what, key, back, raw))
    try:
        text = raw.decode()
        if name != text:
            bad("%s: %s is %r, not %r" % (what, key, name, text))
    except UnicodeDecodeError:
        pass


def mode_get(ts, js):
    kids, w = spawn_holders()
    try:
        expect_kernel_copy(kids)
        # A task with a plain name: how many lines a record takes.
        rc, plain, err = run(ts, "get", "-p", str(os.getpid()))
        for pid, raw in kids:
            what = "get%s -p %d (name %r)" % (" --json" if js else "", pid, raw)
            if js:
                rc, out, err = run(ts, "get", "--json", "-p", str(pid))
                objs = json_objs(out, what)
                if rc or len(objs) != 1:
                    bad("%s: status %d, %d objects" % (what, rc, len(objs)))
                    continue
                json_name_ok(objs[0], "ac_comm", raw, what)
                continue
            rc, out, err = run(ts, "get", "-p", str(pid))
            if rc:
                bad("%s: status %d: %r" % (what, rc, err[:200]))
                continue
            text_safe(out, what)
            if out.count(b"\n") != plain.count(b"\n"):
                bad("%s: %d lines, %d for a task named plainly" %
                    (what, out.count(b"\n"), plain.count(b"\n")))
            lines = out.decode("utf-8", "surrogateescape").splitlines()
            comm = [ln.split(None, 1)[1] if " " in ln else "" for ln in lines
                    if ln.startswith("ac_comm ")]
            if [c.strip() for c in comm] != [text_form(raw)]:
                bad("%s: ac_comm line %r, expected %r" % (what, comm, text_form(raw)))
    finally:
        end_holders(kids, w)


def mode_listen(ts, js):
    args = ["listen", "--ppid", str(os.getpid()), "--count", str(len(NAMES))]
    if js:
        args.insert(1, "--json")
    what = "listen%s" % (" --json" if js else "")
    lst = subprocess.Popen([ts, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = b""
    deadline = time.monotonic() + 10
    while b"listening" not in err and time.monotonic() < deadline:
        ready, _, _ = select.select([lst.stderr], [], [], 0.5)
        if ready:
            chunk = os.read(lst.stderr.fileno(), 4096)
            if not chunk:
                break
            err += chunk
    if b"listening" not in err:
        lst.kill()
        lst.wait()
        bad("%s never said it listens: %r" % (what, err[:300]))
        return
    kids = []
    t0 = time.time()
    for i, raw in enumerate(NAMES):
        pid = os.fork()
        if pid == 0:
            set_name(raw)
            os._exit(i + 1)
        os.waitpid(pid, 0)
        kids.append((pid, raw[:15], i + 1))
    try:
        out, more = lst.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        lst.kill()
        out, more = lst.communicate()
        bad("%s did not end after %d exits" % (what, len(kids)))
    err += more
    t1 = time.time()
    if lst.returncode:
        bad("%s: status %d: %r" % (what, lst.returncode, err[:300]))
    if js:
        objs = json_objs(out, what)
        byid = {o.get("ac_pid"): o for o in objs if o.get("type") == "pid"}
        for pid, raw, code in kids:
            o = byid.get(pid)
            if not o:
                bad("%s: no record of task %d (%r)" % (what, pid, raw))
                continue
            json_name_ok(o, "ac_comm", raw, "%s, task %d" % (what, pid))
            if o.get("ac_exitcode") != code << 8:
                bad("%s: task %d exited %d, ac_exitcode %r" %
                    (what, pid, code, o.get("ac_exitcode")))
        for o in objs:
            ts_ok(o, t0, t1, what)
        return
    text_safe(out, what)
    lines = out.decode("utf-8", "surrogateescape").splitlines()
    if len(lines) != 1 + len(kids):
        bad("%s: %d lines for a header and %d records" % (what, len(lines), len(kids)))
    for pid, raw, code in kids:
        mine = [ln for ln in lines if re.match(r"pid +%d " % pid, ln)]
        want = " %s " % text_form(raw)
        if len(mine) != 1 or want not in mine[0] or " exit %d " % code not in mine[0]:
            bad("%s: task %d: lines %r, expected one with %r and 'exit %d'" %
                (what, pid, mine, want, code))


def ts_ok(o, t0, t1, what):
    """A "timestamp" member, RFC 3339 UTC, between @t0 and @t1 (s)."""
    stamp = o.get("timestamp")
    if not isinstance(stamp, str) or not RFC3339_UTC.match(stamp):
        bad("%s: timestamp %r is not RFC 3339 UTC" % (what, stamp))
        return
    t = calendar.timegm(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S"))
    if not t0 - 2 <= t <= t1 + 2:
        bad("%s: timestamp %s is not the time of the run" % (what, stamp))


def mode_top(ts, js):
    kids, w = spawn_holders()
    try:
        expect_kernel_copy(kids)
        if js:
            what = "top --once --json"
            rc, out, err = run(ts, "top", "--once", "--json")
            objs = json_objs(out, what)
            byid = {o.get("id"): o for o in objs}
            for pid, raw in kids:
                o = byid.get(pid)
                if not o:
                    bad("%s: no object of task %d (%r)" % (what, pid, raw))
                    continue
                json_name_ok(o, "comm" if "comm" in o else "ac_comm", raw,
                             "%s, task %d" % (what, pid))
            return
        what = "top -b -n 1"
        rc, out, err = run(ts, "top", "-b", "-n", "1")
        if rc:
            bad("%s: status %d: %r" % (what, rc, err[:300]))
        text_safe(out, what)
        lines = out.decode("utf-8", "surrogateescape").splitlines()
        for pid, raw in kids:
            # The name column may be cut: its first characters will do.
            want = text_form(raw)[:6]
            mine = [ln for ln in lines if re.match(r" *%d " % pid, ln)]
            if len(mine) != 1 or want not in mine[0]:
                bad("%s: task %d: rows %r, expected one with %r" % (what, pid, mine, want))
    finally:
        end_holders(kids, w)


def main():
    sys.stdout.reconfigure(errors="backslashreplace")
    ts, mode = sys.argv[1], sys.argv[2]
    {
        "get": lambda: mode_get(ts, False),
        "get-json": lambda: mode_get(ts, True),
        "listen": lambda: mode_listen(ts, False),
        "listen-json": lambda: mode_listen(ts, True),
        "top": lambda: mode_top(ts, False),
        "top-json": lambda: mode_top(ts, True),
    }[mode]()
    for p in problems[:20]:
        print("# " + p.replace("\n", "\\n")[:300])
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
