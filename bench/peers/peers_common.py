"""What the accuracy drivers and the scikit-learn peers share.

The drivers (defaults_accuracy.py, multiclass_accuracy.py): runs.tsv (one row
per run: case, size, seed, method, accuracy, seconds, note), read back with the
latest run of each (case, seed, method) counting; the per-method statistics of
a case and the Markdown cells of their summaries; the provenance lines of a
results header; seeds from the command line; (case, seed) units run in turn or
by a pool of processes.

The peers (sk_peer.py, mc_peer.py): one process per fit and one per predict;
the fit saves the model with the number of features it was fitted on, the
predict command loads it, reads the test rows with that many features and
writes one predicted label a line.
"""
import argparse
import concurrent.futures
import fcntl
import hashlib
import pickle
import re
import statistics
import subprocess
import sys

# ---------------------------------------------------------------- runs.tsv
COLS = ["case", "size", "seed", "method", "accuracy", "seconds", "note"]


def clean(s):
    return re.sub(r"\s+", " ", str(s)).strip()


def append_row(path, row):
    line = "\t".join(clean(row.get(c, "")) for c in COLS) + "\n"
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.write(line)
        f.flush()
        fcntl.flock(f, fcntl.LOCK_UN)
    print(line.rstrip("\n"), flush=True)


def read_runs(path):
    """Latest row of each (case, seed, method), in first-seen order."""
    rows = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("case\t") or not line.strip():
                continue
            v = line.rstrip("\n").split("\t")
            r = dict(zip(COLS, v + [""] * (len(COLS) - len(v))))
            key = (r["case"], r["seed"], r["method"])
            rows.pop(key, None)       # keep the latest, re-inserted at the end
            rows[key] = r
    return list(rows.values())


def by_case(rows):
    """{case: {method: [rows]}} of read_runs' rows."""
    by = {}
    for r in rows:
        by.setdefault(r["case"], {}).setdefault(r["method"], []).append(r)
    return by


def case_order(names, known):
    """names in the order of the list `known`, the others after them by name."""
    order = {c: i for i, c in enumerate(known)}
    return sorted(names, key=lambda c: (order.get(c, len(order)), c))


def method_stats(by_method, sd_of_one=None):
    """{method: dict(ok, n, mean, sd, sec, size)} of one case: runs with an
    accuracy (ok) of all (n), their mean accuracy and sample sd (sd_of_one
    when one run has an accuracy; None when none has), the median seconds of
    those runs and the size of the last one."""
    stats = {}
    for m, rs in by_method.items():
        accs = [float(r["accuracy"]) for r in rs if r["accuracy"]]
        secs = [float(r["seconds"]) for r in rs if r["accuracy"] and r["seconds"]]
        stats[m] = dict(
            ok=len(accs), n=len(rs),
            mean=statistics.fmean(accs) if accs else None,
            sd=statistics.stdev(accs) if len(accs) > 1 else (sd_of_one if accs else None),
            sec=statistics.median(secs) if secs else None,
            size=rs[-1]["size"])
    return stats


def methods_in(stats, known):
    """The methods of stats: those of the list `known` in its order, then the
    others by name."""
    return [x for x in known if x in stats] + sorted(set(stats) - set(known))


def f2(x):
    return "" if x is None else f"{x:.2f}"


def acc_cell(s):
    """A Markdown cell of method_stats' s (None: no run): mean ± sd over two
    or more runs, the runs that finished when not all did."""
    if not s or s["mean"] is None:
        return "—" if not s else f"failed ({s['n']})"
    c = f"{s['mean']:.1f} ± {s['sd']:.1f}" if s["ok"] > 1 else f"{s['mean']:.1f}"
    return c + (f" ({s['ok']}/{s['n']})" if s["ok"] < s["n"] else "")


def seconds_table(cases, methods):
    """Prints the Markdown table of median seconds: cases is a list of
    (case, method_stats of the case)."""
    print("| case | " + " | ".join(methods) + " |")
    print("|---" * (len(methods) + 1) + "|")
    for case, stats in cases:
        print(f"| {case} | " + " | ".join(
            "" if not stats.get(m) or stats[m]["sec"] is None else f"{stats[m]['sec']:.1f}"
            for m in methods) + " |")


# ------------------------------------------------------------ provenance
def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def commit_of(root):
    """The short HEAD commit of root, marked when src/, include/ or the
    Makefile differ from it in the working tree."""
    dirty = sh(["git", "-C", root, "status", "--porcelain", "--", "src", "include",
                "Makefile"])
    return sh(["git", "-C", root, "rev-parse", "--short", "HEAD"]) + \
        (" (working tree differs in src/include/Makefile)" if dirty else "")


def sha256_16(path):
    """The first 16 hex digits of a file's SHA-256, ? when unreadable."""
    try:
        return hashlib.sha256(open(path, "rb").read()).hexdigest()[:16]
    except OSError:
        return "?"


def peer_versions(py):
    """The peers' versions, one header line: libsvm-tools' Debian package and
    the python3, numpy and scikit-learn of the interpreter py."""
    pyv = sh([py, "-c", "import sys,numpy,sklearn;print(sys.version.split()[0],"
              "numpy.__version__,sklearn.__version__)"])
    return (f"libsvm-tools: {sh(['dpkg-query', '-W', '-f=${Version}', 'libsvm-tools'])}; "
            f"python3 numpy sklearn: {pyv}")


# ------------------------------------------------------------------ runs
def parse_seeds(s):
    """Seeds from "1,2,5" or ranges "1-10" (mixed: "1-3,7")."""
    seeds = []
    for part in s.split(","):
        part = part.strip()
        if "-" in part[1:]:
            lo, hi = part.split("-", 1)
            seeds += list(range(int(lo), int(hi) + 1))
        elif part:
            seeds.append(int(part))
    return seeds


def run_units(run_unit, units, cfg, jobs):
    """run_unit(*unit, cfg) for every unit: in turn, or by `jobs` processes."""
    if jobs <= 1:
        for u in units:
            run_unit(*u, cfg)
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as ex:
            futs = [ex.submit(run_unit, *u, cfg) for u in units]
            for fu in concurrent.futures.as_completed(futs):
                fu.result()


# ------------------------------------------------------ a peer's processes
def load_svm(path, n_features=None):
    """Dense rows and labels of an SVMlight file (n_features: at least so
    many columns)."""
    from sklearn.datasets import load_svmlight_file
    X, y = load_svmlight_file(path, n_features=n_features)
    return X.toarray(), y


def save_model(path, model, d):
    """A fitted model and the features it was fitted on, for predict_rows."""
    with open(path, "wb") as f:
        pickle.dump({"model": model, "d": d}, f)


def predict_rows(a, label, chunk=0):
    """The predict command: the model a.model (save_model's) predicts the
    rows of a.test, chunk rows at a time (0: all at once), and a.out gets
    label(v) of every prediction v."""
    with open(a.model, "rb") as f:
        saved = pickle.load(f)
    X, _ = load_svm(a.test, saved["d"])
    model = saved["model"]
    if not chunk:
        p = model.predict(X)
        with open(a.out, "w") as f:
            f.write("".join(label(v) for v in p))
        return
    with open(a.out, "w") as f:
        for s in range(0, X.shape[0], chunk):
            p = model.predict(X[s:s + chunk])
            f.write("".join(label(v) for v in p))


def peer_main(prog, fit_parser, fit, predict):
    """A peer's command line: `prog predict --model M --test T --out P` runs
    predict(args), anything else fit(fit_parser's args)."""
    if len(sys.argv) > 1 and sys.argv[1] == "predict":
        ap = argparse.ArgumentParser(prog=f"{prog} predict")
        ap.add_argument("--model", required=True)
        ap.add_argument("--test", required=True)
        ap.add_argument("--out", required=True)
        predict(ap.parse_args(sys.argv[2:]))
        return
    fit(fit_parser.parse_args())
