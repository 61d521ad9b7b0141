#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare two runs of scripts/bench.sh side by side, e.g. a rerun with the
committed results (docs/bench/results.csv):

  bench/compare.py docs/bench build/bench-results/<timestamp>

Each argument is a results directory (or a results.csv).  For every scenario
and mechanism found in the first run, prints "first / second" for the
columns that say where pages went and what it cost: hot-set coverage,
over-promotion, time to 90% (before and after a phase change), the share of
the pages touched once that were promoted (scatter scenarios), promotions,
all migrations, the CPU time of the promotion thread and the task's system
time.  A column shows when either run has it (older results lack the newer
columns: "-").  With --repeat the values are medians.  It judges nothing;
see docs/bench.md for how much each column moves between runs.

Exit status 1 when a file cannot be read or has no rows.
"""
import csv
import os
import sys

COLUMNS = [
    ("hot_pct", "hot %", "%.1f"),
    ("over_pct", "over %", "%.1f"),
    ("t90", "t90 s", "%.1f"),
    ("t90_after_change", "t90' s", "%.1f"),
    ("once_pct", "once %", "%.1f"),
    ("promoted", "promoted", "%d"),
    ("migrated", "migrated", "%d"),
    ("kthread_cpu_s", "kthr CPU s", "%.2f"),
    ("task_sys_s", "task sys s", "%.2f"),
]
LABEL = {
    "off": "no promotion",
    "tiering": "mainline tiering",
    "base": "tiering, nopghot",
    "pghot": "pghot defaults",
    "pghot1": "pghot thr 1",
    "pghot2": "pghot thr 2",
    "damon-promote": "DAMON promote",
    "damon-bidir": "DAMON bidir",
}


def load(path):
    if os.path.isdir(path):
        path = os.path.join(path, "results.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise ValueError("%s has no rows" % path)
    return path, rows


def cell(row, key, fmt):
    if row is None:
        return "n/a"
    val = row.get(key, "")
    if val in ("", None):
        return "-"
    try:
        return fmt % float(val)
    except ValueError:
        return val


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 1
    try:
        (path_a, rows_a), (path_b, rows_b) = load(argv[1]), load(argv[2])
    except (OSError, ValueError) as e:
        print("compare.py: %s" % e, file=sys.stderr)
        return 1
    second = {(r["scenario"], r["mechanism"]): r for r in rows_b}
    print("first : %s\nsecond: %s" % (path_a, path_b))
    scenarios = []
    for row in rows_a:
        if row["scenario"] not in scenarios:
            scenarios.append(row["scenario"])
    for scenario in scenarios:
        rows = [r for r in rows_a if r["scenario"] == scenario]
        pairs = [(r, second.get((scenario, r["mechanism"]))) for r in rows]
        # The columns either run has a value for in this scenario.
        cols = [c for c in COLUMNS
                if any(r.get(c[0], "") not in ("", None) or
                       (o is not None and o.get(c[0], "") not in ("", None))
                       for r, o in pairs)]
        cells = [[cell(r, k, f) + " / " + cell(o, k, f) for k, _, f in cols] for r, o in pairs]
        widths = [max([len(t)] + [len(c[i]) for c in cells]) + 2
                  for i, (_, t, _) in enumerate(cols)]
        print("\n%s\n%-17s" % (scenario, "mechanism") +
              "".join("%*s" % (w, t) for w, (_, t, _) in zip(widths, cols)))
        for (r, _), c in zip(pairs, cells):
            status = "" if r.get("status", "ok") in ("ok", "") else "  (%s)" % r["status"]
            print("%-17s" % LABEL.get(r["mechanism"], r["mechanism"]) +
                  "".join("%*s" % (w, x) for w, x in zip(widths, c)) + status)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
