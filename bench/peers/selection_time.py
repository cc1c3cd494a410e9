#!/usr/bin/python3
"""Time of the default's training against LIBSVM's CV grid on the same labels.

Issue #7 asks that the built-in model selection take less time than LIBSVM's
grid on the same labels. The default `train` IS its model selection (the
(sigma, C) grid, the annealed paths and the safe choice, then the fit), so it
is timed whole, against libsvm_grid.sh (svm-train -v 5 over the 10 x 11 grid of
defaults_accuracy.py, then svm-train at the best point): both fit only, no
prediction.

The units are those of defaults_accuracy.py run with --keep-work (any
--methods, e.g. majority, which runs nothing): UNITS/CASE.seedN/ holds
labeled.svm and unlabeled.svm (raw, what our tool reads) and labeled_s.svm
(scaled to [-1, 1], what LIBSVM reads).

Each round runs every (method, threads) of a unit once, one process at a time,
in an order rotated per round (a slow spell of the machine does not fall on
one method); medians over the rounds. LIBSVM is single-threaded
(OMP_NUM_THREADS=1 as in defaults_accuracy.py); our tool runs with each
thread count of --threads.

  /usr/bin/python3 bench/peers/defaults_accuracy.py --methods majority \\
      --keep-work --seeds 1-3 --results /tmp/t --workdir /tmp/t/work
  /usr/bin/python3 bench/peers/selection_time.py --units /tmp/t/work/units \\
      --tool new=./build/tsgs3vm --tool old=/tmp/tsgs3vm-old --rounds 3 \\
      > bench/results/selection-time.tsv
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from defaults_accuracy import LIBSVM_CS, LIBSVM_GAMMAS  # noqa: E402
import peers_common as pc  # noqa: E402


def timed(cmd, env):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"exit {r.returncode}: {' '.join(cmd)}")
    return dt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--units", required=True)
    ap.add_argument("--tool", action="append", required=True,
                    metavar="NAME=PATH")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cases", default="",
                    help="comma-separated unit name prefixes (default: all)")
    a = ap.parse_args()
    tools = [t.split("=", 1) for t in a.tool]
    threads = [int(t) for t in a.threads.split(",")]
    units = sorted(d for d in os.listdir(a.units)
                   if os.path.exists(os.path.join(a.units, d, "labeled_s.svm")))
    if a.cases:
        pre = a.cases.split(",")
        units = [u for u in units if any(u.startswith(p + ".seed") for p in pre)]
    if not units:
        sys.exit(f"no units with labeled_s.svm under {a.units}")

    grid = os.path.join(HERE, "libsvm_grid.sh")
    gammas = " ".join(repr(g) for g in LIBSVM_GAMMAS)
    cs = " ".join(repr(c) for c in LIBSVM_CS)
    base = dict(os.environ, OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    print(f"# selection time: bench/peers/selection_time.py {' '.join(sys.argv[1:])}")
    print(f"# date: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}")
    print(f"# machine: {pc.sh(['sh', '-c', 'lscpu | sed -n s/^Model.name:.//p']).strip()}"
          f"; nproc {os.cpu_count()}; {platform.node()}")
    for name, path in tools:
        print(f"# tool {name}: {path} sha256:{pc.sha256_16(path)}")
    print("# seconds: fit only, whole processes, one at a time; median (min-max)"
          f" over {a.rounds} rounds")
    print("unit\tmethod\tthreads\tseconds\tmin\tmax")

    for u in units:
        d = os.path.join(a.units, u)
        runs = []
        for name, path in tools:
            for t in threads:
                cmd = [path, "train", "--unlabeled", os.path.join(d, "unlabeled.svm"),
                       os.path.join(d, "labeled.svm"), os.path.join(d, f"time-{name}.model")]
                runs.append((name, t, cmd, dict(base, OMP_NUM_THREADS=str(t))))
        lab_s = os.path.join(d, "labeled_s.svm")
        runs.append(("libsvm", 1, [grid, lab_s, lab_s, os.path.join(d, "time-libsvm.model"),
                                   gammas, cs], dict(base, OMP_NUM_THREADS="1")))
        secs = [[] for _ in runs]
        for r in range(a.rounds):
            for k in range(len(runs)):
                i = (k + r) % len(runs)
                secs[i].append(timed(runs[i][2], runs[i][3]))
        for (name, t, _, _), s in zip(runs, secs):
            print(f"{u}\t{name}\t{t}\t{statistics.median(s):.3f}\t{min(s):.3f}\t{max(s):.3f}",
                  flush=True)


if __name__ == "__main__":
    main()
