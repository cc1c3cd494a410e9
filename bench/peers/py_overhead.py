#!/usr/bin/python3
"""Overhead of the Python binding: TSGS3VMClassifier.fit against the tool's
own training time (its "trained: ..., S s" line), on the same SYNTHETIC
SUSY-shaped rows, same labels, seed, solver and threads, alternating the two
REPS times; medians and their ratio.

  py_overhead.py prepare SYNTH_CSV OUT_DIR [LABELED]   # once: OUT_DIR/{rows.csv,X.npy,y.npy}
  py_overhead.py run OUT_DIR TOOL SOLVER THREADS REPS  # prints a TSV row

prepare keeps LABELED (default 1000) labels, drawn by a seeded RNG; the others
become -1 (rows.csv for the tool, read with --unlabeled-label -1; X.npy and
y.npy for Python, float32 C order, passed without a copy). Only fit() is
timed on the Python side, only training on the tool's (neither reads data).
"""
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))


def prepare(csv, out, labeled=1000):
    os.makedirs(out, exist_ok=True)
    data = np.loadtxt(csv, delimiter=",", dtype=np.float64)
    y = data[:, 0].astype(np.int64)
    X = np.ascontiguousarray(data[:, 1:], dtype=np.float32)
    rng = np.random.RandomState(1)
    keep = rng.choice(len(y), labeled, replace=False)
    y_semi = np.full(len(y), -1)
    y_semi[keep] = y[keep]
    np.save(os.path.join(out, "X.npy"), X)
    np.save(os.path.join(out, "y.npy"), y_semi)
    np.savetxt(os.path.join(out, "rows.csv"),
               np.column_stack([y_semi, X.astype(np.float64)]),
               delimiter=",", fmt=["%d"] + ["%.9g"] * X.shape[1])


def python_fit_seconds(out, solver, threads):
    """One fit in a fresh process (as the tool runs in one)."""
    code = (
        "import sys, time, numpy as np\n"
        "sys.path.insert(0, %r)\n"
        "from tsgs3vm import TSGS3VMClassifier\n"
        "X = np.load(%r); y = np.load(%r)\n"
        "clf = TSGS3VMClassifier(solver=%r, n_jobs=%d, random_state=1,"
        " bind='auto')\n"
        "t = time.perf_counter(); clf.fit(X, y); print(time.perf_counter() - t)\n"
    ) % (os.path.join(ROOT, "python"), os.path.join(out, "X.npy"),
         os.path.join(out, "y.npy"), solver, threads)
    run = subprocess.run(["/usr/bin/python3", "-c", code], check=True,
                         capture_output=True, text=True)
    return float(run.stdout.split()[-1])


def tool_train_seconds(out, tool, solver, threads):
    run = subprocess.run([tool, "train", "--solver", solver, "--threads",
                          str(threads), "--seed", "1", "--header", "no",
                          "--unlabeled-label", "-1",
                          os.path.join(out, "rows.csv"),
                          os.path.join(out, "tool.model")],
                         check=True, capture_output=True, text=True)
    m = re.search(r"trained: .*?([0-9.]+)s", run.stderr)
    return float(m.group(1))


def run(out, tool, solver, threads, reps):
    py, cl = [], []
    for _ in range(reps):
        cl.append(tool_train_seconds(out, tool, solver, threads))
        py.append(python_fit_seconds(out, solver, threads))
    n = np.load(os.path.join(out, "y.npy"), mmap_mode="r").shape[0]
    mp, mc = statistics.median(py), statistics.median(cl)
    print("\t".join([solver, str(threads), str(n), "%.3f" % mc, "%.3f" % mp,
                     "%+.1f%%" % (100 * (mp / mc - 1)),
                     " ".join("%.3f" % v for v in cl),
                     " ".join("%.3f" % v for v in py)]))


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3],
                int(sys.argv[4]) if len(sys.argv) > 4 else 1000)
    else:
        run(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]),
            int(sys.argv[6]))
