"""TSGS3VMClassifier against the C tool, and its own contract: the same
model as `tsgs3vm train` for the same seed, model files both ways, pickling,
GridSearchCV, probabilities, errors, threads, no copy of float32 rows, and
Ctrl-C."""
import ctypes
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs, make_moons
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC

import tsgs3vm
from tsgs3vm import TSGS3VMClassifier, TSGSOSError, TSGSValueError
from tsgs3vm import classifier as classifier_module


def semi_supervised_moons(n=600, labeled=20, seed=0):
    """SYNTHETIC two moons: `labeled` rows keep their class, the rest -1."""
    X, y = make_moons(n, noise=0.1, random_state=seed)
    X = X.astype(np.float32)
    rng = np.random.RandomState(seed)
    keep = np.concatenate([rng.choice(np.flatnonzero(y == c), labeled // 2,
                                      replace=False) for c in (0, 1)])
    y_semi = np.full(n, -1)
    y_semi[keep] = y[keep]
    return X, y, y_semi


def write_libsvm(path, X, y):
    """Rows as LIBSVM text; float32 values printed exactly (%.9g)."""
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write("%d %s\n" % (label, " ".join(
                "%d:%.9g" % (j + 1, v) for j, v in enumerate(row))))


def tool_predictions(tool, model, data, out):
    subprocess.run([tool, "predict", "-q", "--decision-values", "--threads",
                    "1", model, data, out], check=True)
    rows = [line.split() for line in open(out)]
    return (np.array([float(r[0]) for r in rows]),
            np.array([[float(v) for v in r[1:]] for r in rows]))


def test_version_is_the_library_version():
    assert tsgs3vm.__version__ == tsgs3vm.version()
    assert tsgs3vm.version().count(".") == 2


@pytest.mark.parametrize("solver", ["safe", "tsg"])
def test_same_model_as_the_tool(tool, tmp_path, solver):
    """The tool on a file of the same rows, same seed and solver, gives the
    same decision values as the estimator, and each predicts with the
    other's model file."""
    X, _, y = semi_supervised_moons()
    data = str(tmp_path / "moons.svm")
    write_libsvm(data, X, y)
    tool_model = str(tmp_path / "tool.model")
    subprocess.run([tool, "train", "-q", "--unlabeled-label", "-1",
                    "--seed", "7", "--solver", solver, "--bind", "none",
                    data, tool_model], check=True)

    clf = TSGS3VMClassifier(solver=solver, random_state=7).fit(X, y)
    from_tool = TSGS3VMClassifier.load_model(tool_model)
    np.testing.assert_array_equal(from_tool.decision_function(X),
                                  clf.decision_function(X))
    np.testing.assert_array_equal(from_tool.classes_, clf.classes_)

    py_model = str(tmp_path / "py.model")
    clf.save_model(py_model)
    labels, decisions = tool_predictions(tool, py_model, data,
                                         str(tmp_path / "out"))
    np.testing.assert_array_equal(labels, clf.predict(X))
    np.testing.assert_allclose(decisions[:, 0], clf.decision_function(X),
                               rtol=1e-9, atol=1e-12)


def test_multiclass_string_labels_and_the_tool(tool, tmp_path):
    """Three classes named by strings: predictions in those names, one
    one-vs-rest column per class; numeric labels give the tool's model."""
    X, y = make_blobs(240, centers=3, random_state=3)
    X = X.astype(np.float32)
    names = np.array(["ant", "bee", "cat"])[y]
    clf = TSGS3VMClassifier(random_state=2).fit(X, names)
    assert list(clf.classes_) == ["ant", "bee", "cat"]
    assert clf.decision_function(X).shape == (240, 3)
    assert clf.score(X, names) > 0.95

    numeric = TSGS3VMClassifier(random_state=2).fit(X, y + 1)
    np.testing.assert_array_equal(numeric.decision_function(X),
                                  clf.decision_function(X))
    model = str(tmp_path / "m")
    numeric.save_model(model)
    data = str(tmp_path / "blobs.svm")
    write_libsvm(data, X, y + 1)
    labels, scores = tool_predictions(tool, model, data, str(tmp_path / "o"))
    np.testing.assert_array_equal(labels, numeric.predict(X))
    np.testing.assert_allclose(scores, numeric.decision_function(X),
                               rtol=1e-9, atol=1e-12)


def test_unlabeled_rows_are_used():
    """SYNTHETIC moons with 20 labels: the unlabeled rows move the model
    (it differs from the one trained on the 20 labeled rows alone) and it
    classifies at least as well as an SVC on those 20 rows."""
    X, y, y_semi = semi_supervised_moons()
    semi = TSGS3VMClassifier(random_state=1).fit(X, y_semi)
    labeled = y_semi != -1
    alone = TSGS3VMClassifier(random_state=1).fit(X[labeled], y_semi[labeled])
    assert not np.array_equal(semi.decision_function(X),
                              alone.decision_function(X))
    svc = SVC().fit(X[labeled], y[labeled])
    assert semi.score(X, y) >= svc.score(X, y) - 0.01


def test_pickle_round_trip(tmp_path):
    X, y, y_semi = semi_supervised_moons()
    clf = TSGS3VMClassifier(random_state=3, probability=True).fit(X, y_semi)
    copy = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(copy.decision_function(X),
                                  clf.decision_function(X))
    np.testing.assert_array_equal(copy.predict_proba(X), clf.predict_proba(X))
    assert copy.get_params() == clf.get_params()
    # the pickled form holds the model file's text, which the tool reads
    state = clf.__getstate__()
    assert state["_model"].startswith(b"tsgs3vm-")
    unfitted = pickle.loads(pickle.dumps(TSGS3VMClassifier(c=3.0)))
    assert unfitted.c == 3.0 and not hasattr(unfitted, "_model")


def test_grid_search():
    X, y = make_moons(300, noise=0.15, random_state=4)
    grid = GridSearchCV(TSGS3VMClassifier(random_state=0, solver="dsg"),
                        {"sigma": [0.5, 2.0], "c": [10.0, 100.0]}, cv=3)
    grid.fit(X, y)
    assert set(grid.best_params_) == {"sigma", "c"}
    assert grid.best_score_ > 0.85
    assert len(grid.cv_results_["mean_test_score"]) == 4


def test_probabilities():
    """Rows sum to 1, agree with predict where confident, and are reasonably
    calibrated on held-out SYNTHETIC blobs."""
    X, y = make_blobs(1200, centers=[[-2, 0], [2, 0]], cluster_std=1.5,
                      random_state=5)  # Bayes error about 9%
    X = X.astype(np.float32)
    y_semi = np.where(np.arange(1200) < 300, y, -1)
    clf = TSGS3VMClassifier(random_state=1, probability=True).fit(
        X[:900], y_semi[:900])
    proba = clf.predict_proba(X[900:])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    confident = proba.max(axis=1) > 0.9
    np.testing.assert_array_equal(clf.classes_[proba[confident].argmax(1)],
                                  clf.predict(X[900:][confident]))
    # mean predicted probability of class 1 vs its frequency, in 3 bins
    p1 = proba[:, 1]
    for lo, hi in ((0, 0.3), (0.3, 0.7), (0.7, 1.01)):
        sel = (p1 >= lo) & (p1 < hi)
        if sel.sum() >= 20:
            assert abs(p1[sel].mean() - y[900:][sel].mean()) < 0.15
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(X[900:])), proba)
    without = TSGS3VMClassifier(random_state=1).fit(X[:300], y[:300])
    assert not hasattr(without, "predict_proba")


def test_library_errors_are_python_exceptions(tmp_path):
    X, y, y_semi = semi_supervised_moons(200)
    with pytest.raises(TSGSValueError, match="solver") as e:
        TSGS3VMClassifier(solver="nope").fit(X, y_semi)
    assert e.value.status_name == "bad parameter"
    with pytest.raises(ValueError, match="max-features"):
        TSGS3VMClassifier(max_features="many").fit(X, y_semi)
    with pytest.raises(ValueError, match="budget-labeled"):
        TSGS3VMClassifier(extra_params={"budget_labeled": -5}).fit(X, y_semi)
    with pytest.raises(TSGSOSError) as e:
        TSGS3VMClassifier.load_model(str(tmp_path / "missing.model"))
    assert "missing.model" in str(e.value)
    bad = tmp_path / "bad.model"
    bad.write_text("tsgs3vm-model 1\nfeatures-in two\n")
    with pytest.raises(TSGSValueError) as e:
        TSGS3VMClassifier.load_model(str(bad))
    assert e.value.file.endswith("bad.model") and e.value.line >= 1
    clf = TSGS3VMClassifier(random_state=1).fit(X, y_semi)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :1])
    with pytest.raises(ValueError, match="no labeled rows"):
        TSGS3VMClassifier().fit(X, np.full(len(X), -1))
    with pytest.raises(ValueError, match="one class"):
        TSGS3VMClassifier(unlabeled_label=None).fit(X[y == 0], y[y == 0])


def test_minus_one_is_unlabeled_beside_two_classes_else_a_class():
    """-1 marks unlabeled rows beside two classes or more
    (sklearn.semi_supervised's convention); targets of -1 and one other
    value are two classes (SVC's -1/+1), with a warning that names the
    reading; unlabeled_label=None reads them so without one."""
    X, y, y_semi = semi_supervised_moons(300)
    semi = TSGS3VMClassifier(random_state=1).fit(X, y_semi)
    np.testing.assert_array_equal(semi.classes_, [0, 1])
    labeled = y_semi != -1
    alone = TSGS3VMClassifier(random_state=1).fit(X[labeled], y_semi[labeled])
    assert not np.array_equal(semi.decision_function(X),
                              alone.decision_function(X))
    pm = np.where(y == 0, -1, 1)
    with pytest.warns(UserWarning, match="two classes"):
        svc_like = TSGS3VMClassifier(random_state=1).fit(X, pm)
    np.testing.assert_array_equal(svc_like.classes_, [-1, 1])
    assert set(np.unique(svc_like.predict(X))) == {-1, 1}
    assert svc_like.score(X, pm) > 0.9
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain = TSGS3VMClassifier(random_state=1,
                                  unlabeled_label=None).fit(X, pm)
    np.testing.assert_array_equal(plain.decision_function(X),
                                  svc_like.decision_function(X))
    # one labeled class beside -1 rows: the same reading, named
    with pytest.warns(UserWarning, match="-1 and 0"):
        one = TSGS3VMClassifier(random_state=1).fit(
            X, np.where(y_semi == 1, -1, y_semi))
    np.testing.assert_array_equal(one.classes_, [-1, 0])


def test_threads_give_the_same_model():
    """The parallel result equals the serial one, bit for bit."""
    X, y, y_semi = semi_supervised_moons(2000)
    one = TSGS3VMClassifier(solver="tsg", random_state=5, n_jobs=1)
    two = TSGS3VMClassifier(solver="tsg", random_state=5, n_jobs=2)
    d1 = one.fit(X, y_semi).decision_function(X)
    d2 = two.fit(X, y_semi).decision_function(X)
    np.testing.assert_array_equal(d1, d2)


def test_float32_rows_are_not_copied(monkeypatch):
    """float32 C-ordered rows go to the library in place; other layouts are
    converted once."""
    seen = []
    real = classifier_module._dataset

    def spy(X, y=None):
        seen.append(X.ctypes.data)
        return real(X, y)

    monkeypatch.setattr(classifier_module, "_dataset", spy)
    X, _, y_semi = semi_supervised_moons(300)
    X = np.ascontiguousarray(X, dtype=np.float32)
    clf = TSGS3VMClassifier(solver="dsg", random_state=1).fit(X, y_semi)
    clf.predict(X)
    assert seen == [X.ctypes.data, X.ctypes.data]
    seen.clear()
    clf.predict(np.asfortranarray(X))
    assert seen[0] != X.ctypes.data


def test_interrupt_stops_training_cleanly():
    """Ctrl-C during a long fit raises KeyboardInterrupt soon after, and the
    caller's SIGINT handler is back in place."""
    X, _, y_semi = semi_supervised_moons(3000)
    clf = TSGS3VMClassifier(solver="tsg", iterations=10**7, warm_start=0,
                            random_state=1)
    before = signal.getsignal(signal.SIGINT)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        clf.fit(X, y_semi)
    timer.join()
    # 10^7 steps take minutes; the stop comes within a few steps
    assert time.monotonic() - start < 30
    assert signal.getsignal(signal.SIGINT) is before
    assert not hasattr(clf, "classes_")


def test_no_library_symbols_beyond_the_api():
    """The binding calls only tsgs_ functions the shared library exports."""
    lib = tsgs3vm._native.lib
    with pytest.raises(AttributeError):
        lib.tsgs__philox
    assert isinstance(lib.tsgs_version, ctypes._CFuncPtr)


def test_example_script_writes_its_plot(root, tmp_path):
    """python/examples/plot_codrna.py runs on the shipped data and writes a
    PNG (matplotlib from Debian: python3-matplotlib)."""
    pytest.importorskip("matplotlib")
    out = tmp_path / "plot.png"
    env = dict(os.environ, PYTHONPATH=os.path.join(root, "python"))
    run = subprocess.run([sys.executable, os.path.join(
        root, "python", "examples", "plot_codrna.py"), "--quick", str(out)],
        env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "200 labeled" in run.stdout
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_C_and_gamma_are_the_library_c_and_sigma(tool, tmp_path):
    """C=8, gamma=0.5 is c = 8 (per labeled row), sigma=0.5 with no
    scaling, bit for bit, and the tool's `-c 8 -g 0.5` on the same rows;
    c-total = 8 x the labeled rows is the same model."""
    X, _, y = semi_supervised_moons()
    n_labeled = int(np.count_nonzero(y != -1))
    libsvm = TSGS3VMClassifier(C=8, gamma=0.5, random_state=3).fit(X, y)
    ours = TSGS3VMClassifier(c=8.0, sigma=0.5, scale="none",
                             random_state=3).fit(X, y)
    np.testing.assert_array_equal(libsvm.decision_function(X),
                                  ours.decision_function(X))
    total = TSGS3VMClassifier(sigma=0.5, scale="none", random_state=3,
                              extra_params={"c-total": 8.0 * n_labeled})
    np.testing.assert_array_equal(total.fit(X, y).decision_function(X),
                                  libsvm.decision_function(X))
    # an explicit scale stays: gamma then acts on the scaled features
    zscored = TSGS3VMClassifier(C=8, gamma=0.5, scale="zscore",
                                random_state=3).fit(X, y)
    assert not np.array_equal(zscored.decision_function(X),
                              libsvm.decision_function(X))

    data = str(tmp_path / "moons.svm")
    write_libsvm(data, X, y)
    model = str(tmp_path / "tool.model")
    subprocess.run([tool, "train", "-q", "--unlabeled-label", "-1",
                    "--seed", "3", "--bind", "none", "-c", "8", "-g", "0.5",
                    data, model], check=True)
    np.testing.assert_array_equal(
        TSGS3VMClassifier.load_model(model).decision_function(X),
        libsvm.decision_function(X))


def test_C_is_per_labeled_row():
    """C goes to the library as it is, its per-row cost (what LIBSVM's C
    means in a grid search's folds), and the fitted model records it so;
    gamma sets scale none unless a scale is given."""
    X, _, y = semi_supervised_moons(300)
    clf = TSGS3VMClassifier(C=2.5)
    assert ("cost", repr(2.5)) in clf._settings()
    assert ("scale", "none") not in clf._settings()
    assert ("scale", "none") in TSGS3VMClassifier(gamma=1)._settings()
    assert ("scale", "minmax") in \
        TSGS3VMClassifier(gamma=1, scale="minmax")._settings()
    assert ("scale", "none") not in \
        TSGS3VMClassifier(gamma=1, scale="minmax")._settings()
    fitted = TSGS3VMClassifier(C=2.5, gamma=1, solver="dsg", iterations=50,
                               random_state=0).fit(X, y)
    assert b"\ncost 2.5\n" in fitted._model_text()


def _unbalanced(seed=0):
    """SYNTHETIC overlapping classes 0 (80%) and 1 (20%), every row
    labeled."""
    X, y = make_blobs([240, 60], centers=[[0, 0], [1.2, 0]], cluster_std=1.0,
                      random_state=seed)
    return X.astype(np.float32), y


def test_class_weight_moves_predictions_to_the_class():
    """A dict weight on the small class predicts more rows as it;
    "balanced" weighs n / (k * count) as SVC's; weights of 1 are no
    weights (the same decision values); the model file records them."""
    X, y = _unbalanced()
    common = dict(C=1, gamma=0.5, random_state=0, unlabeled_label=None)
    plain = TSGS3VMClassifier(**common).fit(X, y)
    up = TSGS3VMClassifier(class_weight={1: 5}, **common).fit(X, y)
    balanced = TSGS3VMClassifier(class_weight="balanced", **common).fit(X, y)
    ones = TSGS3VMClassifier(class_weight={0: 1, 1: 1}, **common).fit(X, y)
    n_plain = int(np.sum(plain.predict(X) == 1))
    assert int(np.sum(up.predict(X) == 1)) > n_plain + 10
    assert int(np.sum(balanced.predict(X) == 1)) > n_plain + 10
    np.testing.assert_array_equal(ones.decision_function(X),
                                  plain.decision_function(X))
    assert b"\nclass-weight 1:5\n" in up._model_text()
    # balanced: 300 / (2 * 240) and 300 / (2 * 60)
    assert b"\nclass-weight 0:0.625,1:2.5\n" in balanced._model_text()
    assert b"\nclass-weight none\n" in plain._model_text()


def test_class_weight_keys_are_the_classes_of_y():
    """String classes: the dict's keys are y's own values; a weight for a
    class y lacks is unused with a warning; bad weights and kinds are
    refused."""
    X, y = _unbalanced()
    names = np.array(["cat", "dog"])[y]
    common = dict(C=1, gamma=0.5, random_state=0, unlabeled_label=None)
    by_name = TSGS3VMClassifier(class_weight={"dog": 5}, **common)
    by_code = TSGS3VMClassifier(class_weight={1: 5}, **common)
    np.testing.assert_array_equal(
        by_name.fit(X, names).decision_function(X),
        by_code.fit(X, y).decision_function(X))
    with pytest.warns(UserWarning, match="'bird' is no labeled row's class"):
        TSGS3VMClassifier(class_weight={"bird": 2}, **common).fit(X, names)
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"class_weight\['dog'\]"):
            TSGS3VMClassifier(class_weight={"dog": bad},
                              **common).fit(X, names)
    with pytest.raises(ValueError, match="class_weight must be"):
        TSGS3VMClassifier(class_weight="heavy", **common).fit(X, y)


def test_class_weight_with_unlabeled_rows_and_one_vs_rest():
    """Only labeled rows count for "balanced"; three classes train one
    model per class, each with the weights."""
    X, y = make_blobs(300, centers=3, cluster_std=2.0, random_state=1)
    X = X.astype(np.float32)
    y_semi = y.copy()
    y_semi[::3] = -1
    clf = TSGS3VMClassifier(class_weight="balanced", C=1, gamma=0.5,
                            random_state=0).fit(X, y_semi)
    text = clf._model_text()
    counts = np.bincount(y_semi[y_semi >= 0])
    want = ",".join("%r:%r" % (float(c), float(200 / (3 * counts[c])))
                    for c in range(3))
    line = [l for l in text.split(b"\n") if l.startswith(b"class-weight")]
    assert len(line) == 3  # one per class's model
    np.testing.assert_allclose(
        [float(e.split(b":")[1]) for e in line[0].split(b" ")[1].split(b",")],
        [float(e.split(":")[1]) for e in want.split(",")], rtol=1e-15)


def test_C_with_c_or_gamma_with_sigma_is_an_error():
    X, _, y = semi_supervised_moons(200)
    with pytest.raises(ValueError, match=r"C=1.* c=100.*both"):
        TSGS3VMClassifier(C=1, c=100).fit(X, y)
    with pytest.raises(ValueError, match=r"gamma=0.5.* sigma=2.*both"):
        TSGS3VMClassifier(gamma=0.5, sigma=2).fit(X, y)
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="C must be"):
            TSGS3VMClassifier(C=bad).fit(X, y)
    with pytest.raises(TSGSValueError, match="sigma"):
        TSGS3VMClassifier(gamma=-1).fit(X, y)


def test_C_and_gamma_get_set_clone():
    from sklearn.base import clone
    clf = TSGS3VMClassifier(C=4.0, gamma=0.25)
    params = clf.get_params()
    assert params["C"] == 4.0 and params["gamma"] == 0.25
    assert params["c"] is None and params["sigma"] is None
    copy = clone(clf)
    assert copy.C == 4.0 and copy.gamma == 0.25
    copy.set_params(C=16, gamma=None, sigma=2.0)
    assert (copy.C, copy.gamma, copy.sigma) == (16, None, 2.0)
    assert clf.get_params()["gamma"] == 0.25
    assert pickle.loads(pickle.dumps(copy)).get_params() == copy.get_params()


def test_grid_search_over_C_and_gamma():
    X, y = make_moons(300, noise=0.15, random_state=4)
    grid = GridSearchCV(TSGS3VMClassifier(random_state=0, solver="dsg"),
                        {"gamma": [0.5, 2.0], "C": [1.0, 10.0]}, cv=3)
    grid.fit(X, y)
    assert set(grid.best_params_) == {"gamma", "C"}
    assert grid.best_score_ > 0.85


def sparse_blobs(n=400, d=5000, labeled=40, seed=0):
    """SYNTHETIC wide sparse rows: 8 non-zeros each, 6 from a pool of 100
    columns of the row's class and 2 anywhere; the last column is set in
    one row, so a LIBSVM file of them is d wide. (CSR float32, truth, y
    with -1 for unlabeled rows.)"""
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 2, n)
    rows, cols, vals = [], [], []
    for i in range(n):
        own = rng.choice(100, 6, replace=False) + 100 * y[i]
        other = rng.choice(np.arange(200, d - 1), 2, replace=False)
        for j in np.concatenate([own, other]):
            rows.append(i)
            cols.append(j)
            vals.append(rng.uniform(0.5, 2.0))
    rows.append(0)
    cols.append(d - 1)
    vals.append(1.25)
    X = sp.csr_matrix((np.array(vals, dtype=np.float32), (rows, cols)),
                      shape=(n, d))
    y_semi = np.full(n, -1)
    y_semi[:labeled] = y[:labeled]
    return X, y, y_semi


def write_libsvm_sparse(path, X, y):
    """CSR rows as LIBSVM text, their stored entries only (%.9g)."""
    X = X.tocsr()
    with open(path, "w") as f:
        for i, label in enumerate(y):
            lo, hi = X.indptr[i], X.indptr[i + 1]
            f.write("%d%s\n" % (label, "".join(
                " %d:%.9g" % (j + 1, v)
                for j, v in zip(X.indices[lo:hi], X.data[lo:hi]))))


def test_sparse_wide_rows_are_the_tools_model(tool, tmp_path):
    """Wide, mostly-zero scipy.sparse rows train on the library's sparse
    path (maxabs scaling, so not the model of the same rows dense): the
    same model as the tool on a LIBSVM file of those rows, bit for bit,
    and each predicts with the other's model file."""
    X, truth, y = sparse_blobs()
    clf = TSGS3VMClassifier(random_state=5).fit(X, y)
    assert clf.score(X, truth) > 0.9
    data = str(tmp_path / "wide.svm")
    write_libsvm_sparse(data, X, y)
    model = str(tmp_path / "tool.model")
    subprocess.run([tool, "train", "-q", "--unlabeled-label", "-1",
                    "--seed", "5", "--bind", "none", data, model], check=True)
    from_tool = TSGS3VMClassifier.load_model(model)
    np.testing.assert_array_equal(from_tool.decision_function(X),
                                  clf.decision_function(X))
    py_model = str(tmp_path / "py.model")
    clf.save_model(py_model)
    labels, decisions = tool_predictions(tool, py_model, data,
                                         str(tmp_path / "out"))
    np.testing.assert_array_equal(labels, clf.predict(X))
    np.testing.assert_allclose(decisions[:, 0], clf.decision_function(X),
                               rtol=1e-9, atol=1e-12)
    # (the same rows dense train a z-scored model, and take 10 times as
    # long: not run here) the sparse model on the rows dense: the same up to float sums
    np.testing.assert_allclose(clf.decision_function(X.toarray()),
                               clf.decision_function(X), rtol=0, atol=1e-5)


def test_sparse_formats_give_the_same_model():
    """CSR, CSC, COO, 64-bit indices, unsorted and duplicate entries: one
    model; the caller's matrix is left as it was."""
    X, truth, y = sparse_blobs(200, labeled=30, seed=1)
    ref = TSGS3VMClassifier(random_state=2).fit(X, y)
    want = ref.decision_function(X)
    # every row's entries reversed, and each row's first one split in two
    indices, data, indptr = [], [], [0]
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        cols, vals = list(X.indices[lo:hi][::-1]), list(X.data[lo:hi][::-1])
        if cols:
            vals[-1] /= 2  # halves of a float32 add up to it exactly
            cols.append(cols[-1])
            vals.append(vals[-1])
        indices += cols
        data += vals
        indptr.append(len(indices))
    messy = sp.csr_matrix((np.array(data, dtype=np.float32), indices,
                           indptr), shape=X.shape)
    assert not messy.has_canonical_format
    before = messy.indices.copy()
    wide_index = X.copy()
    wide_index.indices = wide_index.indices.astype(np.int64)
    wide_index.indptr = wide_index.indptr.astype(np.int64)
    for M in (X.tocsc(), X.tocoo(), sp.csr_matrix(X, dtype=np.float64),
              wide_index, messy):
        clf = TSGS3VMClassifier(random_state=2).fit(M, y)
        np.testing.assert_array_equal(clf.decision_function(M), want)
    np.testing.assert_array_equal(messy.indices, before)


def test_sparse_narrow_rows_are_the_dense_model():
    """Narrow sparse rows are stored dense (as the tool reads a narrow
    LIBSVM file): the model, its predictions and probabilities are those
    of the same rows given dense."""
    X, y = make_blobs(300, centers=3, n_features=6, random_state=8)
    X[np.abs(X) < 3] = 0
    X = X.astype(np.float32)
    y_semi = np.where(np.arange(300) < 60, y, -1)
    S = sp.csr_matrix(X)
    assert S.nnz < X.size
    sparse = TSGS3VMClassifier(random_state=4, probability=True).fit(S, y_semi)
    dense = TSGS3VMClassifier(random_state=4, probability=True).fit(X, y_semi)
    np.testing.assert_array_equal(sparse.decision_function(S),
                                  dense.decision_function(X))
    np.testing.assert_array_equal(sparse.decision_function(X),
                                  dense.decision_function(S))
    np.testing.assert_array_equal(sparse.predict(S.tocoo()), dense.predict(X))
    np.testing.assert_array_equal(sparse.predict_proba(S.tocsc()),
                                  dense.predict_proba(X))


def test_sparse_errors():
    X, _, y = sparse_blobs(100, labeled=20)
    bad = X.copy()
    bad.data[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        TSGS3VMClassifier().fit(bad, y)
    clf = TSGS3VMClassifier(random_state=1).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :10])
    with pytest.raises(ValueError, match="NaN"):
        clf.predict(bad)


def test_verbose_progress_names_the_class(capfd):
    """One-vs-rest's progress lines say which class they are about."""
    x, y = make_blobs(n_samples=90, centers=3, random_state=0)
    TSGS3VMClassifier(verbose=1, C=1.0, gamma=0.5).fit(x, y)
    err = capfd.readouterr().err
    for c in range(3):
        assert "class %d/3 (label %d): " % (c + 1, c) in err, err
