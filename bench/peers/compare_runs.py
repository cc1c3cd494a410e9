#!/usr/bin/python3
"""Paired comparison of two sets of default-settings runs (runs.tsv files
written by defaults_accuracy.py): for every (case, method) the mean test
accuracy of A and of B over the seeds both have, B - A, and the standard
error of that difference over the seeds (paired: the same subsample and
labels per seed). The latest row of each (case, seed, method) counts.
With --libsvm RUNS (a runs.tsv holding LIBSVM's rows, e.g.
bench/results/defaults/runs.tsv), LIBSVM's mean over the same seeds, A and
B minus it, and the defaults benchmark's verdict for each (ok when
>= libsvm - 1; "near" when within 1.5 points of that line).

  /usr/bin/python3 bench/peers/compare_runs.py A.tsv B.tsv [--methods dsg,tsg]
      [--libsvm bench/results/defaults/runs.tsv]
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
    ap.add_argument("--libsvm", help="runs.tsv with LIBSVM's rows: adds its mean on the "
                    "same seeds and the verdicts")
    args = ap.parse_args()
    a, b = load(args.a), load(args.b)
    lib = load(args.libsvm) if args.libsvm else None
    keep = set(m for m in args.methods.split(",") if m)
    pairs, seeds = {}, {}
    for key, vb in b.items():
        if key in a and (not keep or key[2] in keep):
            pairs.setdefault((key[0], key[2]), []).append((a[key], vb))
            seeds.setdefault((key[0], key[2]), []).append(key[1])
    print(f"# A: {args.a}\n# B: {args.b}\n# accuracy in %; se: standard error of the "
          "paired difference over seeds")
    if lib is not None:
        print(f"# LIBSVM: {args.libsvm} (mean over the same seeds); verdict: ok when "
              ">= libsvm - 1, near when within 1.5 points of that line")
    print("case\tmethod\tseeds\tmean_a\tmean_b\tb_minus_a\tse" +
          ("\tlibsvm\ta_minus_libsvm\tb_minus_libsvm\tverdict_a\tverdict_b"
           if lib is not None else ""))
    by_method = {}
    for (case, method), ab in sorted(pairs.items()):
        d = [y - x for x, y in ab]
        se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
        ma, mb = statistics.mean(x for x, _ in ab), statistics.mean(y for _, y in ab)
        line = (f"{case}\t{method}\t{len(ab)}\t{ma:.2f}\t{mb:.2f}\t"
                f"{statistics.mean(d):+.2f}\t{se:.2f}")
        if lib is not None:
            ls = [lib.get((case, s_, "libsvm")) for s_ in seeds[(case, method)]]
            if None in ls:
                line += "\t\t\t\tno libsvm on these seeds\t"
            else:
                ml = statistics.mean(ls)
                v = lambda x: (("ok" if x >= ml - 1.0 else "SHORT") +
                               (" (near)" if abs(x - (ml - 1.0)) < 1.5 else ""))
                line += (f"\t{ml:.2f}\t{ma - ml:+.2f}\t{mb - ml:+.2f}\t{v(ma)}\t{v(mb)}")
        print(line)
        by_method.setdefault(method, []).append(statistics.mean(d))
    for method, ds in sorted(by_method.items()):
        print(f"# {method}: mean over {len(ds)} cases {statistics.mean(ds):+.2f}; "
              f"B ahead by > 0.5 on {sum(x > 0.5 for x in ds)}, behind by > 0.5 on "
              f"{sum(x < -0.5 for x in ds)}")


if __name__ == "__main__":
    main()
