#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of a scripts/bench.sh run: read RESULTS/raw/<scenario>-<mech>.txt
(the guest output of bench/bench-guest.sh; <scenario>-<mech>.repN.txt for the
repetitions of --repeat) and write

  results.txt      a 72-column summary, the tables (one per scenario, the
                   median of the repetitions and their min-max), the vmstat
                   deltas, with a legend and the run's notes
  summary.txt      the 72-column summary alone (fits a cover letter)
  results.csv      one row per scenario and mechanism, every metric (median;
                   *_min and *_max of the main ones when repeated)
  runs.csv         one row per run (every repetition), with its vmstat deltas
  timeseries.csv   every sample of every run (long format)
  series/*.csv     the same per run, for gnuplot
  residency-<scenario>.png, plot.gp   top-tier residency over time
  migrations-<scenario>.png           promotions, demotions and migrations
                   per second over time, one line per mechanism

Exit status 1 when a run's output cannot be parsed or an output is missing
(the harness is broken), 0 otherwise; failed and skipped runs are reported
as such.  With --assert-smoke: exit status 3 unless the scatter run of pghot
promoted (pgpromote_success > 0, >= 50% of the hot set in the top tier) and
filtered the pages touched once (<= 5% of them in the top tier).

usage: report.py [--assert-smoke] RESULTS_DIR
"""
import csv
import os
import re
import statistics
import subprocess
import sys
import textwrap

MECH_ORDER = ["off", "tiering", "base", "pghot", "pghot1", "pghot2", "pghot-precise",
              "damon-promote", "damon-bidir"]
MECH_COLOUR = {
    "off": "#808080", "tiering": "#1b9e3e", "base": "#66c2a4", "pghot": "#b2182b",
    "pghot1": "#d7191c", "pghot2": "#fdae61", "pghot-precise": "#8c510a",
    "damon-promote": "#2c7bb6",
    "damon-bidir": "#7b3294",
}
MECH_LABEL = {
    "off": "no promotion (NB=0)",
    "tiering": "mainline tiering (NB=2)",
    "base": "tiering, nopghot kernel",
    "pghot": "pghot hint faults, defaults",
    "pghot1": "pghot hint faults, thr 1",
    "pghot2": "pghot hint faults, thr 2",
    "pghot-precise": "pghot defaults, precise kernel",
    "damon-promote": "DAMON promote-only",
    "damon-bidir": "DAMON bidirectional",
}
# Short names for the 72-column tables.
MECH_SHORT = {"tiering": "tier", "pghot-precise": "pghotP", "damon-promote": "dmn-p",
              "damon-bidir": "dmn-b"}
SCEN_ORDER = ["chase-st", "chase-mt", "phase", "overcommit", "redis", "scatter",
              "scatter-big", "scatter-slow", "scatter-full", "skewed", "phase-full", "redis-zipf"]
# The scenarios of an overcommitted top tier (issue 12): their tables show
# churn as (promoted + demoted) / net hot pages placed, the hot pages
# demoted, the migration rate at the end and kswapd's CPU time.
PRESSURE = {"skewed", "phase-full", "redis-zipf"}
# Scenarios whose samples are redis-server's memory (hotset --watch).
REDIS = {"redis", "redis-zipf"}
SCEN_TITLE = {
    "chase-st": "hot-set pointer chase, single-threaded",
    "chase-mt": "hot-set pointer chase, one hot chunk per thread",
    "phase": "phase change: the hot set moves midway",
    "overcommit": "top tier overcommitted (demotion_enabled=1)",
    "redis": "redis-server GETs over part of the keyspace",
    "scatter": "scattered hot set and frequency classes",
    "scatter-big": "scattered hot set and frequency classes, big buffer",
    "scatter-slow": "scattered hot set, slow scanner (scan_period_min_ms=4000)",
    "scatter-full": "scattered hot set, top tier full of other data (demotion on)",
    "skewed": "top tier overcommitted: hot part fits, warm part does not (demotion on)",
    "phase-full": "top tier full: the hot part moves to fresh pages (demotion on)",
    "redis-zipf": "redis-server, dataset > fast node, Zipf-like GETs (demotion on)",
}
# Frequency classes: CSV column prefix, short title.
CLASSES = [("c100ms", ".1s"), ("c1s", "1s"), ("c5s", "5s"), ("c30s", "30s"), ("once", "once")]
# Columns of the hotset CSV that are not /proc/vmstat counters.
NON_COUNTERS = {"t_s", "phase", "hot_top_pct", "cold_top_pct", "top_mb", "lat_ns", "over_pct",
                "once_done_pct", "never_top_pct", "oldhot_top_pct", "coldover_pct", "fill_top_pct",
                "kthread_cpu_s", "task_user_s", "task_sys_s", "sampler_s"} | \
    {c + "_top_pct" for c, _ in CLASSES}
# Columns of hotset --track-demoted (cumulative pages).
NON_COUNTERS |= {"hot_demoted", "hot_demoted_colder"}
# hotset --watch-near: pages of the watched process's file mappings in the top tier.
NON_COUNTERS |= {"file_top_pages"}


def is_counter(col):
    """A /proc/vmstat counter column of the hotset CSV (not a residency,
    class (*_top_pct) or CPU-time (*_cpu_s, hotset --cpu-of) column)."""
    return col not in NON_COUNTERS and not col.endswith(("_top_pct", "_cpu_s"))


def custom_classes(meta):
    """The --every-ms classes of a run: (column prefix, short title), from
    the <name>_period_ms words of its '# hotset:' line."""
    out = []
    for k in meta:
        if k.endswith("_period_ms"):
            name = k[:-len("_period_ms")]
            out.append((num(meta[k]), name, name[1:]))
    return [(n, t) for _, n, t in sorted(out)]


# The vmstat-delta table: these counters, in this order, when a run has them.
VMSTAT_TABLE = [r"numa_pte_updates$", r"numa_hint_faults$", r"numa_hint_faults_local$",
                r"pgpromote_success$", r"pgpromote_candidate$", r"pgpromote_candidate_nrl$",
                r"pgdemote_", r"pgmigrate_success$", r"numa_huge_pte_updates$",
                r"thp_migration_", r"thp_collapse_alloc$", r"thp_scan_",
                r"pghot_recorded_", r"pghot_kmigrated_", r"pghot_"]
WIDTH = 72


class ParseError(Exception):
    pass


def kv(words):
    out = {}
    for w in words:
        if "=" in w:
            k, v = w.split("=", 1)
            out[k] = v
    return out


def parse_run(path):
    run = {"notes": [], "series": [], "meta": {}, "rounds": [], "end": {}, "stop": {},
           "run": {}, "host": {}, "failed": None, "skipped": None}
    header = None
    in_csv = False
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n").rstrip("\r")
            if line.startswith("@run "):
                run["run"] = kv(line.split()[1:])
            elif line.startswith("@note "):
                if line[6:] not in run["notes"]:
                    run["notes"].append(line[6:])
            elif line.startswith("@csv-begin"):
                in_csv, header = True, None
            elif line.startswith("@csv-end"):
                in_csv = False
            elif line.startswith("@redis "):
                run["rounds"].append({k: float(v) for k, v in kv(line.split()[1:]).items()})
            elif line.startswith("@stop "):
                run["stop"] = kv(line.split()[1:])
            elif line.startswith("@end "):
                run["end"] = kv(line.split()[1:])
            elif line.startswith("@host "):
                run["host"] = kv(line.split()[1:])
            elif line.startswith("@failed"):
                run["failed"] = line[8:] or "failed"
            elif line.startswith("@skipped"):
                run["skipped"] = line[9:] or "skipped"
            elif in_csv and line.startswith("# hotset:"):
                run["meta"] = kv(line.split()[2:])
            elif in_csv and line.startswith("t_s,"):
                header = line.split(",")
            elif in_csv and header and line[:1].isdigit():
                vals = line.split(",")
                if len(vals) != len(header):
                    raise ParseError(f"{path}: {len(vals)} values for {len(header)} columns: {line}")
                try:
                    run["series"].append({k: float(v) for k, v in zip(header, vals)})
                except ValueError as e:
                    raise ParseError(f"{path}: {e}: {line}") from None
    if run["failed"] or run["skipped"]:
        return run
    if not run["run"]:
        raise ParseError(f"{path}: no @run line")
    if len(run["series"]) < 2:
        raise ParseError(f"{path}: fewer than two samples")
    for col in ("hot_top_pct", "cold_top_pct", "top_mb", "pgmigrate_success",
                "kthread_cpu_s", "task_sys_s"):
        if col not in run["series"][0]:
            raise ParseError(f"{path}: no column {col}")
    if not run["end"]:
        raise ParseError(f"{path}: no @end line")
    if not run["stop"]:
        raise ParseError(f"{path}: no @stop line")
    return run


def demoted(sample):
    return sum(v for k, v in sample.items() if k.startswith("pgdemote_"))


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return 0.0


def metrics(scen, run):
    s = run["series"]
    first, last = s[0], s[-1]
    meta = run["meta"]
    m = {}
    page = float(meta.get("page_size", 4096))
    m["promoted"] = last.get("pgpromote_success", 0) + num(run["stop"].get("damon_promoted_pages"))
    m["demoted"] = demoted(last) + num(run["stop"].get("damon_demoted_pages"))
    m["migrated"] = last["pgmigrate_success"]
    m["top_mb"] = last["top_mb"]
    m["net_placed"] = (last["top_mb"] - first["top_mb"]) * (1 << 20) / page
    m["kthread_cpu_s"] = last["kthread_cpu_s"] - first["kthread_cpu_s"]
    m["task_sys_s"] = last["task_sys_s"] - first["task_sys_s"]
    if "sampler_s" in last:
        m["sampler_s"] = last["sampler_s"] - first["sampler_s"]
    m["hot_pct"] = last["hot_top_pct"]
    m["duration_s"] = last["t_s"]
    # vmstat deltas over the run (the samples count from the first one).
    m["vmstat"] = {k: v for k, v in last.items() if is_counter(k)}
    if "kswapd_cpu_s" in last:
        m["kswapd_cpu_s"] = last["kswapd_cpu_s"] - first["kswapd_cpu_s"]
    m["pd_tail_per_s"] = tail_rate(s, run["run"].get("mech", ""))
    if scen in REDIS:
        rps = [r["rps"] for r in run["rounds"]]
        tail = max(1, len(rps) // 4)
        m["rps_first"] = rps[0] if rps else None
        m["rps_steady"] = sum(rps[-tail:]) / tail if rps else None
        m["churn"] = m["migrated"] / m["net_placed"] if m["net_placed"] >= 1 else None
        m["churn_pd"] = (m["promoted"] + m["demoted"]) / m["net_placed"] \
            if m["net_placed"] >= 1 else None
        for k in ("p50_ms", "p99_ms"):
            vals = [r[k] for r in run["rounds"]]
            m[k] = sum(vals[-tail:]) / tail if vals else None
        if "keyhot_top_pct" in last:
            # redis-zipf: the hot set is the pages of the most popular
            # values and of the objects and tables as hot (kvzipf --map
            # --meta); the fast node starts full, so the
            # churn is per net hot page placed, as in the other
            # overcommitted scenarios, and redis-server's memory in the
            # top tier (top %) barely moves.
            hot = num(meta.get("hot_pages")) or 0
            placed = (last["keyhot_top_pct"] - first["keyhot_top_pct"]) / 100 * hot
            m["mem_pct"] = m["hot_pct"]
            m["hot_pct"] = last["keyhot_top_pct"]
            m["hot_start_pct"] = first["keyhot_top_pct"]
            m["hot_placed"] = placed
            m["hot_mb"] = hot * page / (1 << 20)
            m["churn_pd"] = (m["promoted"] + m["demoted"]) / placed if placed >= 1 else None
            m["t90"] = next((x["t_s"] for x in s if x["keyhot_top_pct"] >= 90), None)
            m["hot_demoted"] = last.get("hot_demoted")
            m["hot_demoted_colder"] = last.get("hot_demoted_colder")
            # Where the net placements went: the hot set, the pages just
            # under its line (a quarter of its share or more), the rest
            # of redis-server's memory.
            near = num(meta.get("near_pages")) or 0
            if near and "nearhot_top_pct" in last:
                m["near_pages"] = near
                m["near_pct"] = last["nearhot_top_pct"]
                m["near_start_pct"] = first["nearhot_top_pct"]
                m["near_placed"] = (last["nearhot_top_pct"] - first["nearhot_top_pct"]) \
                    / 100 * near
                m["rest_placed"] = m["net_placed"] - placed - m["near_placed"]
                if "file_top_pages" in last:
                    m["file_placed"] = last["file_top_pages"] - first["file_top_pages"]
                    m["rest_placed"] -= m["file_placed"]
        return m
    hot = float(meta["hot_pages"])
    cold = float(meta["pages"]) - hot
    # Churn: migrations per hot page gained in the top tier.
    gained = (last["hot_top_pct"] - first["hot_top_pct"]) / 100 * hot
    m["hot_gained"] = gained
    m["churn"] = m["migrated"] / gained if gained >= 1 else None
    # Churn of the overcommitted scenarios: (promoted + demoted) / net hot
    # pages placed, where the net hot pages placed are, for each hot set,
    # the hot pages in the top tier at its end less those at its start:
    # the first hot set from the first sample (t = 0) to its share at the
    # phase change (oldhot_top_pct of the first sample after it) or to the
    # last sample; the second one from the first sample after the change
    # (taken as the move happens, before the workers touch the new pages)
    # to the last sample.  1.0: every migration placed a hot page (an
    # empty top tier); 2.0: each placement cost one demotion (a full one).
    ph1 = [x for x in s if x["phase"] == 1]
    if ph1 and "oldhot_top_pct" in ph1[0]:
        placed = (ph1[0]["oldhot_top_pct"] - first["hot_top_pct"] +
                  last["hot_top_pct"] - ph1[0]["hot_top_pct"]) / 100 * hot
    else:
        placed = gained
    m["hot_placed"] = placed
    m["churn_pd"] = (m["promoted"] + m["demoted"]) / placed if placed >= 1 else None
    if "hot_demoted" in last:
        m["hot_demoted"] = last["hot_demoted"]
        m["hot_demoted_colder"] = last.get("hot_demoted_colder")
    m["hot_mb"] = hot * page / (1 << 20)
    if "coldover_pct" in last:
        # Scattered scenarios: only pages that are not hot by mainline's own
        # threshold (5 s, 30 s, once, never) count as over-promotion; the
        # 0.1 s and 1 s classes and the hot set before a move do not.
        m["over_pct"] = last["coldover_pct"]
    elif "over_pct" in last:
        m["over_pct"] = last["over_pct"]
    else:
        m["over_pct"] = last["cold_top_pct"] / 100 * cold / hot * 100 if hot else None
    for c, _ in CLASSES + custom_classes(meta):
        col = c + "_top_pct"
        m[c + "_pct"] = last[col] if col in last and num(meta.get(c + "_pages")) > 0 else None
    for c in ("never", "oldhot", "fill"):
        m[c + "_pct"] = last.get(c + "_top_pct")
    if m["oldhot_pct"] is not None and not any(x["phase"] == 1 for x in s):
        m["oldhot_pct"] = None
    m["t90"] = next((x["t_s"] for x in s if x["phase"] == 0 and x["hot_top_pct"] >= 90), None)
    phase_at = float(meta.get("phase_at", -1))
    m["t90_after_change"] = None
    if phase_at >= 0:
        m["t90_after_change"] = next((x["t_s"] - phase_at for x in s
                                      if x["phase"] == 1 and x["hot_top_pct"] >= 90), None)
    lats = [x["lat_ns"] for x in s if x["lat_ns"] > 0]
    tail = max(1, len(lats) // 4)
    m["lat_first"] = lats[0] if lats else None
    m["lat_steady"] = sum(lats[-tail:]) / tail if lats else None
    return m


def rates(s, mech=""):
    """Per sample (from the second): promotions, demotions and migrations
    per second over the interval that ends there (pgpromote_success,
    pgdemote_*, pgmigrate_success deltas); None for the first sample."""
    out = [(None, None, None)]
    for a, b in zip(s, s[1:]):
        dt = b["t_s"] - a["t_s"]
        if dt <= 0:
            out.append((None, None, None))
            continue
        out.append(((b.get("pgpromote_success", 0) - a.get("pgpromote_success", 0)) / dt,
                    (demoted(b) - demoted(a)) / dt,
                    (b.get("pgmigrate_success", 0) - a.get("pgmigrate_success", 0)) / dt))
    return out


def tail_rate(s, mech):
    """Promotions + demotions per second over the last quarter of the run
    (at least the last interval): near zero once the placement is stable.
    DAMON migrates outside pgpromote_success and pgdemote_*: its mechanisms
    count pgmigrate_success instead."""
    k = max(2, len(s) // 4)
    a, b = s[-k], s[-1]
    dt = b["t_s"] - a["t_s"]
    if dt <= 0:
        return None
    if mech.startswith("damon"):
        return (b.get("pgmigrate_success", 0) - a.get("pgmigrate_success", 0)) / dt
    return (b.get("pgpromote_success", 0) + demoted(b) -
            a.get("pgpromote_success", 0) - demoted(a)) / dt


# Columns of series/*.csv and timeseries.csv after the classes (gnuplot
# columns 18 on): the rates of rates(), then hotset columns when present.
SERIES_EXTRA = ["promoted_per_s", "demoted_per_s", "migrated_per_s", "hot_demoted",
                "hot_demoted_colder", "kswapd_cpu_s", "keyhot_top_pct"]


# Metrics where '-' (None) means "never" (counts as longer than any value).
NEVER_IS_INF = {"t90", "t90_after_change"}


def aggregate(mts):
    """Median (and min, max) of each metric over the repetitions."""
    agg, rng = {}, {}
    keys = {k for mt in mts for k in mt if k != "vmstat"}
    for k in keys:
        vals = [mt.get(k) for mt in mts]
        if k in NEVER_IS_INF:
            vals = sorted(float("inf") if v is None else v for v in vals)
        else:
            vals = sorted(v for v in vals if v is not None)
        if not vals:
            agg[k] = None
            continue
        med = statistics.median(vals) if len(vals) % 2 or k not in NEVER_IS_INF \
            else vals[len(vals) // 2]
        agg[k] = None if med == float("inf") else med
        rng[k] = tuple(None if v == float("inf") else v for v in (vals[0], vals[-1]))
    counters = sorted({c for mt in mts for c in mt.get("vmstat", {})})
    agg["vmstat"] = {c: statistics.median([mt["vmstat"].get(c, 0) for mt in mts])
                     for c in counters}
    return agg, rng


def fmt(v, spec="{:.0f}", none="-"):
    if v is None:
        return none
    text = spec.format(v)
    # No "-0.0" for a difference of CPU times that rounds to zero.
    if text.startswith("-") and not text.strip("-+0.k%"):
        text = text[1:]
    return text


def short(v):
    """A count in at most 6 characters."""
    if v is None:
        return "-"
    v = float(v)
    a = abs(v)
    if a < 1e4:
        return f"{v:.0f}"
    for div, suffix in ((1e3, "k"), (1e6, "M"), (1e9, "G")):
        if a < div * 100:
            return f"{v / div:.1f}{suffix}"
        if a < div * 1000:
            return f"{v / div:.0f}{suffix}"
    return f"{v / 1e12:.0f}T"


def table(rows, cols, sep="  "):
    """rows: list of lists of strings; cols: list of (title1, title2, align)."""
    widths = [max(len(c[0]), len(c[1]), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]

    def line(cells):
        out = []
        for (c, w, cell) in zip(cols, widths, cells):
            out.append(cell.ljust(w) if c[2] == "<" else cell.rjust(w))
        return sep.join(out).rstrip()
    text = [line([c[0] for c in cols])]
    if any(c[1] for c in cols):
        text.append(line([c[1] for c in cols]))
    text.append(sep.join("-" * w for w in widths))
    text += [line(r) for r in rows]
    return "\n".join(text)


def fit_table(rows, cols, width=WIDTH):
    """table() in at most @width columns: split into several tables, each
    repeating the first column, when it does not fit."""
    def w(i):
        return max(len(cols[i][0]), len(cols[i][1]), *(len(r[i]) for r in rows))
    parts, cur, used = [], [], w(0)
    for i in range(1, len(cols)):
        if cur and used + 1 + w(i) > width:
            parts.append(cur)
            cur, used = [], w(0)
        cur.append(i)
        used += 1 + w(i)
    parts.append(cur)
    out = []
    for p in parts:
        idx = [0] + p
        out.append(table([[r[i] for i in idx] for r in rows], [cols[i] for i in idx], sep=" "))
    return "\n\n".join(out)


def scenario_line(scen, runs):
    meta = next((r["meta"] for r in runs if r and r.get("meta")), {})
    run = next((r for r in runs if r and r.get("series")), None)
    secs = f"{run['series'][-1]['t_s']:.0f} s" if run else "?"
    if not run:
        return f"{SCEN_TITLE.get(scen, scen)} (no run completed)"
    if scen in REDIS:
        return f"{SCEN_TITLE[scen]}, {secs} of samples"
    size = int(meta.get("size_mb", 0))
    hot = int(meta.get("hot_pages", 0)) * int(meta.get("page_size", 4096)) >> 20
    threads = meta.get("threads", "?")
    if meta.get("layout") == "scatter":
        text = (f"{SCEN_TITLE.get(scen, scen)}: {size} MB, hot set {hot} MB scattered, "
                f"{threads} thread(s), {secs}")
        pages = num(meta.get("pages"))
        classes = [(c, t) for c, t in CLASSES + custom_classes(meta)
                   if scen not in PRESSURE or num(meta.get(c + "_pages")) > 0]
        if pages:
            text += "; classes " + ", ".join(
                f"{t} {100 * num(meta.get(c + '_pages')) / pages:.0f}%" for c, t in classes)
        if int(meta.get("fill_mb", 0)):
            text += f"; {meta['fill_mb']} MB of other data fill the fast node"
    else:
        chunks = meta.get("chunks", "?")
        text = (f"{SCEN_TITLE.get(scen, scen)}: {size} MB, hot set {hot} MB in {chunks} "
                f"chunk(s), {threads} thread(s), {secs}")
    if int(meta.get("fast_mb", 0)):
        text += f"; the first {meta['fast_mb']} MB start on the fast node"
    if float(meta.get("phase_at", -1)) >= 0:
        text += f"; hot set moves at {float(meta['phase_at']):.0f} s"
    return text


LEGEND = """\
Legend
------
hot      : share of the hot set in the top tier at the end (%); redis: share
           of redis-server's memory in the top tier; redis-zipf: share of
           the pages that hold the most popular values and (with
           zipf_hot_meta=1, the default) the pages of redis-server's
           per-key objects and tables that get as many GETs (start->end),
           and `mem top` the share of redis-server's memory
over     : pages not in the hot set in the top tier at the end, as % of the
           hot-set size (over-promotion; in `overcommit` the head of the
           buffer starts there; after a phase change the old hot set counts);
           scatter scenarios: only pages touched every 5 s, 30 s, once or
           never count (not the 0.1 s and 1 s classes, not the old hot set)
top      : the workload's memory in the top tier at the end (MB)
t90      : time until 90% of the hot set is in the top tier (s); t90' the
           same for the new hot set after the phase change; '-' = never
.1s 1s 5s 30s once : scatter scenarios: share (%) of the pages of each
           frequency class (touched every 0.1/1/5/30 s, or once at a random
           time) in the top tier at the end, i.e. promoted and kept
never    : share of the never-touched pages in the top tier (%)
fill     : scatter-full: share of the other data that filled the top tier
           still there at the end (%; the rest was demoted)
promoted : pgpromote_success (NUMA balancing, kmigrated) + DAMON migrate_hot
           pages (sz_applied)
demoted  : pgdemote_* (reclaim) + DAMON migrate_cold pages
migrated : pgmigrate_success, every migration (promotion and demotion)
churn    : migrated / hot pages gained in the top tier (1.0: every migration
           placed a hot page; '-': none gained); redis: / net pages placed
kthr CPU : CPU time of kmigrated* and kdamond.* threads (s)
task sys : system time of the workload (hint faults and their migrations),
           without the sampler's move_pages() queries (s)
lat      : chase latency per access, first interval -> mean of the last 25%
           (ns).  Under QEMU TCG both tiers are the same host DRAM: latency
           shows overheads (faults, migration, TLB), not the tier benefit.
ops/s    : redis-benchmark GET throughput, first round -> mean of the last
           25% of rounds; p50/p99 of those rounds (ms).  Same QEMU caveat.
With --repeat N: each cell is the median of the N runs ('-' in t90 counts
as never), the min-max of the main columns follow each table.
"""

# The overcommitted scenarios' columns (added to the legend when one ran).
LEGEND_PRESSURE = """\
Top tier overcommitted (skewed, phase-full, redis-zipf; demotion on):
8s 60s   : share (%) of the warm part (touched every 8 s) and the rare part
           (every 60 s) in the top tier at the end; `over` counts them
churn    : here (promoted + demoted) / net hot pages placed, where promoted
  p+d/pl   and demoted are the columns above and the net hot pages placed
           are, for each hot set, its pages in the top tier at its end
           less those at its start (the first hot set until the phase
           change, the second from the change to the end).  1.0: every
           migration placed a hot page; 2.0: each placement cost a
           demotion (a full top tier); more: ping-pong.  redis-zipf: net
           pages of the popular values placed in the top tier.  ('-': none)
placed   : redis-zipf, under the table: the net pages placed in the top
           tier (at the end less at the start) of the hot set, of the
           near-hot pages (those that get a quarter of the least popular
           hot key's share of the GETs or more, but less than that share;
           kvzipf --near), of redis-server's file mappings (its code and
           libraries) and of the rest of its memory (pages with less of
           the GETs, and what the map cannot see: allocator metadata,
           client buffers, stacks): where the promotions beyond the hot
           set went (medians of each)
hot demoted : pages of the hot set seen in the top tier by one residency
           sample and on the slow node by the next, while hot at both
           (cumulative, from the move_pages() samples, weighted like the
           residency; a page demoted and promoted back between two samples
           is missed); redis-zipf: the popular values' pages
while colder : of those, the ones demoted while pages that are not hot
           (warm, rare, never touched, the old hot set, the fill; redis-zipf:
           redis-server's other pages) were in the top tier: per interval
           min(hot pages demoted, colder pages in the top tier at the
           sample), summed.  Target: 0
p+d/s    : promotions + demotions per second over the last quarter of the
           run (at least one interval): near 0 once the placement is
           stable; DAMON: pgmigrate_success per second (its migrations
           count only there)
kswapd CPU : CPU time of the kswapd* threads (s); compare kthr + kswapd
           with mainline's kswapd + task sys (its fault path)
targets  : issue 12's targets for each pghot mechanism against mainline
           tiering (tier, or base without it) of the same run, on the
           medians: churn at most 1.5
           (skewed, redis-zipf) or 2 (phase-full); skewed, redis-zipf: hot
           share at least mainline's (0.5 point of slack) and p+d/s at end
           at most mainline's or 0.1% of the hot set's pages a second;
           phase-full: t90' within 1.25 x mainline's (met if mainline
           never got there); no hot page demoted while colder; kthr +
           kswapd at most mainline's kswapd + task sys
migrations-<scenario>.png: promoted, demoted and migrated pages per second
           per sampling interval, one line per mechanism
"""


# Issue 12's targets, judged for each pghot mechanism of a pressure
# scenario against mainline tiering of the same run (medians).
STATIONARY = {"skewed", "redis-zipf"}
PD_TAIL_FLOOR = 0.001   # "near zero": 0.1% of the hot set's pages a second


def placed_lines(s, aggs, mechs):
    """redis-zipf: where each mechanism's net placements went."""
    out = []
    for m in mechs:
        a = aggs.get((s, m), (None,))[0]
        if not a or a.get("near_placed") is None:
            continue
        code = "" if a.get("file_placed") is None else \
            f"its code and libraries {fmt(a['file_placed'], '{:+.0f}')}, "
        out.append(wrap(
            f"placed, {mech_short(m)}: hot {fmt(a.get('hot_placed'), '{:+.0f}')} pages "
            f"({fmt(a.get('hot_start_pct'), '{:.1f}')}% -> {fmt(a.get('hot_pct'), '{:.1f}')}%), "
            f"near-hot {fmt(a['near_placed'], '{:+.0f}')} "
            f"({fmt(a.get('near_start_pct'), '{:.1f}')}% -> {fmt(a.get('near_pct'), '{:.1f}')}% "
            f"of {fmt(a.get('near_pages'))}), {code}the rest of its memory "
            f"{fmt(a.get('rest_placed'), '{:+.0f}')}; promoted + demoted "
            f"{fmt((a.get('promoted') or 0) + (a.get('demoted') or 0))}."))
    return out


def target_lines(s, aggs, mechs):
    """Lines saying which of issue 12's targets each pghot mechanism met."""
    ref = next((r for r in ("tiering", "base") if (s, r) in aggs), None)
    if not ref:
        return []
    t = aggs[(s, ref)][0]
    out = []

    def verdict(ok):
        return "-" if ok is None else ("met" if ok else "MISSED")

    for m in mechs:
        if not m.startswith("pghot") or (s, m) not in aggs:
            continue
        a = aggs[(s, m)][0]
        items = []
        churn_max = 1.5 if s in STATIONARY else 2.0
        c = a.get("churn_pd")
        items.append(f"churn {fmt(c, '{:.2f}')} <= {churn_max}: "
                     f"{verdict(None if c is None else c <= churn_max)}")
        if s in STATIONARY:
            h, ht = a.get("hot_pct"), t.get("hot_pct")
            ok = None if h is None or ht is None else h >= ht - 0.5
            items.append(f"hot {fmt(h)}% >= mainline {fmt(ht)}%: {verdict(ok)}")
            pd, pdt = a.get("pd_tail_per_s"), t.get("pd_tail_per_s")
            floor = PD_TAIL_FLOOR * (a.get("hot_mb") or 0) * 256
            ok = None if pd is None else pd <= max(pdt or 0, floor)
            items.append(f"p+d/s at end {fmt(pd)} <= max(mainline {fmt(pdt)}, "
                         f"{floor:.0f}): {verdict(ok)}")
        else:
            x, xt = a.get("t90_after_change"), t.get("t90_after_change")
            if x is None:
                ok = False if xt is not None else None
            else:
                ok = xt is None or x <= 1.25 * xt
            items.append(f"t90' {fmt(x)} <= 1.25 x mainline {fmt(xt)}: {verdict(ok)}")
        d = a.get("hot_demoted_colder")
        items.append(f"hot demoted while colder {short(d)} = 0: "
                     f"{verdict(None if d is None else d < 1)}")
        cpu = (a.get("kthread_cpu_s") or 0) + (a.get("kswapd_cpu_s") or 0)
        cpu_t = (t.get("kswapd_cpu_s") or 0) + (t.get("task_sys_s") or 0)
        items.append(f"kmigrated+kswapd {cpu:.1f} s <= mainline kswapd+task sys "
                     f"{cpu_t:.1f} s: {verdict(cpu <= cpu_t)}")
        out.append(wrap(f"targets, {mech_short(m)} against {mech_short(ref)}: " +
                        "; ".join(items) + "."))
    return out


def wrap(text, width=WIDTH):
    return "\n".join(textwrap.wrap(text, width, subsequent_indent="  "))


def mech_short(m):
    return MECH_SHORT.get(m, m)


def load_meta(res):
    meta = {}
    if os.path.exists(os.path.join(res, "meta.txt")):
        with open(os.path.join(res, "meta.txt")) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    meta[k] = v
    return meta


def expected_runs(res, meta, files):
    """(scenario, mechanism) pairs of the run, and the raw files of each."""
    pairs = []
    if meta.get("pairs"):
        pairs = [tuple(p.split(":", 1)) for p in meta["pairs"].split()]
    else:
        pairs = [(s, m) for s in meta.get("scenarios", "").split()
                 for m in meta.get("mechanisms", "").split()]
    if not pairs:
        for f in files:
            name = re.sub(r"\.rep\d+$", "", f[:-4])
            s = next((x for x in sorted(SCEN_ORDER, key=len, reverse=True)
                      if name.startswith(x + "-") and name[len(x) + 1:] in MECH_ORDER), None)
            if s and (s, name[len(s) + 1:]) not in pairs:
                pairs.append((s, name[len(s) + 1:]))
    repeat = int(meta.get("repeat", 1) or 1)
    out = {}
    for s, m in pairs:
        names = [f"{s}-{m}.txt"] + [f"{s}-{m}.rep{r}.txt" for r in range(2, repeat + 1)]
        # Also repetitions found on disk (a report of a partial run).
        names += sorted((f for f in files if re.fullmatch(re.escape(f"{s}-{m}") + r"\.rep\d+\.txt", f)
                         and f not in names), key=lambda f: int(re.findall(r"\d+", f)[-1]))
        out[(s, m)] = names
    return out


def smoke_assert(runs, agg):
    """The smoke set's assertions on scatter x pghot; returns the failures."""
    fails = []
    key = ("scatter", "pghot")
    if key not in runs:
        print("report: no scatter run of pghot: smoke assertions skipped", file=sys.stderr)
        return []
    for i, run in enumerate(runs[key]):
        tag = f"scatter/pghot run {i + 1}"
        if run is None or run["failed"] or run["skipped"]:
            fails.append(f"{tag}: no result ({'missing' if run is None else run['failed'] or run['skipped']})")
            continue
        mt = metrics("scatter", run)
        promoted = mt["vmstat"].get("pgpromote_success", 0)
        if promoted <= 0:
            fails.append(f"{tag}: pghot promoted nothing (pgpromote_success = {promoted:.0f})")
        if mt["hot_pct"] < 50:
            fails.append(f"{tag}: only {mt['hot_pct']:.1f}% of the hot set reached the top tier "
                         f"(at least 50% expected)")
        once = mt.get("once_pct")
        if once is None:
            fails.append(f"{tag}: no pages touched once in this run (once_top_pct missing)")
        elif once > 5:
            fails.append(f"{tag}: {once:.1f}% of the pages touched once were promoted "
                         f"(at most 5% expected: one-off accesses must be filtered)")
    return fails


def main():
    args = sys.argv[1:]
    assert_smoke = "--assert-smoke" in args
    args = [a for a in args if a != "--assert-smoke"]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    res = args[0]
    meta = load_meta(res)
    raw = os.path.join(res, "raw")
    files = sorted(f for f in os.listdir(raw) if f.endswith(".txt")) if os.path.isdir(raw) else []
    expected = expected_runs(res, meta, files)
    if not expected:
        print(f"report: no runs in {res}", file=sys.stderr)
        return 1

    errors = []
    runs = {}
    for (s, m), names in expected.items():
        runs[(s, m)] = []
        for name in names:
            path = os.path.join(raw, name)
            try:
                if not os.path.exists(path):
                    raise ParseError(f"{path}: missing")
                runs[(s, m)].append(parse_run(path))
            except ParseError as e:
                errors.append(str(e))
                runs[(s, m)].append(None)

    scenarios = [s for s in SCEN_ORDER if any(k[0] == s for k in runs)]
    mechs_all = [m for m in MECH_ORDER if any(k[1] == m for k in runs)]
    os.makedirs(os.path.join(res, "series"), exist_ok=True)

    main_kernel = meta.get("kernel_version", "?")
    out = []
    title = "pghot evaluation: promotion mechanisms side by side, tiered QEMU VM"
    out += ["=" * WIDTH, title, "=" * WIDTH, ""]
    out.append(f"kernel   : {main_kernel} ({meta.get('kernel', '?')})")
    for k, v in sorted(meta.items()):
        if k.startswith("kernel."):
            out.append(f"           {k[7:]} runs on the {v.split()[0]} kernel "
                       f"({' '.join(v.split()[1:]) or '?'})")
        if k.startswith("skipped."):
            out.append(f"           {k[8:]} skipped: {v}")
    out.append(f"series   : {meta.get('series_commit', '?')}, build/linux "
               f"{meta.get('linux_describe', '?')}")
    out.append(f"VM       : {meta.get('topology', '?')} (QEMU TCG, HMAT: slow node 3x latency, "
               f"1/2 bandwidth)")
    out.append(f"host     : {meta.get('host', '?')}; loadavg {meta.get('loadavg_start', '?')} "
               f"at the start, {meta.get('loadavg_end', '?')} at the end")
    out.append(f"command  : {meta.get('command', '?')}")
    out.append(f"date     : {meta.get('date', '?')}, {meta.get('elapsed_s', '?')} s of runs"
               f"{', ' + meta['repeat'] + ' runs of each' if meta.get('repeat', '1') != '1' else ''}")
    header = list(out)

    csv_rows, run_rows, ts_rows = [], [], []
    summary, vmtables, details = [], [], []
    aggs = {}
    for s in scenarios:
        smechs = [m for m in mechs_all if (s, m) in runs]
        srun = {m: runs[(s, m)] for m in smechs}
        good_runs = [r for m in smechs for r in srun[m]
                     if r and not r["failed"] and not r["skipped"]]
        details += ["-" * WIDTH, wrap(f"{s}: {scenario_line(s, good_runs)}"), "-" * WIDTH]
        rows, spread, notes = [], [], {}
        sum_rows, vm_cols, sum_status = [], [], []
        scatter = any(r["meta"].get("layout") == "scatter" for r in good_runs)
        filled = any(num(r["meta"].get("fill_mb")) > 0 for r in good_runs)
        # The scenario's --every-ms classes (and of the fixed ones, those
        # with pages), for the overcommitted scenarios' tables.
        xclasses = []
        for r in good_runs:
            for c in [c for c in CLASSES if num(r["meta"].get(c[0] + "_pages")) > 0] + \
                    custom_classes(r["meta"]):
                if c not in xclasses:
                    xclasses.append(c)
        loads = []
        for m in smechs:
            label = MECH_LABEL.get(m, m)
            rs = srun[m]
            ok = [r for r in rs if r and not r["failed"] and not r["skipped"]]
            for i, r in enumerate(rs):
                if r is None or r["failed"] or r["skipped"]:
                    why = ("no output" if r is None else
                           f"FAILED: {r['failed']}" if r["failed"] else f"skipped: {r['skipped']}")
                    notes.setdefault(why + (f" (run {i + 1})" if len(rs) > 1 else ""), []).append(m)
            if not ok:
                status = "skipped" if rs and all(r and r["skipped"] for r in rs) else "failed"
                rows.append([label, status.upper()])
                sum_rows.append([mech_short(m)])
                sum_status.append(f"{mech_short(m)}: {status}")
                csv_rows.append({"scenario": s, "mechanism": m, "status": status})
                continue
            mts = []
            for i, run in enumerate(ok):
                if m.startswith("pghot") and not run["series"][-1].get("pghot_recorded_hintfaults"):
                    run["notes"].append("pghot recorded no hint fault: this kernel has no pghot "
                                        "hint-fault source (nor kmigrated), so what promoted is "
                                        "mainline NUMA balancing")
                host = run["host"]
                kv_ = host.get("kernel_version")
                if kv_ and host.get("kernel") != "bzImage":
                    run["notes"].append(f"ran on another kernel: {host.get('kernel')} ({kv_})")
                for n in run["notes"]:
                    if m not in notes.setdefault(n, []):
                        notes[n].append(m)
                if host.get("vm_fast_mb"):
                    run["notes"].append(f"VM: fast node {host['vm_fast_mb']} MB, slow node "
                                        f"{host.get('vm_slow_mb', '?')} MB")
                for key in ("loadavg_start", "loadavg_end"):
                    if host.get(key):
                        loads.append(num(host[key].split(",")[0]))
                mt = metrics(s, run)
                mts.append(mt)
                rep = int(host.get("rep", i + 1))
                row = {"scenario": s, "mechanism": m, "rep": rep,
                       "kernel": host.get("kernel", ""), "loadavg_start": host.get("loadavg_start", ""),
                       "loadavg_end": host.get("loadavg_end", "")}
                row.update({k: ("" if v is None else (round(v, 3) if isinstance(v, float) else v))
                            for k, v in mt.items() if k != "vmstat"})
                row.update({"vm_" + k: int(v) for k, v in mt["vmstat"].items()})
                run_rows.append(row)
                suffix = "" if rep == 1 else f".rep{rep}"
                with open(os.path.join(res, "series", f"{s}-{m}{suffix}.csv"), "w", newline="") as f:
                    w = csv.writer(f)
                    cols = ["t_s", "phase", "hot_top_pct", "cold_top_pct", "top_mb", "lat_ns",
                            "pgpromote_success", "pgdemote", "pgmigrate_success",
                            "kthread_cpu_s", "task_sys_s", "over_pct"] + \
                        [c + "_top_pct" for c, _ in CLASSES] + SERIES_EXTRA
                    w.writerow(cols)
                    for x, rt in zip(run["series"], rates(run["series"])):
                        vals = [x.get("t_s"), x.get("phase"), x.get("hot_top_pct"),
                                x.get("cold_top_pct"), x.get("top_mb"), x.get("lat_ns"),
                                x.get("pgpromote_success", 0), demoted(x),
                                x.get("pgmigrate_success"), x.get("kthread_cpu_s"),
                                x.get("task_sys_s"), x.get("over_pct", "")] + \
                            [x.get(c + "_top_pct", "") for c, _ in CLASSES] + \
                            ["" if v is None else round(v, 2) for v in rt] + \
                            [x.get(c, "") for c in SERIES_EXTRA[3:]]
                        w.writerow(vals)
                        ts_rows.append([s, m, rep] + vals)
            mt, rng = aggregate(mts)
            aggs[(s, m)] = (mt, rng, len(mts))
            row = {"scenario": s, "mechanism": m, "status": "ok", "runs": len(mts)}
            row.update({k: ("" if v is None else (round(v, 3) if isinstance(v, float) else v))
                        for k, v in mt.items() if k != "vmstat"})
            if len(mts) > 1:
                for k in ("hot_pct", "over_pct", "t90", "t90_after_change", "once_pct",
                          "promoted", "kthread_cpu_s", "task_sys_s"):
                    if k in rng:
                        row[k + "_min"] = "" if rng[k][0] is None else round(rng[k][0], 3)
                        row[k + "_max"] = "" if rng[k][1] is None else round(rng[k][1], 3)
            csv_rows.append(row)
            common = [fmt(mt["promoted"]), fmt(mt["demoted"]), fmt(mt["migrated"]),
                      fmt(mt["churn"], "{:.2f}"), fmt(mt["kthread_cpu_s"], "{:.2f}"),
                      fmt(mt["task_sys_s"], "{:.2f}")]
            pressure = [fmt(mt.get("churn_pd"), "{:.2f}"), short(mt.get("hot_demoted")),
                        short(mt.get("hot_demoted_colder")), fmt(mt.get("pd_tail_per_s"), "{:.0f}"),
                        fmt(mt["kthread_cpu_s"], "{:.2f}"), fmt(mt.get("kswapd_cpu_s"), "{:.2f}"),
                        fmt(mt["task_sys_s"], "{:.2f}")]
            if s == "redis-zipf":
                rows.append([label, f"{fmt(mt.get('hot_start_pct'), '{:.1f}')}->"
                             f"{fmt(mt['hot_pct'], '{:.1f}')}", fmt(mt.get("t90"), "{:.0f}"),
                             fmt(mt.get("mem_pct"), "{:.1f}"), fmt(mt["top_mb"], "{:.1f}"),
                             fmt(mt["promoted"]), fmt(mt["demoted"]), fmt(mt["migrated"])] +
                            pressure +
                            [f"{fmt(mt['rps_first'])}->{fmt(mt['rps_steady'])}",
                             fmt(mt["p50_ms"], "{:.2f}"), fmt(mt["p99_ms"], "{:.1f}")])
                sum_rows.append([mech_short(m), fmt(mt["hot_pct"], "{:.0f}"),
                                 fmt(mt.get("t90"), "{:.0f}"),
                                 short(mt["promoted"]), short(mt["demoted"]),
                                 fmt(mt.get("churn_pd"), "{:.1f}"),
                                 short(mt.get("hot_demoted")),
                                 short(mt.get("hot_demoted_colder")),
                                 short(mt.get("pd_tail_per_s")),
                                 fmt(mt["kthread_cpu_s"], "{:.1f}"),
                                 fmt(mt.get("kswapd_cpu_s"), "{:.1f}"),
                                 fmt(mt["task_sys_s"], "{:.1f}"), short(mt["rps_steady"]),
                                 fmt(mt["p99_ms"], "{:.1f}")])
            elif s in PRESSURE:
                cls = [fmt(mt.get(c + "_pct"), "{:.1f}") for c, _ in xclasses] + \
                    [fmt(mt.get("never_pct"), "{:.1f}")]
                if filled:
                    cls.append(fmt(mt.get("fill_pct"), "{:.1f}"))
                rows.append([label, fmt(mt["hot_pct"], "{:.1f}"), fmt(mt["over_pct"], "{:+.1f}"),
                             fmt(mt["top_mb"], "{:.1f}"), fmt(mt["t90"], "{:.1f}"),
                             fmt(mt["t90_after_change"], "{:.1f}")] + cls +
                            [fmt(mt["promoted"]), fmt(mt["demoted"])] + pressure +
                            [f"{fmt(mt['lat_first'])}->{fmt(mt['lat_steady'])}"])
                sum_rows.append([mech_short(m), fmt(mt["hot_pct"], "{:.0f}"),
                                 fmt(mt["t90"], "{:.0f}"), fmt(mt["t90_after_change"], "{:.0f}")] +
                                [fmt(mt.get(c + "_pct"), "{:.0f}") for c, _ in xclasses] +
                                [short(mt["promoted"]), short(mt["demoted"]),
                                 fmt(mt.get("churn_pd"), "{:.1f}"), short(mt.get("hot_demoted")),
                                 short(mt.get("hot_demoted_colder")),
                                 short(mt.get("pd_tail_per_s")),
                                 fmt(mt["kthread_cpu_s"], "{:.1f}"),
                                 fmt(mt.get("kswapd_cpu_s"), "{:.1f}"),
                                 fmt(mt["task_sys_s"], "{:.1f}")])
            elif s == "redis":
                rows.append([label, fmt(mt["hot_pct"], "{:.1f}"), fmt(mt["top_mb"], "{:.1f}")]
                            + common +
                            [f"{fmt(mt['rps_first'])}->{fmt(mt['rps_steady'])}",
                             fmt(mt["p50_ms"], "{:.2f}"), fmt(mt["p99_ms"], "{:.1f}")])
                sum_rows.append([mech_short(m), fmt(mt["hot_pct"], "{:.0f}"),
                                 short(mt["promoted"]), short(mt["demoted"]),
                                 fmt(mt["churn"], "{:.1f}"), fmt(mt["kthread_cpu_s"], "{:.1f}"),
                                 fmt(mt["task_sys_s"], "{:.1f}"), short(mt["rps_steady"])])
            else:
                cls = [fmt(mt.get(c + "_pct"), "{:.1f}") for c, _ in CLASSES] + \
                    [fmt(mt.get("never_pct"), "{:.1f}")] if scatter else []
                if filled:
                    cls.append(fmt(mt.get("fill_pct"), "{:.1f}"))
                rows.append([label, fmt(mt["hot_pct"], "{:.1f}"), fmt(mt["over_pct"], "{:+.1f}"),
                             fmt(mt["top_mb"], "{:.1f}"), fmt(mt["t90"], "{:.1f}"),
                             fmt(mt["t90_after_change"], "{:.1f}")] + cls + common +
                            [f"{fmt(mt['lat_first'])}->{fmt(mt['lat_steady'])}"])
                sum_cls = [fmt(mt.get(c + "_pct"), "{:.0f}") for c, _ in CLASSES] if scatter else []
                sum_rows.append([mech_short(m), fmt(mt["hot_pct"], "{:.0f}"),
                                 fmt(mt["t90"], "{:.0f}"), fmt(mt["t90_after_change"], "{:.0f}"),
                                 fmt(mt["over_pct"], "{:.0f}")] + sum_cls +
                                [short(mt["promoted"]), short(mt["demoted"]),
                                 fmt(mt["churn"], "{:.1f}"),
                                 fmt(mt["kthread_cpu_s"], "{:.1f}"),
                                 fmt(mt["task_sys_s"], "{:.1f}")])
            if len(mts) > 1:
                def mm(k, spec="{:.1f}"):
                    lo, hi = rng.get(k, (None, None))
                    return f"{fmt(lo, spec)}-{fmt(hi, spec)}" if k in rng else "-"
                spread.append([label, str(len(mts)), mm("hot_pct"), mm("over_pct"), mm("t90"),
                               mm("t90_after_change"), mm("once_pct"), mm("promoted", "{:.0f}"),
                               mm("kthread_cpu_s", "{:.2f}"), mm("task_sys_s", "{:.2f}")])
            vm_cols.append((m, mt["vmstat"]))

        base = [("mechanism", "", "<")]
        tail = [("promoted", "(pages)", ">"), ("demoted", "(pages)", ">"),
                ("migrated", "(pages)", ">"), ("churn", "", ">"), ("kthr", "CPU (s)", ">"),
                ("task", "sys (s)", ">")]
        ptail = [("churn", "p+d/pl", ">"), ("hot", "demoted", ">"), ("while", "colder", ">"),
                 ("p+d/s", "at end", ">"), ("kthr", "CPU (s)", ">"), ("kswapd", "CPU (s)", ">"),
                 ("task", "sys (s)", ">")]
        pstail = [("prom", "", ">"), ("dem", "", ">"), ("chrn", "", ">"), ("hdem", "", ">"),
                  ("hd<c", "", ">"), ("pd/s", "", ">"), ("kthr", "s", ">"), ("kswd", "s", ">"),
                  ("sys", "s", ">")]
        if s == "redis-zipf":
            cols = base + [("hot", "(%)", ">"), ("t90", "(s)", ">"), ("mem", "top %", ">"),
                           ("top", "(MB)", ">"),
                           ("promoted", "(pages)", ">"), ("demoted", "(pages)", ">"),
                           ("migrated", "(pages)", ">")] + ptail + \
                [("ops/s", "first->steady", ">"), ("p50", "(ms)", ">"), ("p99", "(ms)", ">")]
            scols = [("mech", "", "<"), ("hot", "%", ">"), ("t90", "s", ">"),
                     ("prom", "", ">"), ("dem", "", ">"),
                     ("chrn", "", ">"), ("hdem", "", ">"), ("hd<c", "", ">"),
                     ("pd/s", "", ">"), ("kthr", "s", ">"),
                     ("kswd", "s", ">"), ("sys", "s", ">"), ("ops/s", "", ">"),
                     ("p99", "ms", ">")]
        elif s in PRESSURE:
            cls_cols = [(t, "(%)", ">") for _, t in xclasses] + [("never", "(%)", ">")]
            if filled:
                cls_cols.append(("fill", "(%)", ">"))
            cols = base + [("hot", "(%)", ">"), ("over", "(%)", ">"), ("top", "(MB)", ">"),
                           ("t90", "(s)", ">"), ("t90'", "(s)", ">")] + cls_cols + \
                [("promoted", "(pages)", ">"), ("demoted", "(pages)", ">")] + ptail + \
                [("lat (ns)", "first->steady", ">")]
            scols = [("mech", "", "<"), ("hot", "%", ">"), ("t90", "s", ">"),
                     ("t90'", "s", ">")] + [(t, "%", ">") for _, t in xclasses] + pstail
        elif s == "redis":
            cols = base + [("top", "(%)", ">"), ("top", "(MB)", ">")] + tail + \
                [("ops/s", "first->steady", ">"), ("p50", "(ms)", ">"), ("p99", "(ms)", ">")]
            scols = [("mech", "", "<"), ("top", "%", ">"), ("prom", "", ">"), ("dem", "", ">"),
                     ("chrn", "", ">"), ("kthr", "s", ">"), ("sys", "s", ">"),
                     ("ops/s", "", ">")]
        else:
            cls_cols = [(t, "(%)", ">") for _, t in CLASSES] + [("never", "(%)", ">")] \
                if scatter else []
            if filled:
                cls_cols.append(("fill", "(%)", ">"))
            cols = base + [("hot", "(%)", ">"), ("over", "(%)", ">"), ("top", "(MB)", ">"),
                           ("t90", "(s)", ">"), ("t90'", "(s)", ">")] + cls_cols + tail + \
                [("lat (ns)", "first->steady", ">")]
            scols = [("mech", "", "<"), ("hot", "%", ">"), ("t90", "s", ">"),
                     ("t90'", "s", ">"), ("over", "%", ">")] + \
                ([(t, "%", ">") for _, t in CLASSES] if scatter else []) + \
                [("prom", "", ">"), ("dem", "", ">"), ("chrn", "", ">"), ("kthr", "s", ">"),
                 ("sys", "s", ">")]
        rows = [r[:len(cols)] + [""] * (len(cols) - len(r)) for r in rows]
        sum_rows = [r[:len(scols)] + ["-"] * (len(scols) - len(r)) for r in sum_rows]
        details += [table(rows, cols), ""]
        if spread:
            details += ["min-max over the runs:",
                        table(spread, [("mechanism", "", "<"), ("runs", "", ">"),
                                       ("hot", "(%)", ">"), ("over", "(%)", ">"),
                                       ("t90", "(s)", ">"), ("t90'", "(s)", ">"),
                                       ("once", "(%)", ">"), ("promoted", "(pages)", ">"),
                                       ("kthr", "CPU (s)", ">"), ("task", "sys (s)", ">")]), ""]
        if loads:
            notes.setdefault(f"host loadavg (1 min) at the runs' starts and ends: "
                             f"{min(loads):.2f}-{max(loads):.2f}", []).extend(smechs)
        if notes:
            details.append("notes:")
            for n, ms in notes.items():
                who = "" if sorted(set(ms)) == sorted(smechs) else f"[{', '.join(ms)}] "
                details.append(f"- {who}{n}")
            details.append("")

        summary += [wrap(f"{s}: {scenario_line(s, good_runs)}")]
        summary += [fit_table(sum_rows, scols)]
        if sum_status:
            summary.append(wrap("(" + "; ".join(sum_status) + ")"))
        if s in PRESSURE:
            summary += placed_lines(s, aggs, smechs)
            summary += target_lines(s, aggs, smechs)
        summary.append("")

        # vmstat deltas: one row per counter, one column per mechanism.
        if vm_cols:
            names = sorted({c for _, v in vm_cols for c in v})
            picked = []
            for pat in VMSTAT_TABLE:
                for c in names:
                    if re.match(pat, c) and c not in picked:
                        picked.append(c)
            vrows = [[c] + [short(v.get(c)) if c in v else "-" for _, v in vm_cols]
                     for c in picked]
            vcols = [("counter", "", "<")] + [(mech_short(m), "", ">") for m, _ in vm_cols]
            if vrows:
                vmtables += [f"{s}: vmstat deltas over the run" +
                             (" (median of the runs)" if any(aggs.get((s, m), (0, 0, 1))[2] > 1
                                                             for m, _ in vm_cols) else ""),
                             fit_table(vrows, vcols), ""]

    if errors:
        details += ["PARSE ERRORS (the harness is broken):"] + [f"- {e}" for e in errors] + [""]

    smoke_fails = smoke_assert(runs, aggs) if assert_smoke else []
    if ("scatter", "pghot") not in runs:
        assert_smoke = False
    summary_text = [wrap("Summary: medians of the runs.  hot, over and the classes (.1s 1s 5s "
                         "30s once): % in the top tier at the end; t90, t90': s; prom, dem: "
                         "pages; chrn: churn; kthr, sys: CPU s (see the legend in "
                         "results.txt).  tier: mainline tiering, base: the same on the "
                         "nopghot kernel, pghot: default tunables, pghot1/2: freq_threshold "
                         "1/2, pghotP: default tunables on the precise kernel, dmn-p/dmn-b: "
                         "DAMON promote-only/bidirectional."), ""] + summary
    legend = [LEGEND] + ([LEGEND_PRESSURE] if any(x in PRESSURE for x in scenarios) else [])
    out = header + [""] + ["=" * WIDTH, "Summary", "=" * WIDTH] + summary_text + legend + \
        details + ["=" * WIDTH, "vmstat deltas per scenario and mechanism", "=" * WIDTH, ""] + \
        vmtables
    if assert_smoke:
        out += ["smoke assertions (scatter x pghot): " +
                ("FAILED" if smoke_fails else "passed")] + [f"- {f}" for f in smoke_fails] + [""]

    with open(os.path.join(res, "results.txt"), "w") as f:
        f.write("\n".join(out) + "\n")
    with open(os.path.join(res, "summary.txt"), "w") as f:
        f.write("\n".join(header + [""] + summary_text) + "\n")
    keys = ["scenario", "mechanism", "status", "runs", "hot_pct", "over_pct", "hot_mb", "top_mb",
            "t90", "t90_after_change"] + [c + "_pct" for c, _ in CLASSES] + \
        ["never_pct", "oldhot_pct", "fill_pct", "promoted", "demoted", "migrated", "net_placed",
         "hot_gained", "churn", "kthread_cpu_s", "task_sys_s", "sampler_s", "lat_first",
         "lat_steady", "rps_first", "rps_steady", "p50_ms", "p99_ms", "duration_s",
         "hot_placed", "churn_pd", "hot_demoted", "hot_demoted_colder", "pd_tail_per_s",
         "kswapd_cpu_s", "near_pages", "near_placed", "file_placed", "rest_placed"]
    # The --every-ms classes' shares (c8s_pct, c60s_pct, ...).
    keys += sorted({k for r in csv_rows + run_rows for k in r
                    if k.endswith("_pct") and k not in keys and not k.endswith(("_min", "_max"))})
    extra = sorted({k for r in csv_rows for k in r if k.endswith(("_min", "_max"))})
    with open(os.path.join(res, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys + extra, extrasaction="ignore")
        w.writeheader()
        for r in csv_rows:
            w.writerow(r)
    rkeys = ["scenario", "mechanism", "rep", "kernel", "loadavg_start", "loadavg_end"] + \
        [k for k in keys if k not in ("scenario", "mechanism", "status", "runs")]
    rkeys += sorted({k for r in run_rows for k in r if k.startswith("vm_")})
    with open(os.path.join(res, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=rkeys, extrasaction="ignore")
        w.writeheader()
        for r in run_rows:
            w.writerow(r)
    with open(os.path.join(res, "timeseries.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scenario", "mechanism", "rep", "t_s", "phase", "hot_top_pct",
                    "cold_top_pct", "top_mb", "lat_ns", "pgpromote_success", "pgdemote",
                    "pgmigrate_success", "kthread_cpu_s", "task_sys_s", "over_pct"] +
                   [c + "_top_pct" for c, _ in CLASSES] + SERIES_EXTRA)
        w.writerows(ts_rows)

    # Plots: one PNG per scenario, a colour per mechanism (the first run of
    # each); top panel: the hot set (redis: its memory) in the top tier,
    # then the cold set, then (scatter) the pages touched once.
    def plot_panel(s, series, col):
        """One gnuplot plot command: column @col of each mechanism's series."""
        plots = []
        for i, m in enumerate(series):
            colour = MECH_COLOUR.get(m, "#000000")
            plots.append(f"'series/{s}-{m}.csv' using 1:{col} with linespoints "
                         f"lw 2 lc rgb '{colour}' pt {i + 4} ps 0.7 "
                         f"title '{MECH_LABEL.get(m, m)}'")
        return "plot " + ", \\\n     ".join(plots)

    gp = ["set terminal pngcairo size 1100,1000 font ',10' noenhanced",
          "set datafile separator ','", "set key outside right top", "set grid"]
    pngs = []
    for s in scenarios:
        series = [m for m in mechs_all
                  if (s, m) in aggs and
                  os.path.exists(os.path.join(res, "series", f"{s}-{m}.csv"))]
        if not series:
            continue
        scatter = any(r and r.get("meta", {}).get("layout") == "scatter"
                      for m in series for r in runs[(s, m)])
        png = f"residency-{s}.png"
        pngs.append(png)
        panels = [(3, "% of redis-server's memory in the top tier" if s in REDIS
                   else "hot set in the top tier (%)")]
        if s == "redis-zipf":
            panels = [(24, "popular values' pages in the top tier (%)"), panels[0],
                      (21, "popular values' pages demoted (cumulative)")]
        if s not in REDIS:
            panels.append((4, "cold set in the top tier (%)"))
        if s in PRESSURE and s not in REDIS:
            panels.append((21, "hot pages demoted (cumulative)"))
        elif scatter:
            panels.append((17, "pages touched once in the top tier (%)"))
        gp += [f"set output '{png}'",
               f"set multiplot layout {len(panels)},1 "
               f"title '{s}: {SCEN_TITLE.get(s, s)}'",
               "set xlabel 'time (s)'", "set yrange [0:105]"]
        for col, ylabel in panels:
            gp.append(f"set ylabel \"{ylabel}\"")
            gp.append("set yrange [0:105]" if col in (3, 24) else "set yrange [0:*]")
            gp.append(plot_panel(s, series, col))
        gp.append("unset multiplot")
        # Migrations per second over time: promotions and demotions (the
        # counters; DAMON's migrations show only in the third panel).
        png = f"migrations-{s}.png"
        pngs.append(png)
        gp += [f"set output '{png}'",
               f"set multiplot layout 3,1 title '{s}: migrations per second "
               f"(per sampling interval)'", "set xlabel 'time (s)'", "set yrange [0:*]"]
        for col, ylabel in ((18, "promoted pages/s (pgpromote_success)"),
                            (19, "demoted pages/s (pgdemote_*)"),
                            (20, "migrated pages/s (pgmigrate_success)")):
            gp.append(f"set ylabel \"{ylabel}\"")
            gp.append(plot_panel(s, series, col))
        gp.append("unset multiplot")
    with open(os.path.join(res, "plot.gp"), "w") as f:
        f.write("\n".join(gp) + "\n")
    r = subprocess.run(["gnuplot", "plot.gp"], cwd=res, capture_output=True, text=True)
    if r.returncode != 0:
        errors.append(f"gnuplot failed: {r.stderr.strip()}")
    for p in pngs:
        path = os.path.join(res, p)
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            errors.append(f"{path}: no plot")

    sys.stdout.write("\n".join(out) + "\n")
    if errors:
        for e in errors:
            print(f"report: {e}", file=sys.stderr)
        return 1
    if smoke_fails:
        print("report: smoke assertions FAILED:", file=sys.stderr)
        for e in smoke_fails:
            print(f"report:   {e}", file=sys.stderr)
        return 3
    if assert_smoke:
        print("report: smoke assertions passed (scatter x pghot: promoted, hot set >= 50%, "
              "once-touched pages <= 5%)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
