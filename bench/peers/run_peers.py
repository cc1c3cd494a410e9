#!/usr/bin/python3
"""Run tsgs3vm and its peers on identical splits; write one TSV of results.

For every seed: bench/peers/make_splits.py writes the split files (untimed), then
every method runs as whole processes (fit, then predict on the test file), each
under /usr/bin/time -f '%e %M' and timeout --kill-after=10 TIMEOUT. Accuracy is
computed here from the predicted labels against test.svm.

Methods (--methods, comma-separated):
  libsvm_labeled   svm-train on the labeled rows, (gamma, C) by 5-fold CV
                   (svm-train -v 5) over sigma x {--gamma-factors} and --c-grid;
                   the CV is part of the timed fit
  libsvm_all       the ceiling: svm-train on every training label, gamma = sigma,
                   C by 5-fold CV over --ceiling-c-grid on a seeded random
                   --ceiling-cv-rows of the training rows (timed with the fit);
                   run for --ceiling-seeds only (its files do not depend on the
                   seed when the test file is given)
  rff_sgd          sklearn RBFSampler(gamma = sigma, n_components) + SGDClassifier(hinge)
  selftrain_svc    sklearn SelfTrainingClassifier(SVC(rbf, gamma = sigma))
  labelspread_rbf  sklearn LabelSpreading(kernel='rbf', gamma = sigma)
  labelspread_knn  sklearn LabelSpreading(kernel='knn', 7 neighbours)
  tsgs3vm          our tool, once per --solvers entry, on train_masked.svm with
                   --unlabeled-label MARKER --scale none (+ -c CONF)
The sklearn methods take C = C_sigma, the best C at gamma = sigma of an untimed
5-fold CV of svm-train on the labeled rows over --c-grid.
"""
import argparse
import hashlib
import json
import os
import platform
import random
import re
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PY = "/usr/bin/python3"


def sh(cmd, **kw):
    try:
        return subprocess.run(cmd, shell=isinstance(cmd, str), capture_output=True,
                              text=True, **kw).stdout.strip()
    except OSError:
        return ""


def read_conf(path):
    conf = {}
    if not path:
        return conf
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if "=" in line:
                k, v = line.split("=", 1)
                conf[k.strip()] = v.strip()
    return conf


def timed(cmd, log, timeout, env=None):
    """Run cmd (list) as a whole process; return (status, wall_s, max_rss_kb)."""
    tfile = log + ".time"
    full = ["/usr/bin/time", "-f", "%e %M", "-o", tfile,
            "timeout", "--kill-after=10", str(timeout)] + cmd
    with open(log, "w") as out:
        out.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        out.flush()
        rc = subprocess.run(full, stdout=out, stderr=subprocess.STDOUT, env=env).returncode
    wall, rss = float("nan"), 0
    try:
        with open(tfile) as f:
            last = [l for l in f.read().splitlines() if l.strip()][-1].split()
        wall, rss = float(last[0]), int(last[1])
    except (OSError, IndexError, ValueError):
        pass
    if rc == 0:
        status = "ok"
    elif rc in (124, 137):
        status = "timeout"
    else:
        status = f"error(rc={rc})"
    return status, wall, rss


def labels_of(path):
    out = []
    with open(path) as f:
        for line in f:
            s = line.split()
            if s and s[0] != "labels":  # svm-predict -b 1 header, not used here
                out.append(float(s[0]))
    return out


def accuracy(pred_path, test_path):
    p, t = labels_of(pred_path), labels_of(test_path)
    if len(p) != len(t):
        return None
    return 100.0 * sum(1 for a, b in zip(p, t) if a == b) / len(t)


def cv_best_c(labeled, gamma, cs):
    best = (-1.0, None)
    for c in cs:
        out = sh(["svm-train", "-q", "-v", "5", "-g", repr(gamma), "-c", c, labeled])
        m = re.search(r"Cross Validation Accuracy = ([0-9.]+)%", out)
        if m and float(m.group(1)) > best[0]:
            best = (float(m.group(1)), c)
    return best[1]


def count_lines(path):
    with open(path) as f:
        return sum(1 for l in f if l.strip())


def header_lines(a, sigma, ncomp):
    cpu = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    nodes = len([d for d in os.listdir("/sys/devices/system/node")
                 if re.fullmatch(r"node\d+", d)]) if os.path.isdir(
        "/sys/devices/system/node") else 1
    cc = os.environ.get("CC", "cc")
    tool_sha = hashlib.sha256(open(a.tool, "rb").read()).hexdigest()[:16]
    pyv = sh([PY, "-c", "import sys,numpy,scipy,sklearn;print(sys.version.split()[0],"
              "numpy.__version__,scipy.__version__,sklearn.__version__)"]).split()
    while len(pyv) < 4:
        pyv.append("?")
    dirty = sh(["git", "-C", ROOT, "status", "--porcelain", "--", "src", "include", "Makefile"])
    commit = a.tool_commit or (sh(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
                               + (" (working tree differs in src/include)" if dirty else ""))
    lines = [
        f"dataset: {a.dataset} train={a.train} test={a.test or (f'seeded stratified hold-out of {a.test_rows} rows' if a.test_rows else f'hold-out {a.test_fraction}')}",
        f"date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}",
        f"machine: {cpu}; cores: {os.cpu_count()}; NUMA nodes: {nodes}; "
        f"kernel: {platform.release()}",
        f"compiler: {sh([cc, '--version']).splitlines()[0] if sh([cc, '--version']) else cc}",
        f"commit: {commit}; tool: {a.tool} sha256:{tool_sha} "
        f"({sh([a.tool, '--version'])})",
        "libsvm-tools: " + sh(["dpkg-query", "-W", "-f=${Version}", "libsvm-tools"]),
        f"python3: {pyv[0]}; numpy: {pyv[1]}; scipy: {pyv[2]}; sklearn: {pyv[3]} "
        f"(python3-sklearn {sh(['dpkg-query', '-W', '-f=${Version}', 'python3-sklearn'])})",
        f"protocol: scale={a.scale} (fitted on all training rows, written to the files); "
        f"sigma=gamma={sigma}; n_labeled={a.labeled} stratified; "
        f"random features={ncomp}; threads=1 for every method "
        f"(OMP/OPENBLAS/MKL_NUM_THREADS=1, tsgs3vm --threads {a.threads}); "
        f"timeout={a.timeout}s per process (fit, predict)",
        "columns: accuracy in % on the test rows; wall_s = fit + predict wall seconds; "
        "max_rss_kb = larger of the two; n_train = training rows the method fit on "
        "(labeled + unlabeled used)",
    ]
    return ["# " + l for l in lines]


COLS = ["method", "solver_options", "n_labeled", "n_train", "n_test", "seed",
        "accuracy", "wall_s", "max_rss_kb", "status", "fit_wall_s", "predict_wall_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", required=True, help="name of the results file")
    ap.add_argument("--train", required=True)
    ap.add_argument("--test")
    ap.add_argument("--test-fraction", type=float, default=0.3)
    ap.add_argument("--test-rows", type=int, default=0,
                    help="without --test: hold out this many rows (overrides --test-fraction)")
    ap.add_argument("--format", default="auto")
    ap.add_argument("--label-column", default="1")
    ap.add_argument("--skip-columns", default="0")
    ap.add_argument("--header", default="auto")
    ap.add_argument("--scale", default="zscore", choices=["zscore", "none"])
    ap.add_argument("--labeled", type=int, default=200)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--methods", default="libsvm_labeled,libsvm_all,rff_sgd,selftrain_svc,"
                    "labelspread_rbf,labelspread_knn,tsgs3vm")
    ap.add_argument("--solvers", default="tsg,dsg,frs,cdsg", help="tsgs3vm --solver values")
    ap.add_argument("--conf", help="tsgs3vm config file (-c); also gives sigma, max-features")
    ap.add_argument("--tool-args", default="", help="extra tsgs3vm train options")
    ap.add_argument("--tag", default="", help="suffix of the tsgs3vm method names (e.g. for --tool-args)")
    ap.add_argument("--sigma", type=float, help="RBF width; default: the conf's sigma")
    ap.add_argument("--n-components", type=int,
                    help="random features of rff_sgd; default: the conf's max-features or 1000")
    ap.add_argument("--gamma-factors", default="1 0.25 4",
                    help="libsvm_labeled gamma grid as multiples of sigma")
    ap.add_argument("--c-grid", default="1 10 100 1000 10000")
    ap.add_argument("--ceiling-c-grid", default="0.1 1 10 100")
    ap.add_argument("--ceiling-cv-rows", type=int, default=5000)
    ap.add_argument("--ceiling-seeds", help="seeds that run libsvm_all (default: all)")
    ap.add_argument("--selftrain-unlabeled", type=int, default=10000,
                    help="unlabeled rows kept for selftrain_svc (0: all)")
    ap.add_argument("--spread-unlabeled", type=int, default=5000,
                    help="unlabeled rows kept for labelspread_rbf (0: all)")
    ap.add_argument("--knn-unlabeled", type=int, default=0,
                    help="unlabeled rows kept for labelspread_knn (0: all)")
    ap.add_argument("--marker", default="0")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--threads", type=int, default=1, help="tsgs3vm --threads")
    ap.add_argument("--tool", default=os.path.join(ROOT, "build", "tsgs3vm"))
    ap.add_argument("--tool-commit", help="commit the tool was built from (for the header)")
    ap.add_argument("--work", default=os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                   "tsgs3vm-peers"))
    ap.add_argument("--out", help="default: bench/results/peers/DATASET.tsv")
    ap.add_argument("--keep-splits", action="store_true",
                    help="reuse a seed's split files when --work already holds them")
    ap.add_argument("--append", action="store_true",
                    help="add rows to an existing results file (no new header)")
    a = ap.parse_args()

    conf = read_conf(a.conf)
    sigma = a.sigma if a.sigma else float(conf.get("sigma", 0) or 0)
    if sigma <= 0:
        sys.exit("run_peers: give --sigma or a --conf with sigma")
    ncomp = a.n_components or int(float(conf.get("max-features", 1000)))
    if ncomp <= 0:
        ncomp = 1000
    out = a.out or os.path.join(ROOT, "bench", "results", "peers", a.dataset + ".tsv")
    seeds = [int(s) for s in a.seeds.split(",") if s]
    ceil_seeds = set(int(s) for s in a.ceiling_seeds.split(",")) if a.ceiling_seeds else set(seeds)
    methods = [m for m in a.methods.split(",") if m]
    solvers = [s for s in a.solvers.split(",") if s]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1")

    os.makedirs(os.path.dirname(out), exist_ok=True)
    if not (a.append and os.path.exists(out)):
        with open(out, "w") as f:
            f.write("\n".join(header_lines(a, sigma, ncomp)) + "\n")
            f.write("\t".join(COLS) + "\n")

    def emit(row, show=True):
        vals = [row.get(c, "") for c in COLS]
        line = "\t".join("" if v is None else (f"{v:.2f}" if isinstance(v, float) else str(v))
                         for v in vals)
        with open(out, "a") as f:
            f.write(line + "\n")
        if show:
            print(line, flush=True)

    for seed in seeds:
        wd = os.path.join(a.work, a.dataset, f"seed{seed}")
        os.makedirs(wd, exist_ok=True)
        split_cmd = [PY, os.path.join(HERE, "make_splits.py"), a.train, "--seed", str(seed),
                     "--labeled", str(a.labeled), "--scale", a.scale, "--marker", a.marker,
                     "--format", a.format, "--label-column", a.label_column,
                     "--skip-columns", a.skip_columns, "--header", a.header,
                     "--test-fraction", str(a.test_fraction),
                     "--test-rows", str(a.test_rows), "--out", wd]
        if a.test:
            split_cmd += ["--test", a.test]
        if not (a.keep_splits and os.path.exists(os.path.join(wd, "split.json"))):
            subprocess.run(split_cmd, check=True)
        info = json.load(open(os.path.join(wd, "split.json")))
        f_all, f_lab, f_msk, f_test = (os.path.join(wd, n) for n in (
            "train_all.svm", "train_labeled.svm", "train_masked.svm", "test.svm"))
        n_l, n_tr, n_te = info["n_labeled"], info["n_train"], info["n_test"]
        c_grid = a.c_grid.split()
        c_sigma = None

        def run_pair(name, opts, fit_cmd, pred_cmd, pred_file, n_lab, n_fit, show=True):
            log = os.path.join(wd, name)
            st, w1, r1 = timed(fit_cmd, log + ".fit.log", a.timeout, env)
            row = dict(method=name, solver_options=opts, n_labeled=n_lab, n_train=n_fit,
                       n_test=n_te, seed=seed, status=st, fit_wall_s=w1, max_rss_kb=r1)
            if st == "ok":
                st2, w2, r2 = timed(pred_cmd, log + ".predict.log", a.timeout, env)
                row.update(predict_wall_s=w2, wall_s=w1 + w2, max_rss_kb=max(r1, r2))
                if st2 == "ok":
                    acc = accuracy(pred_file, f_test)
                    row["accuracy"] = acc
                    row["status"] = "ok" if acc is not None else "error(predictions)"
                else:
                    row["status"] = "predict " + st2
            else:
                row["wall_s"] = w1
            emit(row, show)
            return log

        for m in methods:
            if m in ("rff_sgd", "selftrain_svc", "labelspread_rbf") and c_sigma is None:
                c_sigma = cv_best_c(f_lab, sigma, c_grid)
            if m == "libsvm_labeled":
                gammas = " ".join(f"{sigma * float(x):.6g}" for x in a.gamma_factors.split())
                model, pred = os.path.join(wd, "libsvm_labeled.model"), os.path.join(
                    wd, "libsvm_labeled.pred")
                log = run_pair(m, "", [os.path.join(HERE, "libsvm_grid.sh"), f_lab, f_lab,
                                       model, gammas, a.c_grid],
                               ["svm-predict", "-q", f_test, model, pred], pred, n_l, n_l,
                               show=False)
                # fill in the chosen gamma and C
                best = re.search(r"best gamma=(\S+) c=(\S+) acc=(\S+)",
                                 open(log + ".fit.log").read())
                if best:
                    fix_last_opts(out, f"svm-train -g {best.group(1)} -c {best.group(2)} "
                                  f"(5-fold CV {best.group(3)}% over gamma {{{gammas}}} "
                                  f"x C {{{a.c_grid}}})")
                else:
                    fix_last_opts(out, f"5-fold CV over gamma {{{gammas}}} x C {{{a.c_grid}}}")
            elif m == "libsvm_all":
                if seed not in ceil_seeds:
                    continue
                cvf = os.path.join(wd, "ceiling_cv.svm")
                rows = open(f_all).read().splitlines()
                rnd = random.Random(seed)
                pick = sorted(rnd.sample(range(len(rows)), min(a.ceiling_cv_rows, len(rows))))
                with open(cvf, "w") as f:
                    f.write("\n".join(rows[i] for i in pick) + "\n")
                model, pred = os.path.join(wd, "libsvm_all.model"), os.path.join(
                    wd, "libsvm_all.pred")
                log = run_pair(m + " (ceiling)", "", [os.path.join(HERE, "libsvm_grid.sh"),
                                                      cvf, f_all, model, f"{sigma:.6g}",
                                                      a.ceiling_c_grid],
                               ["svm-predict", "-q", f_test, model, pred], pred, n_tr, n_tr,
                               show=False)
                best = re.search(r"best gamma=(\S+) c=(\S+) acc=(\S+)",
                                 open(log + ".fit.log").read())
                cv_txt = (f"-c {best.group(2)} (5-fold CV {best.group(3)}% on {len(pick)} "
                          f"random training rows over C {{{a.ceiling_c_grid}}})") if best else \
                    f"C by 5-fold CV on {len(pick)} rows over {{{a.ceiling_c_grid}}}"
                fix_last_opts(out, f"svm-train -g {sigma:.6g} {cv_txt}; all labels")
            elif m in ("rff_sgd", "selftrain_svc", "labelspread_rbf", "labelspread_knn"):
                sub = {"rff_sgd": 0, "selftrain_svc": a.selftrain_unlabeled,
                       "labelspread_rbf": a.spread_unlabeled,
                       "labelspread_knn": a.knn_unlabeled}[m]
                n_u_all = n_tr - n_l
                n_u = 0 if m == "rff_sgd" else (min(sub, n_u_all) if sub else n_u_all)
                name = "sklearn_" + m + (f"_sub{n_u}u" if 0 < n_u < n_u_all else "")
                model, pred = os.path.join(wd, name + ".pkl"), os.path.join(wd, name + ".pred")
                fit = [PY, os.path.join(HERE, "sk_peer.py"), m, "--masked", f_msk,
                       "--model", model, "--marker", a.marker, "--gamma", repr(sigma),
                       "--seed", str(seed)]
                if m == "rff_sgd":
                    fit += ["--C", c_sigma, "--n-components", str(ncomp)]
                    opts = (f"RBFSampler(gamma={sigma:g}, n_components={ncomp}) + "
                            f"SGDClassifier(hinge, alpha=1/(C*n_l), C={c_sigma})")
                elif m == "selftrain_svc":
                    fit += ["--C", c_sigma, "--max-unlabeled", str(sub)]
                    opts = (f"SelfTraining(SVC(rbf, gamma={sigma:g}, C={c_sigma}), "
                            f"decision-based, k_best=ceil(n_u/10), max_iter=10)")
                elif m == "labelspread_rbf":
                    fit += ["--max-unlabeled", str(sub)]
                    opts = f"LabelSpreading(rbf, gamma={sigma:g}, alpha=0.2, max_iter=100)"
                else:
                    fit += ["--max-unlabeled", str(sub)]
                    opts = "LabelSpreading(knn, n_neighbors=7, alpha=0.2, max_iter=100)"
                if 0 < n_u < n_u_all:
                    opts += f"; random {n_u} of {n_u_all} unlabeled rows"
                run_pair(name, opts, fit, [PY, os.path.join(HERE, "sk_peer.py"), "predict",
                                           "--model", model, "--test", f_test, "--out", pred],
                         pred, n_l, n_l + n_u)
            elif m == "tsgs3vm":
                for s in solvers:
                    name = "tsgs3vm_" + s + a.tag
                    model, pred = os.path.join(wd, name + ".model"), os.path.join(
                        wd, name + ".pred")
                    opts = ((["--config", a.conf] if a.conf else [])
                            + ["--solver", s, "--scale", "none", "--unlabeled-label", a.marker,
                               "--seed", str(seed), "--threads", str(a.threads)]
                            + shlex.split(a.tool_args))
                    fit = [a.tool, "train", "-q"] + opts + [f_msk, model]
                    pr = [a.tool, "predict", "-q", "--threads", str(a.threads), model,
                          f_test, pred]
                    n_fit = n_l if s in ("dsg", "cdsg") else n_tr
                    shown = " ".join(os.path.relpath(o, ROOT) if o == a.conf else o
                                     for o in opts)
                    run_pair(name, "train " + shown, fit, pr, pred, n_l, n_fit)
            else:
                sys.exit(f"run_peers: unknown method {m}")


def fix_last_opts(out, opts):
    """Write the solver options into the last row of the results file."""
    with open(out) as f:
        lines = f.read().splitlines()
    cols = lines[-1].split("\t")
    cols[1] = opts
    lines[-1] = "\t".join(cols)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(lines[-1], flush=True)


if __name__ == "__main__":
    main()
