#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare two runs of scripts/bench.sh side by side, e.g. a rerun with the
committed results (docs/bench/results.csv):

  bench/compare.py docs/bench build/bench-results/<timestamp>

Each argument is a results directory (or a results.csv).  For every scenario
and mechanism found in the first run, prints "first / second" for the
columns that say where pages went and what it cost: hot-set coverage,
over-promotion, time to 90%, promotions, all migrations and the CPU time of
the promotion thread.  It judges nothing; see docs/bench.md for how much
each column moves between runs.

Exit status 1 when a file cannot be read or has no rows.
"""
import csv
import os
import sys

COLUMNS = [
    ("hot_pct", "hot %", "%.1f"),
    ("over_pct", "over %", "%.1f"),
    ("t90", "t90 s", "%.1f"),
    ("promoted", "promoted", "%d"),
    ("migrated", "migrated", "%d"),
    ("kthread_cpu_s", "kthr CPU s", "%.2f"),
]
LABEL = {
    "off": "no promotion",
    "tiering": "mainline tiering",
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
    return fmt % float(val)


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
    scenario = None
    for row in rows_a:
        if row["scenario"] != scenario:
            scenario = row["scenario"]
            print("\n%s\n%-17s" % (scenario, "mechanism") +
                  "".join("%22s" % title for _, title, _ in COLUMNS))
        other = second.get((scenario, row["mechanism"]))
        print("%-17s" % LABEL.get(row["mechanism"], row["mechanism"]) +
              "".join("%22s" % (cell(row, key, fmt) + " / " +
                                cell(other, key, fmt))
                      for key, _, fmt in COLUMNS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
