#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of a scripts/bench.sh run: read RESULTS/raw/<scenario>-<mech>.txt
(the guest output of bench/bench-guest.sh) and write

  results.txt      the tables, one per scenario, with a legend
  results.csv      one row per scenario and mechanism, every metric
  timeseries.csv   every sample of every run (long format)
  series/*.csv     the same per run, for gnuplot
  residency-<scenario>.png, plot.gp   top-tier residency over time

Exit status 1 when a run's output cannot be parsed or an output is missing
(the harness is broken), 0 otherwise; failed runs are reported as such.

usage: report.py RESULTS_DIR
"""
import csv
import os
import subprocess
import sys

MECH_ORDER = ["off", "tiering", "pghot1", "pghot2", "damon-promote", "damon-bidir"]
MECH_COLOUR = {
    "off": "#808080", "tiering": "#1b9e3e", "pghot1": "#d7191c",
    "pghot2": "#fdae61", "damon-promote": "#2c7bb6", "damon-bidir": "#7b3294",
}
MECH_LABEL = {
    "off": "no promotion (NB=0)",
    "tiering": "mainline tiering (NB=2)",
    "pghot1": "pghot hint faults, thr 1",
    "pghot2": "pghot hint faults, thr 2",
    "damon-promote": "DAMON promote-only",
    "damon-bidir": "DAMON bidirectional",
}
SCEN_ORDER = ["chase-st", "chase-mt", "phase", "overcommit", "redis"]
SCEN_TITLE = {
    "chase-st": "hot-set pointer chase, single-threaded",
    "chase-mt": "hot-set pointer chase, one hot chunk per thread",
    "phase": "phase change: the hot set moves midway",
    "overcommit": "top tier overcommitted (demotion_enabled=1)",
    "redis": "redis-server GETs over part of the keyspace",
}


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
           "run": {}, "failed": None}
    header = None
    in_csv = False
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n").rstrip("\r")
            if line.startswith("@run "):
                run["run"] = kv(line.split()[1:])
            elif line.startswith("@note "):
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
            elif line.startswith("@failed"):
                run["failed"] = line[8:] or "failed"
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
    if run["failed"]:
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
    m["hot_pct"] = last["hot_top_pct"]
    m["duration_s"] = last["t_s"]
    if scen == "redis":
        rps = [r["rps"] for r in run["rounds"]]
        tail = max(1, len(rps) // 4)
        m["rps_first"] = rps[0] if rps else None
        m["rps_steady"] = sum(rps[-tail:]) / tail if rps else None
        m["churn"] = m["migrated"] / m["net_placed"] if m["net_placed"] >= 1 else None
        for k in ("p50_ms", "p99_ms"):
            vals = [r[k] for r in run["rounds"]]
            m[k] = sum(vals[-tail:]) / tail if vals else None
        return m
    hot = float(meta["hot_pages"])
    cold = float(meta["pages"]) - hot
    # Churn: migrations per hot page gained in the top tier.
    gained = (last["hot_top_pct"] - first["hot_top_pct"]) / 100 * hot
    m["hot_gained"] = gained
    m["churn"] = m["migrated"] / gained if gained >= 1 else None
    m["hot_mb"] = hot * page / (1 << 20)
    m["over_pct"] = last["cold_top_pct"] / 100 * cold / hot * 100 if hot else None
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


def fmt(v, spec="{:.0f}", none="-"):
    return none if v is None else spec.format(v)


def table(rows, cols):
    """rows: list of lists of strings; cols: list of (title1, title2, align)."""
    widths = [max(len(c[0]), len(c[1]), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]

    def line(cells):
        out = []
        for (c, w, cell) in zip(cols, widths, cells):
            out.append(cell.ljust(w) if c[2] == "<" else cell.rjust(w))
        return "  ".join(out).rstrip()
    text = [line([c[0] for c in cols]), line([c[1] for c in cols]),
            "  ".join("-" * w for w in widths)]
    text += [line(r) for r in rows]
    return "\n".join(text)


def scenario_line(scen, runs):
    meta = next((r["meta"] for r in runs.values() if r and r.get("meta")), {})
    run = next((r for r in runs.values() if r and r.get("series")), None)
    secs = f"{run['series'][-1]['t_s']:.0f} s" if run else "?"
    if scen == "redis":
        return f"{SCEN_TITLE[scen]}, {secs} of samples"
    size = int(meta.get("size_mb", 0))
    hot = int(meta.get("hot_pages", 0)) * int(meta.get("page_size", 4096)) >> 20
    threads = meta.get("threads", "?")
    chunks = meta.get("chunks", "?")
    text = (f"{SCEN_TITLE[scen]}: {size} MB, hot set {hot} MB in {chunks} chunk(s), "
            f"{threads} thread(s), {secs}")
    if int(meta.get("fast_mb", 0)):
        text += f"; the first {meta['fast_mb']} MB start on the fast node"
    if float(meta.get("phase_at", -1)) >= 0:
        text += f"; hot set moves at {float(meta['phase_at']):.0f} s"
    return text


LEGEND = """\
Legend
------
hot      : share of the hot set in the top tier at the end (%); redis: share
           of redis-server's memory in the top tier
over     : cold pages in the top tier at the end, as % of the hot-set size
           (over-promotion; in `overcommit` the head of the buffer starts there)
top      : the workload's memory in the top tier at the end (MB)
t90      : time until 90% of the hot set is in the top tier (s); t90' the
           same for the new hot set after the phase change; '-' = never
promoted : pgpromote_success (NUMA balancing, kmigrated) + DAMON migrate_hot
           pages (sz_applied)
demoted  : pgdemote_* (reclaim) + DAMON migrate_cold pages
migrated : pgmigrate_success, every migration (promotion and demotion)
churn    : migrated / hot pages gained in the top tier (1.0: every migration
           placed a hot page; '-': none gained); redis: / net pages placed
kthr CPU : CPU time of kmigrated* and kdamond.* threads (s)
task sys : system time of the workload (hint faults and their migrations) (s)
lat      : chase latency per access, first interval -> mean of the last 25%
           (ns).  Under QEMU TCG both tiers are the same host DRAM: latency
           shows overheads (faults, migration, TLB), not the tier benefit.
ops/s    : redis-benchmark GET throughput, first round -> mean of the last
           25% of rounds; p50/p99 of those rounds (ms).  Same QEMU caveat.
"""


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    res = sys.argv[1]
    meta = {}
    if os.path.exists(os.path.join(res, "meta.txt")):
        with open(os.path.join(res, "meta.txt")) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    meta[k] = v
    raw = os.path.join(res, "raw")
    files = sorted(f for f in os.listdir(raw) if f.endswith(".txt")) if os.path.isdir(raw) else []
    expected = [(s, m) for s in meta.get("scenarios", "").split()
                for m in meta.get("mechanisms", "").split()]
    if not expected:
        for f in files:
            name = f[:-4]
            s = next((x for x in SCEN_ORDER if name.startswith(x + "-")), None)
            if s:
                expected.append((s, name[len(s) + 1:]))
    if not expected:
        print(f"report: no runs in {res}", file=sys.stderr)
        return 1

    errors = []
    runs = {}
    for s, m in expected:
        path = os.path.join(raw, f"{s}-{m}.txt")
        try:
            if not os.path.exists(path):
                raise ParseError(f"{path}: missing")
            runs[(s, m)] = parse_run(path)
        except ParseError as e:
            errors.append(str(e))
            runs[(s, m)] = None

    scenarios = [s for s in SCEN_ORDER if any(k[0] == s for k in runs)]
    mechs_all = [m for m in MECH_ORDER if any(k[1] == m for k in runs)]
    os.makedirs(os.path.join(res, "series"), exist_ok=True)

    out = []
    title = "pghot evaluation: promotion mechanisms side by side in the tiered QEMU VM"
    out += ["=" * 78, title, "=" * 78, ""]
    out.append(f"kernel   : {meta.get('kernel_version', '?')} ({meta.get('kernel', '?')})")
    out.append(f"VM       : {meta.get('topology', '?')} (QEMU TCG, HMAT: slow node 3x latency, 1/2 bandwidth)")
    out.append(f"host     : {meta.get('host', '?')}")
    out.append(f"command  : {meta.get('command', '?')}")
    out.append(f"date     : {meta.get('date', '?')}, {meta.get('elapsed_s', '?')} s of runs")
    out += ["", LEGEND]

    csv_rows = []
    ts_rows = []
    for s in scenarios:
        srun = {m: runs.get((s, m)) for m in mechs_all if (s, m) in runs}
        out += ["-" * 78, f"{s}: {scenario_line(s, srun)}", "-" * 78]
        rows = []
        notes = {}
        for m, run in srun.items():
            label = MECH_LABEL.get(m, m)
            if run is None or run["failed"]:
                why = "no output" if run is None else run["failed"]
                rows.append([label, "FAILED"])
                notes.setdefault(f"FAILED: {why}", []).append(m)
                csv_rows.append({"scenario": s, "mechanism": m, "status": "failed"})
                continue
            if m.startswith("pghot") and not run["series"][-1].get("pghot_recorded_hintfaults"):
                run["notes"].append("pghot recorded no hint fault: this kernel has no pghot "
                                    "hint-fault source (nor kmigrated), so what promoted is "
                                    "mainline NUMA balancing")
            for n in run["notes"]:
                notes.setdefault(n, []).append(m)
            mt = metrics(s, run)
            row = {"scenario": s, "mechanism": m, "status": "ok"}
            row.update({k: ("" if v is None else (round(v, 3) if isinstance(v, float) else v))
                        for k, v in mt.items()})
            csv_rows.append(row)
            with open(os.path.join(res, "series", f"{s}-{m}.csv"), "w", newline="") as f:
                w = csv.writer(f)
                cols = ["t_s", "phase", "hot_top_pct", "cold_top_pct", "top_mb", "lat_ns",
                        "pgpromote_success", "pgdemote", "pgmigrate_success",
                        "kthread_cpu_s", "task_sys_s"]
                w.writerow(cols)
                for x in run["series"]:
                    vals = [x.get("t_s"), x.get("phase"), x.get("hot_top_pct"),
                            x.get("cold_top_pct"), x.get("top_mb"), x.get("lat_ns"),
                            x.get("pgpromote_success", 0), demoted(x),
                            x.get("pgmigrate_success"), x.get("kthread_cpu_s"),
                            x.get("task_sys_s")]
                    w.writerow(vals)
                    ts_rows.append([s, m] + vals)
            common = [fmt(mt["promoted"]), fmt(mt["demoted"]), fmt(mt["migrated"]),
                      fmt(mt["churn"], "{:.2f}"), fmt(mt["kthread_cpu_s"], "{:.2f}"),
                      fmt(mt["task_sys_s"], "{:.2f}")]
            if s == "redis":
                rows.append([label, fmt(mt["hot_pct"], "{:.1f}"), fmt(mt["top_mb"], "{:.1f}")]
                            + common +
                            [f"{fmt(mt['rps_first'])}->{fmt(mt['rps_steady'])}",
                             fmt(mt["p50_ms"], "{:.2f}"), fmt(mt["p99_ms"], "{:.1f}")])
            else:
                rows.append([label, fmt(mt["hot_pct"], "{:.1f}"), fmt(mt["over_pct"], "{:+.1f}"),
                             fmt(mt["top_mb"], "{:.1f}"), fmt(mt["t90"], "{:.1f}"),
                             fmt(mt["t90_after_change"], "{:.1f}")] + common +
                            [f"{fmt(mt['lat_first'])}->{fmt(mt['lat_steady'])}"])
        base = [("mechanism", "", "<")]
        tail = [("promoted", "(pages)", ">"), ("demoted", "(pages)", ">"),
                ("migrated", "(pages)", ">"), ("churn", "", ">"), ("kthr", "CPU (s)", ">"),
                ("task", "sys (s)", ">")]
        if s == "redis":
            cols = base + [("top", "(%)", ">"), ("top", "(MB)", ">")] + tail + \
                [("ops/s", "first->steady", ">"), ("p50", "(ms)", ">"), ("p99", "(ms)", ">")]
        else:
            cols = base + [("hot", "(%)", ">"), ("over", "(%)", ">"), ("top", "(MB)", ">"),
                           ("t90", "(s)", ">"), ("t90'", "(s)", ">")] + tail + \
                [("lat (ns)", "first->steady", ">")]
        rows = [r[:len(cols)] + [""] * (len(cols) - len(r)) for r in rows]
        out += [table(rows, cols), ""]
        if notes:
            ran = list(srun)
            out.append("notes:")
            for n, ms in notes.items():
                who = "" if ms == ran else f"[{', '.join(ms)}] "
                out.append(f"- {who}{n}")
            out.append("")

    if errors:
        out += ["PARSE ERRORS (the harness is broken):"] + [f"- {e}" for e in errors] + [""]

    with open(os.path.join(res, "results.txt"), "w") as f:
        f.write("\n".join(out) + "\n")
    keys = ["scenario", "mechanism", "status", "hot_pct", "over_pct", "hot_mb", "top_mb",
            "t90", "t90_after_change", "promoted", "demoted", "migrated", "net_placed",
            "hot_gained",
            "churn", "kthread_cpu_s", "task_sys_s", "lat_first", "lat_steady", "rps_first",
            "rps_steady", "p50_ms", "p99_ms", "duration_s"]
    with open(os.path.join(res, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        for r in csv_rows:
            w.writerow(r)
    with open(os.path.join(res, "timeseries.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scenario", "mechanism", "t_s", "phase", "hot_top_pct", "cold_top_pct",
                    "top_mb", "lat_ns", "pgpromote_success", "pgdemote", "pgmigrate_success",
                    "kthread_cpu_s", "task_sys_s"])
        w.writerows(ts_rows)

    # Plots: one PNG per scenario, a colour per mechanism; top panel: the hot
    # set (redis: its memory) in the top tier, bottom panel: the cold set.
    gp = ["set terminal pngcairo size 1100,800 font ',10' noenhanced",
          "set datafile separator ','", "set key outside right top", "set grid"]
    pngs = []
    for s in scenarios:
        series = [m for m in mechs_all
                  if runs.get((s, m)) and runs[(s, m)]["series"] and
                  os.path.exists(os.path.join(res, "series", f"{s}-{m}.csv"))]
        if not series:
            continue
        png = f"residency-{s}.png"
        pngs.append(png)
        gp += [f"set output '{png}'",
               f"set multiplot layout {1 if s == 'redis' else 2},1 "
               f"title '{s}: {SCEN_TITLE[s]}'",
               "set xlabel 'time (s)'", "set yrange [0:105]"]
        panels = [(3, "% of redis-server's memory in the top tier" if s == "redis"
                   else "hot set in the top tier (%)")]
        if s != "redis":
            panels.append((4, "cold set in the top tier (%)"))
        for col, ylabel in panels:
            gp.append(f"set ylabel \"{ylabel}\"")
            if col == 4:
                gp.append("set yrange [0:*]")
            plots = []
            for i, m in enumerate(series):
                colour = MECH_COLOUR.get(m, "#000000")
                plots.append(f"'series/{s}-{m}.csv' using 1:{col} with linespoints "
                             f"lw 2 lc rgb '{colour}' pt {i + 4} ps 0.7 "
                             f"title '{MECH_LABEL.get(m, m)}'")
            gp.append("plot " + ", \\\n     ".join(plots))
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
