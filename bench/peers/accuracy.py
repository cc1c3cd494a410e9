#!/usr/bin/python3
"""Accuracy benchmark with the TSGS3VM paper's protocol (its Figure 3), every
method on the same splits.

For each dataset: 200 labeled rows (stratified), the rest of the training
split unlabeled, TRIALS trials (seeds 1..TRIALS: a new labeled subset, and a
new hold-out where the dataset has no test file). The split files are written
once per seed by make_splits.py (z-scored on the training rows) and every
method reads them, through run_peers.py.

Hyper-parameters by 5-fold cross-validation on the seed-1 labeled rows, over
log10 C and log10 sigma in [-3, 3] (7 x 7), then the step size:
- C is on LIBSVM's scale (the weight of the SUM of hinge losses). tsgs3vm's
  solvers weigh the MEAN over the labeled rows (DESIGN.md section 1), so it
  runs with --c-total = n_l * C (its --c is LIBSVM's C since model format 2;
  c below is that total). The step size follows c (eta = max(2, c / 5), the ratio
  the config searches found) in the 7 x 7 grid; then eta in c x {1/50, 1/5, 2}
  and, for the semi-supervised solvers, c-star in {C * n_l / n_u, c}.
- tsg and dsg get their own search; cdsg takes dsg's values and frs tsg's C
  and sigma (the same objectives) and searches only the last step. bs3vm
  (learning rate 1/t, no eta) gets its own 7 x 7 search, then c-prime in
  c x {1/10, 1, 10}; it runs one pass with a budget of --bs3vm-budget
  unlabeled support vectors (its default, 0.2 n_u, takes minutes a fit on
  cod-rna).
- The external peers share one sigma (gamma): the best of an untimed
  svm-train -v 5 over the same 7 x 7 grid on the seed-1 labels; at each seed
  LIBSVM chooses C again by CV (timed), and the scikit-learn methods take the
  best C at that gamma (run_peers.py).
Other options of tsgs3vm (passes, feature budget, block size) come from the
dataset's config in configs/.

Writes bench/results/accuracy/DATASET.tsv (every run, run_peers.py's columns)
and the summary bench/results/accuracy.tsv (mean and standard deviation of
the test error per method), and prints the summary.
"""
import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PY = "/usr/bin/python3"
SHARED = os.environ.get("TSGS_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
D = os.path.join(SHARED, "data")
GRID = [10.0 ** k for k in range(-3, 4)]


def prepared(work, name):
    """Files that need joining or relabelling before make_splits.py reads them."""
    os.makedirs(work, exist_ok=True)
    if name == "susy_lowlevel8_zscore":
        src = os.path.join(D, "susy_lowlevel8_zscore")
        out = {}
        for part, base in (("train", "susy_10Kn_train"), ("test", "susy_100Kn_test")):
            path = os.path.join(work, f"susy8_{part}.csv")
            if not os.path.exists(path):
                lab = subprocess.run(["xz", "-dc", os.path.join(src, base + "_label.csv.xz")],
                                     capture_output=True, text=True, check=True).stdout.split()
                rows = subprocess.run(["xz", "-dc", os.path.join(src, base + ".csv.xz")],
                                      capture_output=True, text=True,
                                      check=True).stdout.splitlines()
                rows = [r for r in rows if r.strip()]
                if len(lab) != len(rows):
                    sys.exit(f"accuracy: {base}: {len(lab)} labels for {len(rows)} rows")
                with open(path + ".tmp", "w") as f:
                    for y, r in zip(lab, rows):
                        f.write(f"{y},{r.strip()}\n")
                os.replace(path + ".tmp", path)
            out[part] = path
        return out["train"], out["test"]
    if name == "coil20":
        path = os.path.join(work, "coil20_binary.csv")
        if not os.path.exists(path):
            rows = subprocess.run(["xz", "-dc", os.path.join(D, "coil20", "COIL20.csv.xz")],
                                  capture_output=True, text=True, check=True).stdout.splitlines()
            with open(path + ".tmp", "w") as f:
                for r in rows:
                    if r.strip():
                        cls, rest = r.strip().split(",", 1)
                        # objects 1-10 against 11-20, as configs/coil20.conf
                        f.write(f"{-1 if float(cls) <= 10 else 1},{rest}\n")
            os.replace(path + ".tmp", path)
        return path, None
    return None, None


def dataset(work, name):
    """name -> (train, test, test_rows, read options for make_splits/run_peers, conf)."""
    csv = lambda lab, skip, hdr: ["--format", "csv", "--label-column", lab,
                                  "--skip-columns", skip, "--header", hdr]
    if name == "cod-rna":
        return (os.path.join(ROOT, "tests/data/real/cod-rna.txt.xz"),
                os.path.join(ROOT, "tests/data/real/cod-rna.t.xz"), 0, [], name)
    if name == "ijcnn1":
        return (os.path.join(D, "ijcnn1/ijcnn1.trn.bz2"), os.path.join(D, "ijcnn1/ijcnn1.tst.bz2"),
                0, [], name)
    if name == "w8a":
        return os.path.join(D, "w8a/w8a.xz"), None, 10000, [], name
    if name == "skin_nonskin":
        return (os.path.join(D, "skin_nonskin/Skin_NonSkin.txt.xz"), None, 50000,
                csv("last", "0", "yes"), name)
    if name == "higgs":
        return (os.path.join(D, "higgs/higgs.csv.xz"), None, 2000, csv("last", "0", "yes"),
                name)
    if name == "susy":
        # make_splits.py counts the label column after the skipped ones
        return (os.path.join(D, "susy/SUSY_test.csv.xz"), None, 2000, csv("1", "1", "yes"),
                name)
    if name == "susy_lowlevel8_zscore":
        tr, te = prepared(work, name)
        return tr, te, 0, csv("1", "0", "no"), name
    if name == "coil20":
        tr, _ = prepared(work, name)
        return tr, None, 288, csv("1", "0", "no"), name
    sys.exit(f"accuracy: unknown dataset {name}")


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"accuracy: {' '.join(map(shlex.quote, cmd))} failed:\n{r.stderr}")
    return r.stdout


def cv_rows(out):
    """tsgs3vm cv output -> [(dict of grid values, accuracy)] in grid order."""
    lines = [l for l in out.splitlines() if l and not l.startswith("#")]
    keys = lines[0].split("\t")[:-2]
    rows = []
    for l in lines[1:]:
        v = l.split("\t")
        rows.append((dict(zip(keys, v[:len(keys)])), float(v[len(keys)])))
    return rows


def best(rows):
    """The most accurate point; ties to the earliest (smaller values first)."""
    top = max(acc for _, acc in rows)
    return next((p, acc) for p, acc in rows if acc == top)


def fmt(x):
    return f"{x:.6g}"


def bs3vm_options(a):
    return ["--passes", "1", "--budget-unlabeled", str(a.bs3vm_budget)]


def search_ours(a, masked, conf, solver, n_l, fixed=None):
    """Our CV protocol; returns (options dict, cv accuracy)."""
    base = [a.tool, "cv", "-q", "--config", conf, "--format", "libsvm", "--scale", "none",
            "--unlabeled-label", "0", "--solver", solver,
            "--threads", str(os.cpu_count())]  # untimed: all cores
    if solver == "bs3vm":
        base += bs3vm_options(a)
    if fixed is None:
        rows = []
        for c_lib in GRID:
            c = n_l * c_lib
            eta = max(2.0, c / 5)
            out = run(base + ["--c-total", fmt(c), "--eta", fmt(eta), "--c-star", "-1",
                              "--grid", "sigma=log:-3:3", masked])
            rows += [(dict(p, **{"c-total": fmt(c)}, eta=fmt(eta)), acc)
                     for p, acc in cv_rows(out)]
        point, _ = best(rows)
        c, sigma = float(point["c-total"]), float(point["sigma"])
    else:
        c, sigma = fixed
    if solver == "bs3vm":
        grid = ["--grid", "c-prime=" + ",".join(fmt(c * f) for f in (0.1, 1, 10))]
        out = run(base + ["--c-total", fmt(c), "--sigma", fmt(sigma)] + grid + [masked])
        point, acc = best(cv_rows(out))
        return {"c-total": fmt(c), "sigma": fmt(sigma), "c-prime": point["c-prime"]}, acc
    etas = sorted({fmt(max(2.0, c * f)) for f in (1 / 50, 1 / 5, 2)}, key=float)
    grid = ["--grid", "eta=" + ",".join(etas)]
    if solver not in ("dsg", "cdsg"):
        grid += ["--grid", "c-star=-1," + fmt(c)]
    out = run(base + ["--c-total", fmt(c), "--sigma", fmt(sigma)] + grid + [masked])
    point, acc = best(cv_rows(out))
    opts = {"c-total": fmt(c), "sigma": fmt(sigma), "eta": point["eta"],
            "c-star": point.get("c-star", "-1")}
    return opts, acc


def search_libsvm(labeled):
    """Untimed svm-train -v 5 over gamma x C in the 7 x 7 grid; best (gamma, C, acc)."""
    rows = []
    for g in GRID:
        for c in GRID:
            out = run(["svm-train", "-q", "-v", "5", "-g", fmt(g), "-c", fmt(c), labeled])
            m = re.search(r"Cross Validation Accuracy = ([0-9.]+)%", out)
            rows.append(((g, c), float(m.group(1)) if m else -1.0))
    (g, c), acc = max(rows, key=lambda r: r[1])  # max keeps the first of ties
    return g, c, acc


def summarise(runs_path):
    """Rows of one dataset's run file -> {method: [(acc, wall_s, status)]} in order."""
    out = {}
    with open(runs_path) as f:
        lines = [l.rstrip("\n") for l in f if not l.startswith("#")]
    cols = lines[0].split("\t")
    for l in lines[1:]:
        r = dict(zip(cols, l.split("\t")))
        out.setdefault(r["method"], []).append(r)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="cod-rna,ijcnn1,w8a,skin_nonskin,higgs,susy,"
                    "susy_lowlevel8_zscore,coil20")
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--solvers", default="tsg,dsg,frs,cdsg,bs3vm")
    ap.add_argument("--peers", default="libsvm_labeled,libsvm_all,rff_sgd,selftrain_svc,"
                    "labelspread_knn")
    ap.add_argument("--knn-unlabeled", type=int, default=5000,
                    help="LabelSpreading(knn): random unlabeled rows it sees (0: all)")
    ap.add_argument("--bs3vm-budget", type=int, default=500)
    ap.add_argument("--timeout", type=int, default=300, help="per process, seconds")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--tool", default=os.path.join(ROOT, "build", "tsgs3vm"))
    ap.add_argument("--tool-commit")
    ap.add_argument("--work", default=os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                   "tsgs3vm-accuracy"))
    ap.add_argument("--results", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--only-summary", action="store_true",
                    help="rewrite accuracy.tsv from the existing run files")
    ap.add_argument("--markdown", action="store_true",
                    help="print accuracy.tsv as the table in docs/stochastic-solvers.md (datasets x methods)")
    a = ap.parse_args()
    if a.markdown:
        return print_markdown(os.path.join(a.results, "accuracy.tsv"))
    names = [n for n in a.datasets.split(",") if n]
    seeds = ",".join(str(s) for s in range(1, a.trials + 1))
    runs_dir = os.path.join(a.results, "accuracy")
    os.makedirs(runs_dir, exist_ok=True)
    commit = a.tool_commit or subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                             capture_output=True, text=True).stdout.strip()

    for name in names if not a.only_summary else []:
        t0 = time.time()
        train, test, test_rows, rd, conf_name = dataset(a.work, name)
        conf = os.path.join(ROOT, "configs", conf_name + ".conf")
        wd = os.path.join(a.work, name)
        s1 = os.path.join(wd, "seed1")
        split = [PY, os.path.join(HERE, "make_splits.py"), train, "--out", s1] + rd
        split += ["--test", test] if test else ["--test-rows", str(test_rows)]
        if not os.path.exists(os.path.join(s1, "split.json")):
            run(split + ["--seed", "1"])
        info = json.load(open(os.path.join(s1, "split.json")))
        n_l = info["n_labeled"]
        masked = os.path.join(s1, "train_masked.svm")
        chosen = {}
        solvers = [s for s in a.solvers.split(",") if s]
        for s in solvers:
            if s in ("tsg", "dsg", "bs3vm"):
                chosen[s] = search_ours(a, masked, conf, s, n_l)
        for s in solvers:
            if s == "cdsg":
                o = chosen.get("dsg") or search_ours(a, masked, conf, "dsg", n_l)
                chosen[s] = search_ours(a, masked, conf, "cdsg", n_l,
                                        (float(o[0]["c-total"]), float(o[0]["sigma"])))
            elif s == "frs":
                o = chosen.get("tsg") or search_ours(a, masked, conf, "tsg", n_l)
                chosen[s] = search_ours(a, masked, conf, "frs", n_l,
                                        (float(o[0]["c-total"]), float(o[0]["sigma"])))
        gamma, c_lib, acc_lib = search_libsvm(os.path.join(s1, "train_labeled.svm"))
        print(f"{name}: CV chose {json.dumps({k: v[0] for k, v in chosen.items()})}; "
              f"peers gamma={fmt(gamma)} (LIBSVM CV {acc_lib}% at C={fmt(c_lib)})", flush=True)

        runs = os.path.join(runs_dir, name + ".tsv")
        common = [PY, os.path.join(HERE, "run_peers.py"), "--dataset", name, "--train", train,
                  "--seeds", seeds, "--keep-splits", "--work", a.work, "--out", runs,
                  "--conf", conf, "--timeout", str(a.timeout), "--tool", a.tool,
                  "--tool-commit", commit, "--threads", str(a.threads),
                  "--sigma", fmt(gamma), "--gamma-factors", "1",
                  "--c-grid", " ".join(fmt(c) for c in GRID),
                  "--ceiling-seeds", "1", "--knn-unlabeled", str(a.knn_unlabeled)] + rd
        common += ["--test", test] if test else ["--test-rows", str(test_rows)]
        # run_peers.py's work folder is WORK/DATASET/seedN, the same as ours
        if a.peers:
            subprocess.run(common + ["--methods", a.peers], check=True)
        for s in solvers:
            o = chosen[s][0]
            extra = ["--format", "libsvm"] + [x for k, v in o.items() for x in (f"--{k}", v)]
            if s == "bs3vm":
                extra += bs3vm_options(a)
            subprocess.run(common + ["--methods", "tsgs3vm", "--solvers", s, "--append",
                                     "--tool-args", " ".join(extra)], check=True)
        # merged with an earlier record, so a rerun of some solvers keeps the rest
        cvj = os.path.join(runs_dir, name + ".cv.json")
        rec = json.load(open(cvj)) if os.path.exists(cvj) else {"tsgs3vm": {}}
        rec["tsgs3vm"].update({k: {"options": v[0], "cv_accuracy": v[1]}
                               for k, v in chosen.items()})
        rec["peers"] = {"gamma": gamma, "libsvm_cv_c": c_lib, "libsvm_cv_accuracy": acc_lib}
        rec.setdefault("seconds", {})[",".join(solvers + ([a.peers] if a.peers else []))] = \
            round(time.time() - t0, 1)
        with open(cvj, "w") as f:
            json.dump(rec, f, indent=1)
            f.write("\n")

    write_summary(a, runs_dir)


def write_summary(a, runs_dir):
    out = os.path.join(a.results, "accuracy.tsv")
    names = [n for n in a.datasets.split(",") if n and
             os.path.exists(os.path.join(runs_dir, n + ".tsv"))]
    lines = []
    with open(os.path.join(runs_dir, names[0] + ".tsv")) as f:
        lines += [l.rstrip("\n") for l in f if l.startswith("# machine") or
                  l.startswith("# compiler") or l.startswith("# commit") or
                  l.startswith("# libsvm") or l.startswith("# python3")]
    lines.append("# protocol: 200 labeled rows (stratified), the rest unlabeled; seeds 1..N "
                 "(new labels, new hold-out where there is no test file); hyper-parameters by "
                 "5-fold CV on the seed-1 labels (bench/peers/accuracy.py); every run in "
                 "accuracy/DATASET.tsv, the CV choices in accuracy/DATASET.cv.json")
    lines.append("# test_error in %: mean and sample standard deviation over the runs that "
                 "finished; wall_s: fit + predict, whole processes, 1 thread each")
    lines.append("dataset\tmethod\truns_ok\truns\ttest_error_mean\ttest_error_sd\t"
                 "wall_s_mean\toptions_seed1")
    for n in names:
        for method, rows in summarise(os.path.join(runs_dir, n + ".tsv")).items():
            errs = [100 - float(r["accuracy"]) for r in rows if r["status"] == "ok"
                    and r["accuracy"]]
            walls = [float(r["wall_s"]) for r in rows if r["status"] == "ok"]
            m = sum(errs) / len(errs) if errs else float("nan")
            sd = math.sqrt(sum((e - m) ** 2 for e in errs) / (len(errs) - 1)) \
                if len(errs) > 1 else 0.0
            w = sum(walls) / len(walls) if walls else float("nan")
            lines.append(f"{n}\t{method}\t{len(errs)}\t{len(rows)}\t{m:.2f}\t{sd:.2f}\t"
                         f"{w:.2f}\t{rows[0]['solver_options']}")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(l for l in lines if not l.startswith("#")))


def print_markdown(path):
    """Test error mean +- sd per dataset (rows) and method (columns)."""
    cells, methods, datasets = {}, [], []
    with open(path) as f:
        for l in f:
            if l.startswith("#") or l.startswith("dataset\t"):
                continue
            v = l.rstrip("\n").split("\t")
            # one column per method, whatever subsample it ran on
            m = re.sub(r"_sub\d+u$", "", v[1]).replace(" (ceiling)", "")
            if m not in methods:
                methods.append(m)
            if v[0] not in datasets:
                datasets.append(v[0])
            cells[v[0], m] = (f"{float(v[4]):.1f} ± {float(v[5]):.1f}" if int(v[3]) > 1
                              else f"{float(v[4]):.1f}") if int(v[2]) else "—"
    short = {"libsvm_labeled": "LIBSVM (200 labels)", "libsvm_all": "LIBSVM all labels (ceiling, 1 run)",
             "sklearn_rff_sgd": "RFF+SGD", "sklearn_selftrain_svc": "SelfTraining(SVC)",
             "sklearn_labelspread_knn": "LabelSpreading(knn)"}
    print("| dataset | " + " | ".join(short.get(m, m.replace("tsgs3vm_", "")) for m in methods) + " |")
    print("|---" * (len(methods) + 1) + "|")
    for d in datasets:
        print(f"| {d} | " + " | ".join(cells.get((d, m), "") for m in methods) + " |")


if __name__ == "__main__":
    main()
