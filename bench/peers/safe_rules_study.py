#!/usr/bin/python3
"""Offline study of the safe solver's selection rules (issue #7).

The safe solver (src/solvers/safe/safe.c) keeps one of its candidates -- the
supervised SVM, the annealed path's solutions at T = 10, 3, 1, 0.3, 0.1, or
the majority class -- from their records on the held-out rows of a 2 x
5-fold CV on the labels. This script replays selection rules on such
records, so that a rule is measured on every unit of the defaults benchmark
without training again, and says what each rule's choice scores on the test
rows.

The records come from a throwaway instrumentation of the tool
(bench/studies/safe-oracle/instrumentation.patch, applied to the
commit it names): it writes each run's held-out decision values and one model
file per candidate; oracle.sh predicts the test rows with each. `pack` turns
a folder of those into one table (one line per unit: the test accuracy of
each candidate and of the majority class, and the held-out records as hex
bits); `rules` evaluates rules on packed tables against the peers' runs.

  safe_rules_study.py pack ORACLE_DIR OUT.tsv.xz
  safe_rules_study.py rules PACKED.tsv.xz [...] --runs RUNS.tsv [...] [--grid]
"""
import argparse
import collections
import csv
import glob
import lzma
import math
import os
import sys

import numpy as np

N_CAND = 6  # the supervised SVM, then T = 10, 3, 1, 0.3, 0.1
REPEATS = 2


def bits_hex(a):
    return np.packbits(np.asarray(a, dtype=np.uint8)).tobytes().hex()


def hex_bits(s, n):
    return np.unpackbits(np.frombuffer(bytes.fromhex(s), dtype=np.uint8))[:n]


def pack(args):
    out = []
    for f in sorted(glob.glob(os.path.join(args.oracle_dir, "*.acc"))):
        name = os.path.basename(f)[:-4]
        acc = open(f).read().split()[1:]
        if len(acc) != 1 + N_CAND:
            sys.exit(f"{f}: expected {1 + N_CAND} accuracies")
        lines = open(f[:-4] + ".dump").read().split("\n")
        nl, reps, nc, kept, npos = map(int, lines[0].split())
        if (reps, nc) != (REPEATS, N_CAND):
            sys.exit(f"{f}: repeats {reps}, candidates {nc}")
        y = np.array(lines[1].split(), dtype=float)
        oof = np.array(lines[2].split(), dtype=float).reshape(nc, reps, nl)
        ok = np.where(oof > 0, 1.0, -1.0) == y[None, None, :]
        case, seed = name.rsplit(".seed", 1)
        out.append([case, seed, str(nl), str(npos), str(kept)] + acc +
                   [bits_hex(y > 0), bits_hex(ok.ravel())])
    with lzma.open(args.out, "wt") as fh:
        fh.write("# held-out records of the safe solver's candidates "
                 "(bench/peers/safe_rules_study.py pack)\n")
        fh.write("\t".join(["case", "seed", "nl", "npos", "kept", "test_majority"] +
                           [f"test_c{c}" for c in range(N_CAND)] +
                           ["y_pos_bits", "ok_bits"]) + "\n")
        for r in out:
            fh.write("\t".join(r) + "\n")
    print(f"{len(out)} units -> {args.out}")


def load(paths):
    units = []
    for p in paths:
        with lzma.open(p, "rt") as fh:
            rows = csv.DictReader((l for l in fh if not l.startswith("#")),
                                  delimiter="\t")
            for r in rows:
                nl = int(r["nl"])
                y = np.where(hex_bits(r["y_pos_bits"], nl) > 0, 1.0, -1.0)
                ok = hex_bits(r["ok_bits"], N_CAND * REPEATS * nl).reshape(
                    N_CAND, REPEATS, nl).astype(bool)
                units.append(dict(
                    case=r["case"], seed=int(r["seed"]), y=y, ok=ok,
                    test=[float(r["test_majority"])] +
                    [float(r[f"test_c{c}"]) for c in range(N_CAND)]))
    return units


def peers(paths):
    acc = collections.defaultdict(dict)
    for p in paths:
        for r in csv.reader((l for l in open(p) if not l.startswith("#")),
                            delimiter="\t"):
            if len(r) >= 5 and r[0] != "case" and r[4]:
                acc[(r[0], int(r[2]))][r[3]] = float(r[4])
    return acc


# ------------------------------------------------------------- the rules

def choose_path(ok, first, margin):
    """The kept candidate (0: supervised), as safe_select.c counts."""
    tot = ok.sum(axis=(1, 2))
    per = ok.sum(axis=2)
    cands = range(first, N_CAND)
    best = max(cands, key=lambda c: (tot[c], c))  # ties to the most annealed
    path = disc = 0
    for rep in range(REPEATS):
        other = (rep + 1) % REPEATS
        pick = max(cands, key=lambda c: (per[c, rep], c))
        path += per[pick, other]
        disc += int((ok[pick, other] != ok[0, other]).sum())
    differ = int((ok[best] != ok[0]).sum())
    wins = path > tot[0] + margin * math.sqrt(disc)
    return best if wins or differ == 0 else 0


def majority(u, c, margin, ties):
    """-1 for the majority class instead of candidate c, else c. ties:
    'all' (a tie keeps the one class), 'none' (it needs the margin),
    'same' (only where c predicted that class on every held-out row)."""
    y = u["y"]
    npos = int((y > 0).sum())
    if 2 * npos == len(y):
        return c
    cls = 1.0 if 2 * npos > len(y) else -1.0
    m = np.broadcast_to(y == cls, u["ok"][c].shape)
    right, major = int(u["ok"][c].sum()), int(m.sum())
    differ = int((u["ok"][c] != m).sum())
    if ties == "all" and right <= major:
        return -1
    if ties == "same" and differ == 0:
        return -1
    return -1 if right < major - margin * math.sqrt(differ) else c


RULES = {
    # 9cc5a05: every temperature a candidate, no margin, the majority class
    # on ties
    "9cc5a05": lambda u: majority(u, choose_path(u["ok"], 1, 0.0), 0.0, "all"),
    # 7ebd586: T <= 1, the path by 0.5 SD, the majority class where the
    # candidate predicted it everywhere or is worse by 1 SD
    "7ebd586": lambda u: majority(u, choose_path(u["ok"], 3, 0.5), 1.0, "same"),
    "supervised": lambda u: majority(u, 0, 1.0, "same"),
}


def grid_rules():
    out = {}
    for first, fname in ((1, "T<=10"), (2, "T<=3"), (3, "T<=1")):
        for pm in (0.0, 0.5, 1.0):
            for mm, ties, mname in ((0.0, "all", "maj-ties"),
                                    (1.0, "none", "maj-1sd"),
                                    (1.0, "same", "maj-same-or-1sd")):
                out[f"{fname} path+{pm}sd {mname}"] = (
                    lambda f, p, m, t: lambda u:
                    majority(u, choose_path(u["ok"], f, p), m, t))(first, pm, mm, ties)
    return out


def rules(args):
    units = load(args.packed)
    pr = peers(args.runs)
    cases = sorted({u["case"] for u in units})
    by_case = collections.defaultdict(list)
    for u in units:
        by_case[u["case"]].append(u)

    def mean_of(rule, c):
        return float(np.mean([u["test"][rule(u) + 1] for u in by_case[c]]))

    def peer(c, m):
        v = [pr[(c, u["seed"])].get(m) for u in by_case[c]]
        return float(np.mean(v)) if all(x is not None for x in v) else math.nan

    seeds = sorted({u["seed"] for u in units})
    print(f"# {len(units)} units, seeds {seeds[0]}-{seeds[-1]}; test accuracy "
          "in %, mean over seeds")
    if args.grid:
        print("rule\tmean\tworst_vs_dsg\tcases_below_dsg-0.5\tworst_vs_libsvm\t"
              "cases_below_majority")
        for name, f in grid_rules().items():
            ev = {c: mean_of(f, c) for c in cases}
            dd = {c: ev[c] - peer(c, "dsg") for c in cases}
            dl = {c: ev[c] - peer(c, "libsvm") for c in cases}
            maj = {c: float(np.mean([u["test"][0] for u in by_case[c]]))
                   for c in cases}
            w = min(cases, key=lambda c: dd[c])
            print(f"{name}\t{np.mean(list(ev.values())):.3f}\t{dd[w]:+.2f} ({w})\t"
                  f"{sum(v < -0.5 for v in dd.values())}\t"
                  f"{min(dl.values()):+.2f}\t"
                  f"{sum(ev[c] < maj[c] - 1e-9 for c in cases)}")
        return
    names = ["majority"] + [f"c{c}" for c in range(N_CAND)]
    print("case\tdsg\tlibsvm\t" + "\t".join(names) + "\t" + "\t".join(RULES))
    tot = collections.defaultdict(float)
    for c in cases:
        cand = np.mean([u["test"] for u in by_case[c]], axis=0)
        ev = [mean_of(f, c) for f in RULES.values()]
        for k, v in zip(RULES, ev):
            tot[k] += v / len(cases)
        print(f"{c}\t{peer(c, 'dsg'):.2f}\t{peer(c, 'libsvm'):.2f}\t" +
              "\t".join(f"{v:.2f}" for v in cand) + "\t" +
              "\t".join(f"{v:.2f}" for v in ev))
    print("# mean over the cases: " +
          ", ".join(f"{k} {v:.3f}" for k, v in tot.items()))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack")
    p.add_argument("oracle_dir")
    p.add_argument("out")
    r = sub.add_parser("rules")
    r.add_argument("packed", nargs="+")
    r.add_argument("--runs", nargs="+", required=True,
                   help="runs.tsv files holding dsg and libsvm for the seeds")
    r.add_argument("--grid", action="store_true",
                   help="every combination of candidates, path margin and "
                        "majority rule, summarised")
    a = ap.parse_args()
    pack(a) if a.cmd == "pack" else rules(a)


if __name__ == "__main__":
    main()
