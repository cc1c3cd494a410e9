#!/usr/bin/python3
"""Paired comparison of two sets of default-settings runs (runs.tsv files
written by defaults_accuracy.py): for every (case, method) the mean test
accuracy of A and of B over the seeds both have, B - A, and the standard
error of that difference over the seeds (paired: the same subsample and
labels per seed). The latest row of each (case, seed, method) counts.

  /usr/bin/python3 bench/peers/compare_runs.py A.tsv B.tsv [--methods dsg,tsg]
"""
import argparse
import math
import statistics


def load(path):
    runs = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("case\t"):
                continue
            f_ = line.rstrip("\n").split("\t")
            if len(f_) < 5 or not f_[4]:
                continue
            runs[(f_[0], f_[2], f_[3])] = float(f_[4])
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--methods", default="", help="comma-separated; default: all")
    args = ap.parse_args()
    a, b = load(args.a), load(args.b)
    keep = set(m for m in args.methods.split(",") if m)
    pairs = {}
    for key, vb in b.items():
        if key in a and (not keep or key[2] in keep):
            pairs.setdefault((key[0], key[2]), []).append((a[key], vb))
    print(f"# A: {args.a}\n# B: {args.b}\n# accuracy in %; se: standard error of the "
          "paired difference over seeds")
    print("case\tmethod\tseeds\tmean_a\tmean_b\tb_minus_a\tse")
    by_method = {}
    for (case, method), ab in sorted(pairs.items()):
        d = [y - x for x, y in ab]
        se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
        print(f"{case}\t{method}\t{len(ab)}\t{statistics.mean(x for x, _ in ab):.2f}\t"
              f"{statistics.mean(y for _, y in ab):.2f}\t{statistics.mean(d):+.2f}\t{se:.2f}")
        by_method.setdefault(method, []).append(statistics.mean(d))
    for method, ds in sorted(by_method.items()):
        print(f"# {method}: mean over {len(ds)} cases {statistics.mean(ds):+.2f}; "
              f"B ahead by > 0.5 on {sum(x > 0.5 for x in ds)}, behind by > 0.5 on "
              f"{sum(x < -0.5 for x in ds)}")


if __name__ == "__main__":
    main()
