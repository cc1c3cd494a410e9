#!/usr/bin/env python3
"""Medians of step_ab.sh's rounds: per tree (a, b), rows and threads, the
training seconds and the master's parts of a step in microseconds
(step_proxies.sh's trace totals over the steps), the serial section
(step_serial + step_after) among them; the load average before each run
and the cores other processes used during it, as ranges."""
import glob
import os
import statistics
import sys

PARTS = ["step_begin", "step_kernel", "step_serial", "step_after",
         "step_read_ahead_update", "step_end", "step_workers_gather"]


def main():
    out = sys.argv[1]
    runs = {}  # (tree, rows, threads) -> list of dicts
    for path in sorted(glob.glob(os.path.join(out, "[ab]-*", "raw.tsv"))):
        tree = os.path.basename(os.path.dirname(path)).split("-")[0]
        cur = {}
        with open(path) as f:
            for line in f:
                if line.startswith("#") or line.startswith("run\t"):
                    continue
                c = line.rstrip("\n").split("\t")
                key = (tree, int(c[1]), int(c[2]))
                d = cur.setdefault(key, {"load": float(c[3]),
                                         "train_s": float(c[4])})
                what, count, value = c[6], float(c[7]), float(c[8])
                if what == "others_cores":
                    d["others"] = value
                elif what in PARTS and count > 0:
                    d[what] = value / count * 1e6
        for k, d in cur.items():
            d["serial"] = d.get("step_serial", 0) + d.get("step_after", 0)
            d["step"] = sum(d.get(p, 0) for p in PARTS[:6] if p != "step_after")
            runs.setdefault(k, []).append(d)
    cols = ["train_s", "step_begin", "step_kernel", "step_serial",
            "step_after", "serial", "step_read_ahead_update", "step_end",
            "step_workers_gather", "step"]
    print("tree\trows\tthreads\truns\tload1\tothers_cores\t" + "\t".join(cols))
    for k in sorted(runs):
        rs = runs[k]
        row = [k[0], str(k[1]), str(k[2]), str(len(rs)),
               "%.2f-%.2f" % (min(r["load"] for r in rs), max(r["load"] for r in rs)),
               "%.2f-%.2f" % (min(r.get("others", 0) for r in rs),
                              max(r.get("others", 0) for r in rs))]
        for c in cols:
            v = [r[c] for r in rs if c in r]
            row.append("%.3f" % statistics.median(v) if v and c == "train_s"
                       else ("%.2f" % statistics.median(v) if v else "-"))
        print("\t".join(row))


if __name__ == "__main__":
    main()
