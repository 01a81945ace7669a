#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Formats the results of `make bench`.

    bench/report.py RUN_DIR [--md bench/results.md] [--png bench/ratios.png]

Input, in RUN_DIR:

  <kernel>-<clock>-<i>.txt   the output file of one boot (bench/guest-bench.sh):
                             kernel is reference, series or nostats; clock is
                             wall (plain TCG) or icount (TCG with -icount
                             shift=0); i counts the boots from 1. Lines are
                             "RESULT <name> <value> <unit>", where value is a
                             number, "error" or "unsupported"; every other line
                             (the '#' diagnostics) is ignored. Other files in
                             RUN_DIR are ignored.

  meta.json                  written by the rig; every key is optional:
    {
      "date":    "2025-01-31T12:00:00Z",   # when the bench run started
      "mode":    "full",                   # quick or full (guest-bench.sh $3)
      "boots":   5,                        # boots per kernel and clock
      "host":    "Linux build 6.1.0 x86_64 ...",   # uname -a of the host
      "kernels": {                         # one entry per kernel booted
        "reference": {"release": "6.12.0", "tree": "base",
                      "commit": "0123abcd...", "config": "CONFIG_TASKSTATS=y ..."},
        "series":    {"release": "6.12.0", "tree": "series", "commit": "..."},
        "nostats":   {"release": "6.12.0", "config": "# CONFIG_TASKSTATS is not set"}
      },                                   # an entry may also be a plain string
      "qemu": {                            # the QEMU command line of each clock,
        "wall":   "qemu-system-x86_64 -accel tcg -smp 2 -m 1536 ...",
        "icount": "qemu-system-x86_64 -accel tcg -icount shift=0 ..."
      },                                   # a string or a list of arguments
      "notes":   "free text for the header"
    }

Output:

  results.md   header (date, kernels, QEMU command lines), the goals of
               the benchmark issue (met or not, per clock), then one row per
               (workload, clock): unit with the good direction (higher or
               lower is better), the median over the boots of each kernel,
               the ratio series/reference (and series/nostats where the
               nostats kernel measured the workload, e.g. exit_l0), the
               spread ((max - min) / median of each kernel) and a verdict
               that only calls a difference with at least 3 boots of each
               kernel whose min..max ranges do not overlap. Then the dump
               against per-task GETs and against the /proc walk of top,
               htop and atop, within each kernel that has the dump (and
               one cgroup's dump against the whole-system dump);
               the memory table (RUN_DIR/memory.txt, from `make memory`);
               and --notes (default bench/analysis.md) when it exists.
               The QEMU command lines come from RUN_DIR/<kernel>-<clock>.qemu
               when the rig kept them, else from meta.json.
  ratios.png   a bar chart of series/reference per workload and clock,
               drawn with gnuplot (or matplotlib when gnuplot is missing).

Only the Python standard library is needed for results.md.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

KERNELS = ("reference", "series", "nostats")
CLOCKS = ("wall", "icount")
# A boot's files: KERNEL-CLOCK-BOOT.txt, its results; .failed, the rig's
# verdict on a boot that failed.
BOOT_NAME = rf"({'|'.join(KERNELS)})-({'|'.join(CLOCKS)})-(\d+)"
FILE_RE = re.compile(rf"^{BOOT_NAME}\.txt$")
FAILED_RE = re.compile(rf"^{BOOT_NAME}\.failed$")

HIGHER = "higher"
LOWER = "lower"
NEUTRAL = "info"


def direction(unit):
    """Which way is good for a unit: rates up, times and syscall counts down."""
    if unit.endswith("/s"):
        return HIGHER
    if unit in ("ns", "us", "ms", "s", "syscalls"):
        return LOWER
    return NEUTRAL


ARROW = {HIGHER: "↑ higher is better", LOWER: "↓ lower is better", NEUTRAL: "info"}
SHORT = {HIGHER: "↑", LOWER: "↓", NEUTRAL: ""}


def workload_key(name):
    """Orders workloads as guest-bench.sh runs them, numbers numerically;
    collect rows by task count, then method, then time/syscalls/records;
    a cgroup among N tasks after the methods of N, its dump before the
    whole-system dump it is compared with."""
    order = ("pingpong", "directio", "get_pid", "get_tgid", "collect", "exit")
    rank = next((i for i, p in enumerate(order) if name.startswith(p)), len(order))
    whats = (None, "time", "syscalls", "records")
    methods = (None, "pid", "dump", "tgid", "dumptgid", "proc")
    m = re.match(r"collect_cgroup_(\d+)_of_(\d+)(_whole)?(?:_(time|syscalls|records))?$", name)
    if m:
        return (rank, [int(m.group(2)), len(methods), int(m.group(1)), 1 if m.group(3) else 0,
                       whats.index(m.group(4))])
    m = re.match(r"collect_(?:(pid|dump|tgid|dumptgid|proc)_)?(\d+)"
                 r"(?:_(time|syscalls|records))?$", name)
    if m:
        return (rank, [int(m.group(2)), methods.index(m.group(1)), whats.index(m.group(3))])
    # exits: own listeners, then containers', then another cgroup's
    m = re.match(r"exit_(l|ns|cg)(\d+)$", name)
    if m:
        return (rank, [("l", "ns", "cg").index(m.group(1)), int(m.group(2))])
    parts = re.split(r"(\d+)", name)
    return (rank, [int(p) if p.isdigit() else p for p in parts])


def read_runs(run_dir):
    """{(workload, clock): {kernel: {"values": [...], "bad": [...], "unit": u}}}"""
    data = {}
    files = 0
    for fn in sorted(os.listdir(run_dir)):
        m = FILE_RE.match(fn)
        if not m:
            continue
        files += 1
        kernel, clock = m.group(1), m.group(2)
        with open(os.path.join(run_dir, fn), encoding="utf-8", errors="replace") as f:
            for line in f:
                fields = line.split()
                if len(fields) != 4 or fields[0] != "RESULT":
                    continue
                _, name, value, unit = fields
                cell = data.setdefault((name, clock), {}).setdefault(
                    kernel, {"values": [], "bad": [], "unit": None})
                try:
                    cell["values"].append(float(value))
                    cell["unit"] = unit
                except ValueError:
                    cell["bad"].append(value)
    return data, files


def summary(cell):
    """Median, min, max and n of a kernel's values, or None."""
    if not cell or not cell["values"]:
        return None
    v = cell["values"]
    return {"median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v)}


def fmt_num(x):
    if x is None:
        return "–"
    if abs(x) >= 100 or x == int(x):
        return f"{x:,.0f}".replace(",", " ")
    return f"{x:.3g}"


def fmt_cell(cell):
    """The median of a kernel, or why there is none."""
    s = summary(cell)
    if s is None:
        if not cell:
            return "–"
        bad = cell["bad"]
        word = max(set(bad), key=bad.count) if bad else "–"
        return word
    text = fmt_num(s["median"])
    if cell["bad"]:
        text += f" ({len(cell['bad'])} {cell['bad'][0]})"
    return text


def spread(cell):
    s = summary(cell)
    if s is None or s["median"] == 0:
        return None
    return (s["max"] - s["min"]) / abs(s["median"]) * 100


def ratio(a, b):
    sa, sb = summary(a), summary(b)
    if sa is None or sb is None or sb["median"] == 0:
        return None
    return sa["median"] / sb["median"]


MIN_BOOTS = 3


def verdict(ser, ref, unit):
    """'better'/'worse' only with MIN_BOOTS boots of each kernel whose
    min..max ranges do not overlap: one boot has no spread to judge by."""
    ss, sr = summary(ser), summary(ref)
    d = direction(unit)
    if ss is None or sr is None or d == NEUTRAL:
        return ""
    if ss["min"] == ss["max"] == sr["min"] == sr["max"] and min(ss["n"], sr["n"]) > 1:
        return "equal"
    if min(ss["n"], sr["n"]) < MIN_BOOTS:
        return f"none (< {MIN_BOOTS} boots)"
    if ss["min"] > sr["max"]:
        up = True
    elif ss["max"] < sr["min"]:
        up = False
    else:
        return "≈ (ranges overlap)"
    good = up if d == HIGHER else not up
    return "series better" if good else "series worse"


def goal_status(ok, a, b, unit):
    """Whether a goal 'a not worse than b' holds: met when the medians say
    so; a miss is 'not met' when the ranges separate, noise when they overlap."""
    if ok:
        return "met"
    v = verdict(a, b, unit)
    if v.startswith("series"):
        return "**not met**"
    if v.startswith("none"):
        return f"missed by the medians; too few boots (< {MIN_BOOTS}) to judge"
    return "missed by the medians, within the noise (ranges overlap)"


def goals(data, clocks=CLOCKS):
    """The goals of the benchmark issue, checked per clock: [goal, clock, measured, status]."""
    rows = []

    def cell(name, clock, k):
        return data.get((name, clock), {}).get(k)

    for clock in clocks:
        # series >= reference (rates) or <= (latencies), row by row
        for name, what in (("pingpong_delayacct_off", "pipe round trips, delay accounting off"),
                           ("pingpong_delayacct_on", "pipe round trips, delay accounting on"),
                           ("directio_delayacct_off", "O_DIRECT reads, delay accounting off"),
                           ("directio_delayacct_on", "O_DIRECT reads, delay accounting on"),
                           ("directio_cpu_delayacct_off",
                            "CPU time per O_DIRECT read, delay accounting off"),
                           ("directio_cpu_delayacct_on",
                            "CPU time per O_DIRECT read, delay accounting on"),
                           ("get_pid", "GET latency, one pid"),
                           ("get_tgid_1", "TGID GET latency, 2 threads"),
                           ("get_tgid_64", "TGID GET latency, 64 threads"),
                           ("get_tgid_64_delayacct_on",
                            "TGID GET latency, 64 threads with delay accounting"),
                           ("get_tgid_4096", "TGID GET latency, 4097 threads"),
                           ("get_tgid_4096_siglock_rate",
                            "siglock takes of a thread of a group read by TGID GETs"),
                           ("exit_l0", "fork+exit+wait, no listener"),
                           ("exit_l1", "fork+exit+wait, 1 listener"),
                           ("exit_l4", "fork+exit+wait, 4 listeners")):
            ser, ref = cell(name, clock, "series"), cell(name, clock, "reference")
            r = ratio(ser, ref)
            if r is None:
                continue
            unit = unit_of(data[(name, clock)])
            d = direction(unit)
            ok = r >= 1 if d == HIGHER else r <= 1
            sign = "≥" if d == HIGHER else "≤"
            rows.append([f"{what}: series {sign} reference", clock, f"ratio {r:.3f}",
                         goal_status(ok, ser, ref, unit)])
        # delay accounting on costs <= 2 % against off, in the series
        on, off = (cell(f"pingpong_delayacct_{s}", clock, "series") for s in ("on", "off"))
        r = ratio(on, off)
        if r is not None:
            rows.append(["pipe round trips: delay accounting on costs ≤ 2 % against off "
                         "(series)", clock, f"on/off {r:.3f} (cost {(1 - r) * 100:+.1f} %)",
                         goal_status(r >= 0.98, on, off, "roundtrips/s")])
        # dump >= 5x faster than per-pid GET at N = 10000
        dump, pid = (cell(f"collect_{m}_10000_time", clock, "series") for m in ("dump", "pid"))
        r = ratio(pid, dump)
        if r is not None:
            rows.append(["collecting 10 000 tasks: dump ≥ 5× faster than one GET per pid "
                         "(series)", clock, f"{r:.1f}× faster",
                         "met" if r >= 5 else "**not met**"])
        # the dump >= 20x faster than the /proc walk of top, htop and atop
        # (stat, io and schedstat of every thread) at N = 10000
        dump, proc = (cell(f"collect_{m}_10000_time", clock, "series") for m in ("dump", "proc"))
        r = ratio(proc, dump)
        if r is not None:
            rows.append(["collecting 10 000 tasks: dump ≥ 20× faster than the /proc walk of "
                         "top/htop/atop (stat, io, schedstat of every thread) (series)", clock,
                         f"{r:.1f}× faster", "met" if r >= 20 else "**not met**"])
        # one cgroup's dump costs <= 1/20 of the whole-system dump, in the series
        cg, whole = (cell(f"collect_cgroup_100_of_10000{w}_time", clock, "series")
                     for w in ("", "_whole"))
        r = ratio(cg, whole)
        if r is not None:
            rows.append(["collecting one cgroup of 100 tasks among 10 000: its dump costs "
                         "≤ 1/20 of the whole-system dump (series)", clock,
                         f"cgroup/whole {r:.3f}" + (f" (1/{1 / r:.0f})" if r > 0 else ""),
                         "met" if r <= 1 / 20 else "**not met**"])
        # container listeners cost host exits <= 2 %, in the series: against
        # the same containers without a listener, so that what is measured
        # is the listeners, not the namespaces
        ns = cell("exit_ns1000", clock, "series")
        ns0, l0 = cell("exit_ns0", clock, "series"), cell("exit_l0", clock, "series")
        r = ratio(ns, ns0)
        if r is not None:
            rows.append(["fork+exit+wait with 1 000 listeners registered from containers: "
                         "within 2 % of the same 4 containers without a listener (series)",
                         clock, f"ns1000/ns0 {r:.3f} (cost {(1 - r) * 100:+.1f} %)",
                         goal_status(r >= 0.98, ns, ns0, "forks/s")])
        r = ratio(ns, l0)
        if r is not None:
            rows.append(["(for comparison) the same against no container and no listener",
                         clock, f"ns1000/l0 {r:.3f} (cost {(1 - r) * 100:+.1f} %)", "–"])
        # listeners registered for another cgroup cost fork+exit+wait
        # <= 1 %, in the series: against the same two cgroups without a
        # listener (exit_cg0), so that the cgroups themselves are not counted
        cg0 = cell("exit_cg0", clock, "series")
        for n, what in ((1, "1 listener"), (100, "100 listeners")):
            cg = cell(f"exit_cg{n}", clock, "series")
            r = ratio(cg, cg0)
            if r is not None:
                rows.append([f"fork+exit+wait with {what} registered for another cgroup: "
                             "within 1 % of no listener (series)", clock,
                             f"cg{n}/cg0 {r:.3f} (cost {(1 - r) * 100:+.1f} %)",
                             goal_status(r >= 0.99, cg, cg0, "forks/s")])
        # no-listener exit cost <= 1 % against TASKSTATS=n
        ser, nos = cell("exit_l0", clock, "series"), cell("exit_l0", clock, "nostats")
        r = ratio(ser, nos)
        if r is not None:
            rows.append(["fork+exit+wait, no listener: costs ≤ 1 % against TASKSTATS=n "
                         "(series)", clock, f"series/nostats {r:.3f} (cost "
                         f"{(1 - r) * 100:+.1f} %)", goal_status(r >= 0.99, ser, nos,
                                                                 "forks/s")])
            ref = cell("exit_l0", clock, "reference")
            rr = ratio(ref, nos)
            if rr is not None:
                rows.append(["(for comparison) the same cost of the reference", clock,
                             f"reference/nostats {rr:.3f} (cost {(1 - rr) * 100:+.1f} %)",
                             "–"])
    return rows


def unit_of(cells):
    for k in KERNELS:
        if cells.get(k) and cells[k]["unit"]:
            return cells[k]["unit"]
    return "-"


def meta_text(meta, data_kernels, run_dir):
    out = []
    date = meta.get("date") or "unknown (no date in meta.json)"
    out.append(f"- Date: {date}")
    for key, label in (("mode", "Mode"), ("boots", "Boots per kernel and clock"),
                       ("host", "Host")):
        if key in meta:
            out.append(f"- {label}: {meta[key]}")
    out.append(f"- Results: `{relative(os.path.abspath(run_dir))}`")
    kernels = meta.get("kernels", {})
    for k in KERNELS:
        if k not in kernels and k not in data_kernels:
            continue
        v = kernels.get(k, "not described in meta.json")
        if isinstance(v, dict):
            v = ", ".join(f"{a} {b}" for a, b in v.items())
        extra = data_kernels.get(k)
        if extra:
            v = f"{v}; guest uname -r: {', '.join(sorted(extra))}"
        out.append(f"- Kernel `{k}`: {v}")
    qemu = meta.get("qemu", {})
    recorded = qemu_lines(run_dir)
    for c in CLOCKS:
        if c in recorded:
            for line in recorded[c]:
                out.append(f"- QEMU ({c}, {line}")
        elif c in qemu:
            q = qemu[c]
            if isinstance(q, list):
                q = " ".join(q)
            out.append(f"- QEMU ({c}): `{q}`")
    if meta.get("notes"):
        out.append(f"- Notes: {meta['notes']}")
    for name, verdict in failed_boots(run_dir):
        console = os.path.exists(os.path.join(run_dir, f"{name}.console.log"))
        out.append(f"- Failed boot `{name}`, not counted: {verdict}" +
                   (f" (its console: `{name}.console.log` in the results)" if console else
                    " (its console was not kept)"))
    return out


def failed_boots(run_dir):
    """[(kernel-clock-boot, the rig's verdict)] of the boots that failed."""
    out = []
    for fn in sorted(os.listdir(run_dir)):
        if FAILED_RE.match(fn):
            with open(os.path.join(run_dir, fn), encoding="utf-8", errors="replace") as f:
                verdict = "; ".join(line.strip() for line in f if line.startswith("not ok"))
            out.append((fn[:-len(".failed")], verdict or "no verdict recorded"))
    return out


# The repository: committed reports name paths relative to it.
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def relative(text):
    """@text with the repository's absolute path made relative to it."""
    return text.replace(REPO + "/", "").replace(REPO, ".")


def qemu_lines(run_dir):
    """{clock: [text, ...]} from the <kernel>-<clock>.qemu files the rig keeps:
    the series' command line, and which kernels differ from it only by their
    own kernel name in paths, which are relative to the repository."""
    out = {}
    for c in CLOCKS:
        cmds = {}
        for k in KERNELS:
            path = os.path.join(run_dir, f"{k}-{c}.qemu")
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    cmds[k] = relative(f.read().strip())
        if not cmds:
            continue
        first = "series" if "series" in cmds else sorted(cmds)[0]
        same = [k for k in cmds if k != first and
                re.sub(rf"\b{k}\b", first, cmds[k]) == cmds[first]]
        lines = [f"{first}): `{cmds[first]}`"]
        if same:
            lines[0] = f"{first}; {', '.join(same)} the same with their own kernel " + \
                       f"and run directory): `{cmds[first]}`"
        lines += [f"{k}): `{cmds[k]}`" for k in cmds if k != first and k not in same]
        out[c] = lines
    return out


def guest_releases(run_dir):
    """{kernel: {uname -r, ...}} from the files' '# taskstats bench:' lines."""
    rel = {}
    for fn in os.listdir(run_dir):
        m = FILE_RE.match(fn)
        if not m:
            continue
        with open(os.path.join(run_dir, fn), encoding="utf-8", errors="replace") as f:
            for line in f:
                g = re.match(r"# taskstats bench: kernel (\S+)", line)
                if g:
                    rel.setdefault(m.group(1), set()).add(g.group(1))
    return rel


def cgroup_rows(name, clock, data):
    """One cgroup's dump against the whole-system dump at the same moment,
    per kernel that has both: [comparison, clock, kernel, ratios, records]."""
    m = re.match(r"collect_cgroup_(\d+)_of_(\d+)_time$", name)
    rows = []
    for k in KERNELS:
        cells = {(w, what): data.get((f"collect_cgroup_{m.group(1)}_of_{m.group(2)}{w}_{what}",
                                      clock), {}).get(k)
                 for w in ("", "_whole") for what in ("time", "syscalls", "records")}
        t = ratio(cells[("", "time")], cells[("_whole", "time")])
        if t is None:
            continue
        sc = ratio(cells[("", "syscalls")], cells[("_whole", "syscalls")])
        rec_c, rec_w = summary(cells[("", "records")]), summary(cells[("_whole", "records")])
        rows.append([f"cgroup of {m.group(1)} vs whole-system dump, N={m.group(2)}", clock, k,
                     f"{t:.3f}", "–" if sc is None else f"{sc:.4f}",
                     f"{fmt_num(rec_c and rec_c['median'])} / "
                     f"{fmt_num(rec_w and rec_w['median'])}"])
    return rows


def dump_rows(data):
    """Dump against per-task GETs within each kernel and clock that has both;
    a cgroup's dump against the whole-system dump."""
    rows = []
    names = {n for n, _ in data}
    for name in sorted(names, key=workload_key):
        if re.match(r"collect_cgroup_\d+_of_\d+_time$", name):
            for clock in CLOCKS:
                rows += cgroup_rows(name, clock, data)
            continue
        m = re.match(r"collect_(dump|dumptgid)_(\d+)_time$", name)
        if not m:
            continue
        n = m.group(2)
        # the dump against the GETs; the per-task dump also against the
        # /proc walk of top, htop and atop
        bases = [("pid", "GET pid") if m.group(1) == "dump" else ("tgid", "GET tgid")]
        if m.group(1) == "dump":
            bases.append(("proc", "/proc walk (stat, io, schedstat)"))
        for base, label in bases:
            for clock in CLOCKS:
                for k in KERNELS:
                    cells = {}
                    for what in ("time", "syscalls", "records"):
                        for meth in (m.group(1), base):
                            c = data.get((f"collect_{meth}_{n}_{what}", clock), {}).get(k)
                            cells[(meth, what)] = c
                    t = ratio(cells[(m.group(1), "time")], cells[(base, "time")])
                    if t is None:
                        continue
                    sc = ratio(cells[(m.group(1), "syscalls")], cells[(base, "syscalls")])
                    rec_d = summary(cells[(m.group(1), "records")])
                    rec_g = summary(cells[(base, "records")])
                    rows.append([f"{m.group(1)} vs {label}, N={n}", clock, k,
                                 f"{t:.3f} (1/{1 / t:.1f})" if t > 0 else f"{t:.3f}",
                                 "–" if sc is None else f"{sc:.4f}",
                                 f"{fmt_num(rec_d and rec_d['median'])} / "
                                 f"{fmt_num(rec_g and rec_g['median'])}"])
    return rows


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def fold_status_rows(data):
    """A kernel's "NAME unsupported" (or error) stands for the NAME_* rows that
    other kernels measured: its word goes into those rows and the bare NAME
    row goes away when every kernel's NAME cell was folded."""
    names = {n for n, _ in data}
    for (name, clock) in list(data):
        m = re.match(r"collect_(\d+)$", name)
        if m:   # collect_N stands for collect_<method>_N_<what>
            children = [c for c in names
                        if re.match(rf"collect_[a-z]+_{m.group(1)}_[a-z]+$", c)]
        else:
            children = [c for c in names if c.startswith(name + "_")]
        if not children:
            continue
        cells = data[(name, clock)]
        for k, cell in list(cells.items()):
            if cell["values"]:
                continue
            for c in children:
                row = data.get((c, clock))
                if row is not None and k not in row:
                    row[k] = {"values": [], "bad": list(cell["bad"]), "unit": None}
            del cells[k]
        if not cells:
            del data[(name, clock)]


def memory_text(run_dir):
    """The `make memory` table the rig saved with the run, if any."""
    path = os.path.join(run_dir, "memory.txt")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        table = f.read().rstrip("\n")
    return ["", "## Memory per task", "",
            "Bytes of accounting state per task (`make memory`: sizeof read from the "
            "compiler in each tree, x86_64, the bench config). The goal: series ≤ "
            "reference plus the v16/v17 fields at their tightest encoding (u64 max, min "
            "and time of max per delay class: 7 × 24 = 168 bytes in task_delay_info, "
            "24 in sched_info for the cpu class); nothing when delay accounting is "
            "compiled out (the `nostats` column, if present).", "",
            "```", table, "```"]


def build(data, meta, run_dir, files, notes=None):
    lines = ["# taskstats benchmark: series against reference", ""]
    lines += meta_text(meta, guest_releases(run_dir), run_dir)
    lines += ["", f"{files} result files. Medians over the boots of each kernel; boot i "
              "runs the workload blocks (delays, GETs, collecting, exits) starting at "
              "block i, so that the boots differ in what ran before each row; "
              "ratio = series median / reference median (for ↑ rows above 1 is "
              "better, for ↓ rows below 1 is better); spread = (max − min) / median "
              "of each kernel's boots; the verdict calls a difference only when the "
              "kernels' min..max ranges do not overlap. `unsupported`/`error` are "
              "what the guest reported instead of a number.", ""]
    fold_status_rows(data)
    grows = goals(data)
    if grows:
        lines += ["## Goals", "",
                  "The goals of the benchmark issue, per clock. `met` goes by the "
                  "medians; a goal the medians miss is `not met` only when the two "
                  "kernels' ranges separate, otherwise the miss is within the noise.", ""]
        lines += md_table(["goal", "clock", "measured", "status"], grows)
        lines += ["", "## All rows", ""]
    has_nostats = any("nostats" in cells for cells in data.values())
    header = ["workload", "unit", "good", "clock", "reference", "series", "ratio"]
    if has_nostats:
        header += ["nostats", "series/nostats"]
    header += ["spread ref / ser", "verdict"]
    rows, chart = [], []
    for (name, clock) in sorted(data, key=lambda k: (workload_key(k[0]), CLOCKS.index(k[1]))):
        cells = data[(name, clock)]
        unit = unit_of(cells)
        ref, ser, nos = cells.get("reference"), cells.get("series"), cells.get("nostats")
        r = ratio(ser, ref)
        sr, ss = spread(ref), spread(ser)
        row = [f"`{name}`", unit, SHORT[direction(unit)], clock, fmt_cell(ref), fmt_cell(ser),
               "–" if r is None else f"{r:.3f}"]
        if has_nostats:
            rn = ratio(ser, nos)
            row += [fmt_cell(nos), "–" if rn is None else f"{rn:.3f}"]
        row += [f"{'–' if sr is None else f'{sr:.1f}%'} / {'–' if ss is None else f'{ss:.1f}%'}",
                verdict(ser, ref, unit)]
        rows.append(row)
        if r is not None and direction(unit) != NEUTRAL and unit != "syscalls":
            chart.append((name, clock, r, direction(unit)))
    lines += md_table(header, rows)
    drows = dump_rows(data)
    if drows:
        cgroup = any(r[0].startswith("cgroup of") for r in drows)
        lines += ["", "## Dump against one GET per /proc entry", "",
                  "Within one kernel: time and syscalls of the dump divided by those of "
                  "the per-pid (or per-tgid) GETs over /proc, and of the per-task dump "
                  "by those of the /proc walk of top, htop and atop (stat, io and "
                  "schedstat of every thread; (1/N): the dump is N× faster); records are "
                  "what each method collected (the dump and the walk see every task, the "
                  "GETs every process)." +
                  (" The cgroup rows divide the dump of one cgroup by the whole-system "
                   "dump taken alternately with it, with the same tasks running."
                   if cgroup else ""), ""]
        lines += md_table(["comparison", "clock", "kernel", "time ratio", "syscall ratio",
                           "records dump / GET or walk" + (" (cgroup / whole)" if cgroup else "")],
                          drows)
    lines += memory_text(run_dir)
    if notes:
        lines += ["", notes.rstrip("\n")]
    lines += ["", "Directions: " + "; ".join(ARROW[d] for d in (HIGHER, LOWER)) +
              "; records rows are information (what each method collected).",
              "", "Chart: `ratios.png` (series/reference of the time and rate rows, "
              "per workload and clock).", ""]
    return "\n".join(lines), chart, console_table(rows)


def console_table(rows):
    """The rows as plain aligned text for the terminal: workload, clock,
    reference, series, ratio and verdict (rows[i] as build() makes them)."""
    keep = [(r[0].strip("`"), r[3], r[4], r[5], r[6], r[-1]) for r in rows
            if r[2] and r[6] != "–"]
    head = ("workload", "clock", "reference", "series", "ratio", "verdict")
    width = [max(len(str(x[i])) for x in keep + [head]) for i in range(len(head))]
    fmt = "  ".join(f"{{:<{w}}}" if i in (0, 1, 5) else f"{{:>{w}}}"
                    for i, w in enumerate(width))
    return "\n".join(fmt.format(*x).rstrip() for x in [head] + keep)


def chart_gnuplot(chart, png):
    names = sorted({c[0] for c in chart}, key=workload_key)
    dirs = {c[0]: c[3] for c in chart}
    val = {(c[0], c[1]): c[2] for c in chart}
    with tempfile.TemporaryDirectory() as tmp:
        dat = os.path.join(tmp, "ratios.dat")
        with open(dat, "w", encoding="utf-8") as f:
            for n in names:
                label = f"{n} {SHORT[dirs[n]]}"
                cols = [f"{val[(n, c)]:.4f}" if (n, c) in val else "?" for c in CLOCKS]
                f.write(f"\"{label}\" {' '.join(cols)}\n")
        width = max(800, 60 * len(names) + 200)
        script = f"""
set terminal pngcairo size {width},600 font "DejaVu Sans,10" noenhanced
set output "{png}"
set title "taskstats: series / reference (median of boots); ↑ higher is better, ↓ lower is better"
set datafile missing "?"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -40 scale 0 font ",9"
set ylabel "ratio series / reference"
set yrange [0:*]
set grid ytics
set key top left
set bmargin 10
plot "{dat}" using 2:xtic(1) title "wall" lc rgb "#4472c4", \\
     "" using 3 title "icount" lc rgb "#ed7d31", \\
     1 with lines dt 2 lc rgb "black" notitle
"""
        res = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
        if res.returncode:
            sys.stderr.write(res.stderr)
            return False
    return True


def chart_matplotlib(chart, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    names = sorted({c[0] for c in chart}, key=workload_key)
    dirs = {c[0]: c[3] for c in chart}
    val = {(c[0], c[1]): c[2] for c in chart}
    fig, ax = plt.subplots(figsize=(max(8, 0.6 * len(names) + 2), 6))
    w = 0.4
    for j, c in enumerate(CLOCKS):
        xs = [i + (j - 0.5) * w for i, n in enumerate(names) if (n, c) in val]
        ys = [val[(n, c)] for n in names if (n, c) in val]
        ax.bar(xs, ys, w, label=c)
    ax.axhline(1, color="black", linestyle="--", linewidth=1)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([f"{n} {SHORT[dirs[n]]}" for n in names], rotation=40, ha="right")
    ax.set_ylabel("ratio series / reference")
    ax.set_title("taskstats: series / reference (↑ higher is better, ↓ lower is better)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    return True


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("run_dir")
    ap.add_argument("--md", default=os.path.join(here, "results.md"))
    ap.add_argument("--png", default=os.path.join(here, "ratios.png"))
    ap.add_argument("--notes", default=os.path.join(here, "analysis.md"),
                    help="hand-written analysis appended to results.md, if it exists")
    args = ap.parse_args()

    if not os.path.isdir(args.run_dir):
        sys.exit(f"report.py: {args.run_dir} is not a directory")
    data, files = read_runs(args.run_dir)
    if not files:
        sys.exit(f"report.py: no <kernel>-<clock>-<i>.txt result files in {args.run_dir}")
    meta = {}
    meta_path = os.path.join(args.run_dir, "meta.json")
    if os.path.exists(meta_path):
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
    else:
        print(f"report.py: {meta_path} missing: the header will be thin", file=sys.stderr)
    notes = None
    if args.notes and os.path.exists(args.notes):
        with open(args.notes, encoding="utf-8") as f:
            notes = f.read()
    text, chart, table = build(data, meta, args.run_dir, files, notes)
    print(table)
    with open(args.md, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"report.py: wrote {args.md} ({len(data)} rows from {files} files)")
    if not chart:
        print("report.py: no ratios to chart", file=sys.stderr)
        return
    drawn = False
    if shutil.which("gnuplot"):
        drawn = chart_gnuplot(chart, args.png)
    if not drawn:
        drawn = chart_matplotlib(chart, args.png)
    if drawn:
        print(f"report.py: wrote {args.png}")
    else:
        print("report.py: neither gnuplot (apt-get install gnuplot-nox) nor matplotlib "
              "could draw the chart", file=sys.stderr)


if __name__ == "__main__":
    main()
