#!/usr/bin/python3
"""The gain benchmark (issue #29): does the default use the unlabeled rows
where they carry the classes' structure, and stay safe where they do not?

The protocol of the field's semi-supervised benchmarks: the labels are drawn
at random (not stratified; a draw holding one class only is drawn again),
each draw is one unit, and every unit is scored three ways on the same rows:

  semi    tsgs3vm train with the unlabeled rows (the default, no option)
  sup     tsgs3vm train on the labeled rows alone (the same default)
  libsvm  LIBSVM (scikit-learn's SVC, which is LIBSVM) on the labeled rows,
          scaled to [-1, 1] on them as svm-scale does, C and gamma by 5-fold
          CV over gamma 2^-9..2^3 x C 2^-3..2^11 (steps of 4x; ties to the
          smaller gamma, then the smaller C), as reference.tsv of
          ../shared/checks/gain was made

plus the majority rate (the labeled rows' majority class on the scored
rows). Transductive cases score the unlabeled rows, inductive ones a test
set disjoint from both.

Families (SYNTHETIC unless named after a shared data set):
  gauss50    two 50-d unit Gaussians, means +-1.645/sqrt(50) on every axis
             (Bayes error 5%), 550 rows, transductive (the classic benchmark)
  g241c      two 241-d unit Gaussians, means 2.5 apart, 1,500 rows,
             transductive (clusters are the classes)
  g241d      241-d; two clusters 6 apart on axis 1, each holding both
             classes 2.5 apart on axis 2: the gap is NOT the boundary
  mislead    50-d unit Gaussians, clusters +-3 on axis 1, class the sign of
             axis 2 (no gap there): the low-density separator is wrong
  moons      two interleaved 2-d half circles with noise 0.15, 1,000 rows
  nosignal   16-d, class prior 0.535, a shift of 0.05 on one axis: the
             labels carry almost no signal (the majority class is right)
  digits     REAL, not SYNTHETIC: scikit-learn's 8x8 handwritten digits
             (load_digits, 1,797 rows, 10 classes), transductive; digits@50
             is 5 labels a class on average (drawn at random, every class
             present at least once)
  cod-rna, ijcnn1, susy, skin, higgs, w8a: the shared real sets, 2,000
             unlabeled rows and a 5,000-row test sample, inductive (w8a: 3%
             positive, 300 sparse binary features)

Usage:
  gain_study.py make  WORK --cases CASES --seeds 1-10 [--unlabeled N|all]
  gain_study.py run   WORK RESULTS.tsv --tool build/tsgs3vm [--jobs 2]
  gain_study.py report RESULTS.tsv [...] [--markdown]
  gain_study.py compare --before A.tsv [...] --after B.tsv [...] [--markdown]
CASES: comma-separated NAME@LABELS, e.g. gauss50@50,cod-rna@200.
Uses numpy and scikit-learn (Debian's python3-sklearn).
"""
import argparse
import bz2
import concurrent.futures as cf
import io
import json
import lzma
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import peers_common as pc  # noqa: E402  (seeds, SVMlight rows)
SHARED = os.environ.get("TSGS_SHARED",
                        os.path.join(HERE, "..", "..", "..", "shared"))

GAMMAS = [2.0 ** e for e in range(-9, 4, 2)]
CS = [2.0 ** e for e in range(-3, 12, 2)]


# ---------------------------------------------------------------- families
def gauss50(rng, n=550, d=50):
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    x = rng.standard_normal((n, d)) + y[:, None] * (1.645 / np.sqrt(d))
    return x, y


def g241c(rng, n=1500, d=241):
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    u = np.ones(d) / np.sqrt(d)
    x = rng.standard_normal((n, d)) + np.outer(y * 1.25, u)
    return x, y


def g241d(rng, n=1500, d=241):
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    side = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    x = rng.standard_normal((n, d))
    x[:, 0] += 3.0 * side
    x[:, 1] += 1.25 * y
    return x, y


def mislead(rng, n=550, d=50):
    x = rng.standard_normal((n, d))
    x[:, 0] += 3.0 * np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y = np.where(x[:, 1] > 0, 1.0, -1.0)
    return x, y


def moons(rng, n=1000):
    t = rng.random(n) * np.pi
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    x = np.where(y[:, None] > 0,
                 np.c_[np.cos(t), np.sin(t)],
                 np.c_[1 - np.cos(t), 0.5 - np.sin(t)])
    return x + 0.15 * rng.standard_normal((n, 2)), y


def nosignal(rng, n=7200, d=16):
    y = np.where(rng.random(n) < 0.535, 1.0, -1.0)
    x = rng.standard_normal((n, d))
    x[:, 0] += 0.05 * y
    return x, y


SYNTH = {"gauss50": gauss50, "g241c": g241c, "g241d": g241d,
         "mislead": mislead, "moons": moons, "nosignal": nosignal}
TRANSDUCTIVE = {"gauss50", "g241c", "g241d", "mislead", "moons", "digits"}


# ------------------------------------------------------------ real sets
def _open(path):
    if path.endswith(".xz"):
        return lzma.open(path, "rt")
    if path.endswith(".bz2"):
        return bz2.open(path, "rt")
    return open(path)


def _svm(path):
    with _open(path) as f:
        return pc.load_svm(io.BytesIO(f.read().encode()))


_REAL_CACHE = {}


def real(name):
    """(train x, train y, test x, test y), labels +-1."""
    if name in _REAL_CACHE:
        return _REAL_CACHE[name]
    d = os.path.join(SHARED, "data")
    if name == "cod-rna":
        xa, ya = _svm(os.path.join(d, "cod-rna", "cod-rna.txt.xz"))
        xt, yt = _svm(os.path.join(d, "cod-rna", "cod-rna.t.xz"))
    elif name == "ijcnn1":
        xa, ya = _svm(os.path.join(d, "ijcnn1", "ijcnn1.trn.bz2"))
        xt, yt = _svm(os.path.join(d, "ijcnn1", "ijcnn1.tst.bz2"))
        w = max(xa.shape[1], xt.shape[1])
        xa = np.pad(xa, ((0, 0), (0, w - xa.shape[1])))
        xt = np.pad(xt, ((0, 0), (0, w - xt.shape[1])))
    elif name == "susy":
        with _open(os.path.join(d, "susy", "SUSY_test.csv.xz")) as f:
            a = np.loadtxt(f, delimiter=",", skiprows=1)
        ya, xa = a[:, 1], a[:, 2:]
        half = len(ya) // 2
        xa, ya, xt, yt = xa[:half], ya[:half], xa[half:], ya[half:]
    elif name == "skin":
        with _open(os.path.join(d, "skin_nonskin",
                                "Skin_NonSkin.txt.xz")) as f:
            a = np.loadtxt(f, delimiter=",", skiprows=1)
        rng = np.random.RandomState(0)
        p = rng.permutation(len(a))
        a = a[p]
        half = len(a) // 2
        xa, ya, xt, yt = a[:half, :-1], a[:half, -1], a[half:, :-1], a[half:, -1]
    elif name == "higgs":  # label last; half the rows for the test
        with _open(os.path.join(d, "higgs", "higgs.csv.xz")) as f:
            a = np.loadtxt(f, delimiter=",", skiprows=1)
        a = a[np.random.RandomState(0).permutation(len(a))]
        half = len(a) // 2
        xa, ya, xt, yt = a[:half, :-1], a[:half, -1], a[half:, :-1], a[half:, -1]
    elif name == "w8a":  # one file; half the rows for the test
        xa, ya = _svm(os.path.join(d, "w8a", "w8a.xz"))
        p = np.random.RandomState(0).permutation(len(ya))
        xa, ya = xa[p], ya[p]
        half = len(ya) // 2
        xa, ya, xt, yt = xa[:half], ya[:half], xa[half:], ya[half:]
    else:
        sys.exit(f"unknown case {name}")
    top = max(np.unique(ya))
    ya = np.where(ya == top, 1.0, -1.0)
    yt = np.where(yt == top, 1.0, -1.0)
    _REAL_CACHE[name] = (xa, ya, xt, yt)
    return _REAL_CACHE[name]


# ------------------------------------------------------------- the units
def write_svm(path, x, y):
    with open(path, "w") as f:
        for xi, yi in zip(x, y):
            nz = np.nonzero(xi)[0]
            f.write("%d %s\n" % (yi, " ".join(
                "%d:%.8g" % (j + 1, xi[j]) for j in nz)))


def draw_labels(rng, y, nl):
    """Random, not stratified; again until every class is there."""
    k = len(np.unique(y))
    while True:
        idx = rng.choice(len(y), nl, replace=False)
        if len(np.unique(y[idx])) == k:
            return idx


def digits():
    from sklearn.datasets import load_digits
    x, y = load_digits(return_X_y=True)
    return x.astype(float), y.astype(float)


def libsvm_acc(xl, yl, xs, ys):
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.svm import SVC
    lo, hi = xl.min(0), xl.max(0)
    span = np.where(hi > lo, hi - lo, 1.0)

    def scale(x):
        return np.where(hi > lo, 2 * (x - lo) / span - 1, 0.0)
    a, b = scale(xl), scale(xs)
    fewest = min(int(np.sum(yl == c)) for c in np.unique(yl))
    k = min(5, fewest if len(np.unique(yl)) == 2 else max(2, fewest))
    best, arg = -1.0, (GAMMAS[0], CS[0])
    if k >= 2:
        cv = StratifiedKFold(k, shuffle=True, random_state=0)
        for g in GAMMAS:
            for c in CS:
                s = cross_val_score(SVC(C=c, gamma=g), a, yl, cv=cv).mean()
                if s > best + 1e-12:
                    best, arg = s, (g, c)
    m = SVC(C=arg[1], gamma=arg[0]).fit(a, yl)
    return 100.0 * np.mean(m.predict(b) == ys)


def make_unit(work, case, nl, seed, nu=2000):
    """One draw; nu unlabeled rows of a real set (0: all of them). The
    first 2,000 of a larger draw are the 2,000-row unit's (numpy's choice
    without replacement takes a permutation's head), the labels and the
    test rows the same."""
    name = f"{case}@{nl}.s{seed:02d}"
    out = os.path.join(work, name)
    if os.path.exists(os.path.join(out, "unit.json")):
        return name
    os.makedirs(out, exist_ok=True)
    rng = np.random.RandomState(seed)
    if case in SYNTH or case == "digits":
        x, y = SYNTH[case](rng) if case in SYNTH else digits()
        if case in TRANSDUCTIVE:
            li = draw_labels(rng, y, nl)
            rest = np.setdiff1d(np.arange(len(y)), li)
            xl, yl, xu, xs, ys = x[li], y[li], x[rest], x[rest], y[rest]
        else:  # 200 labeled + 2,000 unlabeled + 5,000 test
            li = draw_labels(rng, y[:2200], nl)
            rest = np.setdiff1d(np.arange(2200), li)
            xl, yl, xu = x[li], y[li], x[rest]
            xs, ys = x[2200:], y[2200:]
    else:
        xa, ya, xt, yt = real(case)
        li = draw_labels(rng, ya, nl)
        others = np.setdiff1d(np.arange(len(ya)), li)
        want = len(others) if nu <= 0 else min(nu, len(others))
        ui = rng.choice(others, want, replace=False)
        ti = np.random.RandomState(12345).choice(len(yt), min(5000, len(yt)),
                                                 replace=False)
        xl, yl, xu, xs, ys = xa[li], ya[li], xa[ui], xt[ti], yt[ti]
    write_svm(os.path.join(out, "labeled.svm"), xl, yl)
    write_svm(os.path.join(out, "unlabeled.svm"), xu, np.zeros(len(xu)))
    write_svm(os.path.join(out, "test.svm"), xs, ys)
    vals, counts = np.unique(yl, return_counts=True)
    major = vals[np.argmax(counts)]  # ties: the smallest label
    meta = {"case": f"{case}@{nl}", "seed": seed, "labeled": int(nl),
            "unlabeled": int(len(xu)), "scored": int(len(ys)),
            "transductive": case in TRANSDUCTIVE,
            "libsvm": libsvm_acc(xl, yl, xs, ys),
            "majority": 100.0 * np.mean(ys == major)}
    with open(os.path.join(out, "unit.json"), "w") as f:
        json.dump(meta, f)
    return name


def cmd_make(args):
    os.makedirs(args.work, exist_ok=True)
    nu = 0 if args.unlabeled == "all" else int(args.unlabeled)
    units = []
    for cs in args.cases.split(","):
        case, _, nl = cs.partition("@")
        for seed in pc.parse_seeds(args.seeds):
            units.append((case, int(nl), seed, nu))
    with cf.ProcessPoolExecutor(args.jobs) as ex:
        for name in ex.map(make_unit, [args.work] * len(units),
                           *zip(*units)):
            print(name, file=sys.stderr)


# ------------------------------------------------------------- running
def accuracy(tool, model, test, tmp):
    r = subprocess.run([tool, "predict", model, test, os.path.join(tmp, "p")],
                       capture_output=True, text=True)
    for line in (r.stdout + r.stderr).splitlines():
        if line.startswith("Accuracy = "):
            return float(line.split()[2].rstrip("%"))
    raise RuntimeError(f"predict {model}: {r.stderr.strip()}")


def run_unit(work, name, tool, extra):
    u = os.path.join(work, name)
    meta = json.load(open(os.path.join(u, "unit.json")))
    test = os.path.join(u, "test.svm")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        def train_and_score(label, files):
            """The default trained on files, its accuracy and its log."""
            model = os.path.join(tmp, label)
            r = subprocess.run([tool, "train", "--threads", "1"] + extra +
                               files + [model],
                               capture_output=True, text=True, env=env)
            if r.returncode:
                raise RuntimeError(f"{name} ({label}): {r.stderr.strip()}")
            return accuracy(tool, model, test, tmp), r.stderr

        labeled = os.path.join(u, "labeled.svm")
        semi, log = train_and_score(
            "semi", ["--unlabeled", os.path.join(u, "unlabeled.svm"), labeled])
        sup, _ = train_and_score("sup", [labeled])
    note = ""
    for line in log.splitlines():
        if line.startswith("safe: "):
            note = line[6:].strip()
    return [meta["case"], str(meta["seed"]), "%.2f" % semi, "%.2f" % sup,
            "%.2f" % meta["libsvm"], "%.2f" % meta["majority"], note]


COLUMNS = ["case", "seed", "semi", "sup", "libsvm", "majority", "note"]


def cmd_run(args):
    names = sorted(n for n in os.listdir(args.work)
                   if os.path.exists(os.path.join(args.work, n, "unit.json")))
    if args.only:
        names = [n for n in names if any(n.startswith(o + ".") or
                                         n.startswith(o + "@")
                                         for o in args.only.split(","))]
    extra = args.extra.split() if args.extra else []
    rows = []
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        futs = [ex.submit(run_unit, args.work, n, args.tool, extra)
                for n in names]
        for n, f in zip(names, futs):
            row = f.result()
            rows.append(row)
            print("\t".join(row[:6]), file=sys.stderr)
    with open(args.results, "w") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for row in rows:
            f.write("\t".join(row) + "\n")


# ------------------------------------------------------------- report
def load(path):
    rows = []
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            rows.append(dict(zip(head, line.rstrip("\n").split("\t"))))
    return rows


def summary(rows):
    by = {}
    for r in rows:
        by.setdefault(r["case"], []).append(r)
    out = []
    for case in sorted(by):
        rs = by[case]
        g = lambda k: np.array([float(r[k]) for r in rs])
        semi, sup, lib, maj = g("semi"), g("sup"), g("libsvm"), g("majority")
        out.append({"case": case, "draws": len(rs), "semi": semi.mean(),
                    "sup": sup.mean(), "libsvm": lib.mean(),
                    "majority": maj.mean(),
                    "worst_vs_libsvm": (semi - lib).min(),
                    "worst_vs_sup": (semi - sup).min(),
                    "semi_gt_libsvm": (semi - lib > 0.5).sum()})
    return out


def print_head(head, fmt, markdown):
    """Prints the table's head (TSV or Markdown); the row format to use."""
    if not markdown:
        print("\t".join(head))
        return fmt
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    return "| " + fmt.replace("\t", " | ") + " |"


def cmd_report(args):
    rows = []
    for p in args.results:
        rows += load(p)
    head = ["case", "draws", "semi", "sup", "libsvm", "majority",
            "semi-libsvm", "worst_vs_libsvm", "worst_vs_sup",
            "draws_ahead_0.5"]
    fmt = "%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%+.2f\t%+.2f\t%+.2f\t%d"
    fmt = print_head(head, fmt, args.markdown)
    for s in summary(rows):
        print(fmt % (
            s["case"], s["draws"], s["semi"], s["sup"], s["libsvm"],
            s["majority"], s["semi"] - s["libsvm"], s["worst_vs_libsvm"],
            s["worst_vs_sup"], s["semi_gt_libsvm"]))


def cmd_compare(args):
    """Paired: every (case, seed) both sets hold, before (A) and after (B)."""
    a = {(r["case"], r["seed"]): r for p in args.before for r in load(p)}
    b = {(r["case"], r["seed"]): r for p in args.after for r in load(p)}
    by = {}
    for key in sorted(set(a) & set(b)):
        by.setdefault(key[0], []).append((a[key], b[key]))
    head = ["case", "draws", "semi_A", "semi_B", "B-A", "changed", "B_worse",
            "libsvm", "B-libsvm", "worst_B_vs_libsvm", "worst_A_vs_libsvm",
            "worst_B_vs_sup_B"]
    fmt = "%s\t%d\t%.2f\t%.2f\t%+.2f\t%d\t%d\t%.2f\t%+.2f\t%+.2f\t%+.2f\t%+.2f"
    fmt = print_head(head, fmt, args.markdown)
    for case in sorted(by):
        pairs = by[case]
        g = lambda side, k: np.array([float(p[side][k]) for p in pairs])
        sa, sb, lib = g(0, "semi"), g(1, "semi"), g(1, "libsvm")
        print(fmt % (case, len(pairs), sa.mean(), sb.mean(),
                     sb.mean() - sa.mean(), (sa != sb).sum(),
                     (sb < sa).sum(), lib.mean(), sb.mean() - lib.mean(),
                     (sb - lib).min(), (sa - lib).min(),
                     (sb - g(1, "sup")).min()))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("work")
    m.add_argument("--cases", required=True)
    m.add_argument("--seeds", default="1-10")
    m.add_argument("--jobs", type=int, default=2)
    m.add_argument("--unlabeled", default="2000",
                   help="unlabeled rows of a real set's unit: N or all")
    r = sub.add_parser("run")
    r.add_argument("work")
    r.add_argument("results")
    r.add_argument("--tool", required=True)
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--only", default="")
    r.add_argument("--extra", default="", help="more train options")
    p = sub.add_parser("report")
    p.add_argument("results", nargs="+")
    p.add_argument("--markdown", action="store_true",
                   help="a Markdown table (docs/results.md's are made so)")
    c = sub.add_parser("compare", help="two builds on the same units")
    c.add_argument("--before", nargs="+", required=True)
    c.add_argument("--after", nargs="+", required=True)
    c.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    {"make": cmd_make, "run": cmd_run, "report": cmd_report,
     "compare": cmd_compare}[args.cmd](args)


if __name__ == "__main__":
    main()
