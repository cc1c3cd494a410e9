"""TSGS3VMClassifier: the scikit-learn estimator over libtsgs3vm.

Semi-supervised as scikit-learn's sklearn.semi_supervised: rows whose target
is `unlabeled_label` (-1 by default) are unlabeled. Parameters carry the
command-line tool's names (`--max-features` is `max_features`); None leaves
the library's default, so that Python and `tsgs3vm train` agree.
"""
import ctypes
import os
import signal
import sys
import tempfile
import threading
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import _native
from .errors import check

# Parameters passed to the library under the tool's key ("_" for "-").
TOOL_PARAMS = (
    "solver", "kernel", "sigma", "c", "c_star", "uloss", "ramp_s",
    "feature_map", "directions", "step", "eta", "theta", "t0",
    "batch_labeled", "batch_unlabeled", "iterations", "passes",
    "block_size", "max_features", "balance", "balance_ratio", "anneal",
    "scale", "warm_start", "unlabeled_sample", "bind",
)


def _text(value):
    """A parameter value as the library's strict parser reads it."""
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return str(value)


class _Handle:
    """Owns one C object and frees it with the matching call."""

    def __init__(self, pointer, free):
        self.pointer, self._free = pointer, free

    def __del__(self):
        if self.pointer:
            self._free(self.pointer)
            self.pointer = None


def _dataset(X, y=None):
    """A dataset over X's rows (float32, C order: no copy) and labels y
    (float64, NaN = unlabeled). X must outlive it."""
    err = _native.Error()
    out = ctypes.c_void_p()
    yp = None if y is None else y.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    st = _native.lib.tsgs_dataset_wrap_dense(
        X.shape[0], X.shape[1],
        X.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), yp,
        ctypes.byref(out), ctypes.byref(err))
    check(st, err)
    return _Handle(out.value, _native.lib.tsgs_dataset_free)


def _csr_dataset(X, y=None):
    """A dataset copied from scipy.sparse rows X (any format; float32 CSR
    with sorted, summed indices is used as it is), labels y as _dataset.
    The library stores them as it would the same rows of a LIBSVM file."""
    X = X.tocsr()
    if not X.has_canonical_format:
        X = X.copy()  # sum_duplicates sorts in place: not the caller's
        X.sum_duplicates()
    n, d = X.shape
    nnz = int(X.indptr[-1])
    if d > 2**32:
        raise ValueError("sparse X has %d columns; the library's sparse "
                         "indices are 32-bit" % d)
    indptr = np.ascontiguousarray(X.indptr, dtype=np.uintp)
    indices = np.ascontiguousarray(X.indices[:nnz], dtype=np.uint32)
    values = np.ascontiguousarray(X.data[:nnz], dtype=np.float32)
    err = _native.Error()
    out = ctypes.c_void_p()
    yp = None if y is None else y.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    st = _native.lib.tsgs_dataset_from_csr(
        n, d, nnz, indptr.ctypes.data_as(ctypes.POINTER(ctypes.c_size_t)),
        indices.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32)),
        values.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), yp,
        ctypes.byref(out), ctypes.byref(err))
    check(st, err)
    return _Handle(out.value, _native.lib.tsgs_dataset_free)


def _rows(X, y=None):
    """The dataset of X's rows, dense or scipy.sparse."""
    return _csr_dataset(X, y) if sp.issparse(X) else _dataset(X, y)


class _Interrupt:
    """Ctrl-C during training stops the library cleanly (its should_stop
    hook), then raises KeyboardInterrupt in Python. Only the main thread
    can take signals; elsewhere training runs to its end."""

    def __init__(self):
        self.requested = False
        self._previous = None

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            try:
                self._previous = signal.signal(signal.SIGINT, self._on_sigint)
            except ValueError:  # e.g. an embedded interpreter
                self._previous = None
        return self

    def _on_sigint(self, signum, frame):
        self.requested = True

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        return False


class TSGS3VMClassifier(ClassifierMixin, BaseEstimator):
    """Semi-supervised kernel SVM trained by triply stochastic gradients.

    fit(X, y) takes every row: those whose y is `unlabeled_label` (-1, as in
    sklearn.semi_supervised) are unlabeled, the others labeled. Two classes
    train one model; more train one-vs-rest. Targets of exactly two values,
    one of them `unlabeled_label` (SVC's and LIBSVM's -1/+1 labels), are two
    classes: read as unlabeled rows, they would leave one class, which no
    classifier can train on.

    X may be dense (float32 C-ordered rows are used in place) or
    scipy.sparse (any format; copied as float32 CSR). The library keeps
    sparse rows sparse as it does a LIBSVM file of them: when wide (4096
    features or more) and mostly zeros, training works on the non-zeros
    and scales by max |x| per feature (any scale but "none" means maxabs
    there, keeping zeros zero), giving the model `tsgs3vm train` gives on
    that file; narrower ones are stored dense and give the model of the
    same rows dense.

    scikit-learn's (and LIBSVM's) names, as the tool's -c and -g:

    C : float > 0, the weight of each labeled row's hinge loss (SVC's C,
        the tool's -c and --cost): it means the same whatever the number
        of labeled rows (a grid search's folds included). Not together
        with c, its other name.
    gamma : float > 0, the RBF kernel exp(-gamma |x - x'|^2) on X as given:
        it also sets scale="none" unless scale is given (as the tool's -g,
        so the kernel is SVC's on the same features). Not together with
        sigma. TSGS3VMClassifier(C=8, gamma=0.5) is `tsgs3vm train -c 8
        -g 0.5`, and the same model as c=8, sigma=0.5, scale="none".

    Parameters named as the tool's options (see `tsgs3vm train --help` for
    each meaning and default); None keeps the library's default:
    solver, kernel, sigma (the kernel's gamma, on the features after
    `scale`), c (C per labeled row, as C; before model format 2 it was C
    times the labeled rows: that total is extra_params={"c-total": ...}),
    c_star, uloss, ramp_s,
    feature_map, directions, step, eta, theta, t0, batch_labeled,
    batch_unlabeled, iterations, passes, block_size, max_features, balance,
    balance_ratio, anneal, scale, warm_start, unlabeled_sample, bind.

    class_weight : None, dict or "balanced" (SVC's): a dict maps a class
        (as in y) to a weight > 0 that multiplies C for its labeled rows
        (the tool's -wLABEL WEIGHT; classes not listed weigh 1, a key that
        is no labeled row's class is unused, with a warning); "balanced"
        weighs each class n_labeled / (n_classes * its labeled rows).
        One-vs-rest: each row its own class's weight in every class's
        problem.
    probability : bool, fit Platt probability outputs (predict_proba).
    unlabeled_label : the target value that marks unlabeled rows (-1:
        y = [-1, 0, 1, -1] has two unlabeled rows and the classes 0 and 1),
        unless y holds it and one other value only: then both are classes
        (y = [-1, 1, 1, -1]: the classes -1 and 1, as SVC reads them, with
        a UserWarning). None: every row is labeled.
    random_state : int (the tool's --seed, so that the same int gives the
        tool's model), RandomState or None.
    n_jobs : threads; None: the library's default (OMP_NUM_THREADS, else one
        per core); -1: one per core; -2: all but one, and so on.
    bind : thread pinning; "none" by default here, as a library inside
        another program (joblib workers side by side) should not pin.
    extra_params : dict of any other tool key (as `tsgs3vm train --KEY`)
        to its value, e.g. {"budget-labeled": 50}.
    verbose : progress on stderr every `verbose` steps (0: none).
    """

    def __init__(self, *, C=None, gamma=None, solver=None, kernel=None,
                 sigma=None, c=None,
                 c_star=None, uloss=None, ramp_s=None, feature_map=None,
                 directions=None, step=None, eta=None, theta=None, t0=None,
                 batch_labeled=None, batch_unlabeled=None, iterations=None,
                 passes=None, block_size=None, max_features=None,
                 balance=None, balance_ratio=None, anneal=None, scale=None,
                 warm_start=None, unlabeled_sample=None, bind="none",
                 class_weight=None,
                 probability=False, unlabeled_label=-1, random_state=None,
                 n_jobs=None, extra_params=None, verbose=0):
        self.C = C
        self.gamma = gamma
        self.solver = solver
        self.kernel = kernel
        self.sigma = sigma
        self.c = c
        self.c_star = c_star
        self.uloss = uloss
        self.ramp_s = ramp_s
        self.feature_map = feature_map
        self.directions = directions
        self.step = step
        self.eta = eta
        self.theta = theta
        self.t0 = t0
        self.batch_labeled = batch_labeled
        self.batch_unlabeled = batch_unlabeled
        self.iterations = iterations
        self.passes = passes
        self.block_size = block_size
        self.max_features = max_features
        self.balance = balance
        self.balance_ratio = balance_ratio
        self.anneal = anneal
        self.scale = scale
        self.warm_start = warm_start
        self.unlabeled_sample = unlabeled_sample
        self.bind = bind
        self.class_weight = class_weight
        self.probability = probability
        self.unlabeled_label = unlabeled_label
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.extra_params = extra_params
        self.verbose = verbose

    # ------------------------------------------------------------ settings
    def _threads(self):
        """n_jobs as the library's thread count (0: its default)."""
        if self.n_jobs is None or self.n_jobs == -1:
            return 0
        n = int(self.n_jobs)
        if n == 0:
            raise ValueError("n_jobs == 0 has no meaning; use None, -1 or "
                             "a positive count")
        return n if n > 0 else max(1, (os.cpu_count() or 1) + 1 + n)

    def _seed(self):
        if isinstance(self.random_state, (int, np.integer)) and \
                not isinstance(self.random_state, bool):
            if self.random_state < 0:
                raise ValueError("random_state must be >= 0, got %d"
                                 % self.random_state)
            return int(self.random_state)
        rng = check_random_state(self.random_state)
        return int(rng.randint(0, 2**31 - 1))

    def _libsvm_names(self):
        """C and gamma as the library's (tool key, text) pairs, as the
        tool maps its -c and -g (src/cli/options.c)."""
        pairs = []
        if self.C is not None:
            if self.c is not None:
                raise ValueError(
                    "C=%r and c=%r are both given: both are the weight per "
                    "labeled row (SVC's C, the tool's -c); give one"
                    % (self.C, self.c))
            C = float(self.C)
            if not (0.0 < C < np.inf):
                raise ValueError("C must be a positive finite number, got %r"
                                 % (self.C,))
            pairs.append(("cost", _text(C)))
        if self.gamma is not None:
            if self.sigma is not None:
                raise ValueError(
                    "gamma=%r and sigma=%r are both given: both are the "
                    "kernel's gamma (gamma on X as given, sigma after "
                    "`scale`); give one" % (self.gamma, self.sigma))
            pairs.append(("sigma", _text(self.gamma)))
            if self.scale is None:
                # SVC's kernel on the user's own features, as the tool's -g
                pairs.append(("scale", "none"))
        return pairs

    def _settings(self):
        """(tool key, text) pairs for every parameter that is set."""
        pairs = self._libsvm_names()
        for name in TOOL_PARAMS:
            value = getattr(self, name)
            if value is not None:
                pairs.append((name.replace("_", "-"), _text(value)))
        pairs.append(("probability", _text(bool(self.probability))))
        pairs.append(("seed", str(self._seed())))
        pairs.append(("threads", str(self._threads())))
        for key, value in (self.extra_params or {}).items():
            pairs.append((str(key).replace("_", "-"), _text(value)))
        return pairs

    def _class_weights(self, codes, classes):
        """class_weight as the library's "class-weight" text over the
        labels fit hands it (codes: NaN for unlabeled rows), or None."""
        cw = self.class_weight
        if cw is None:
            return None
        labeled = codes[~np.isnan(codes)]
        values, counts = np.unique(labeled, return_counts=True)
        if isinstance(cw, str) and cw == "balanced":
            weights = labeled.shape[0] / (values.shape[0] * counts)
            pairs = zip(values, weights)
        elif isinstance(cw, dict):
            pairs = []
            for key, weight in cw.items():
                found = [i for i, c in enumerate(classes) if c == key]
                if not found:
                    warnings.warn("class_weight: %r is no labeled row's "
                                  "class; its weight is unused" % (key,),
                                  UserWarning)
                    continue
                weight = float(weight)
                if not (0.0 < weight < np.inf):
                    raise ValueError("class_weight[%r] must be a positive "
                                     "finite number, got %r" % (key, weight))
                pairs.append((values[found[0]], weight))
        else:
            raise ValueError("class_weight must be None, a dict or "
                             "\"balanced\", got %r" % (cw,))
        text = ",".join("%r:%r" % (float(v), float(w)) for v, w in pairs)
        return text or None

    def _params(self, class_weights=None):
        p = _native.lib.tsgs_params_new()
        if not p:
            raise MemoryError("tsgs_params_new: out of memory")
        handle = _Handle(p, _native.lib.tsgs_params_free)
        err = _native.Error()
        settings = self._settings()
        if class_weights is not None:
            settings.append(("class-weight", class_weights))
        for key, text in settings:
            check(_native.lib.tsgs_params_set(p, key.encode(), text.encode(),
                                              ctypes.byref(err)), err)
        check(_native.lib.tsgs_params_check(p, ctypes.byref(err)), err)
        return handle

    # ----------------------------------------------------------------- fit
    def _unlabeled_mask(self, y):
        """The rows whose target is unlabeled_label, none where y holds it
        and one other value only (two classes, as SVC reads -1/+1)."""
        none = np.zeros(y.shape[0], dtype=bool)
        if self.unlabeled_label is None:
            return none
        if y.dtype.kind in "iufb":
            if not isinstance(self.unlabeled_label, (int, float, np.number)):
                return none
            mask = y == self.unlabeled_label
        else:
            mask = np.array([v == self.unlabeled_label for v in y],
                            dtype=bool)
        others = y[~mask]
        if mask.any() and others.size and (others == others[0]).all():
            warnings.warn(
                "y holds two values, %r and %r, and %r is unlabeled_label: "
                "read as two classes (as SVC reads them), since one class "
                "is left otherwise; unlabeled_label marks unlabeled rows "
                "beside two classes or more. unlabeled_label=None: every "
                "row labeled, without this warning"
                % (self.unlabeled_label, others[0], self.unlabeled_label),
                UserWarning)
            return none
        return mask

    def _encode(self, y, unlabeled):
        """The labels handed to the library: numeric classes as they are
        (so a saved model predicts them in the tool), others as their
        index in classes_; NaN for unlabeled rows."""
        labeled = y[~unlabeled]
        check_classification_targets(labeled if labeled.size else y)
        if labeled.size == 0:
            raise ValueError("no labeled rows: every target is the "
                             "unlabeled_label %r" % (self.unlabeled_label,))
        classes = np.unique(labeled)
        if classes.shape[0] < 2:
            hint = ""
            if unlabeled.any():
                hint = ("; rows whose target is %r are unlabeled: if %r is a "
                        "class, give unlabeled rows another value and set "
                        "unlabeled_label to it (None: every row labeled)"
                        % ((self.unlabeled_label,) * 2))
            raise ValueError(
                "only one class is present among the labeled rows (%r): a "
                "classifier needs 2 or more classes%s" % (classes[0], hint))
        codes = np.full(y.shape[0], np.nan)
        if y.dtype.kind in "iuf":
            codes[~unlabeled] = labeled.astype(np.float64)
        else:
            codes[~unlabeled] = np.searchsorted(classes, labeled)
        return codes, classes

    def fit(self, X, y):
        """Trains on every row of X (dense or scipy.sparse); y =
        unlabeled_label marks unlabeled rows. Returns self."""
        X, y = self._validate_data(X, y, dtype=np.float32, order="C",
                                   accept_sparse="csr")
        unlabeled = self._unlabeled_mask(y)
        codes, classes = self._encode(y, unlabeled)
        params = self._params(self._class_weights(codes, classes))
        data = _rows(X, codes)
        model = self._train(data, params)
        self._model = _Handle(model, _native.lib.tsgs_model_free)
        self.classes_ = classes
        note = _native.lib.tsgs_model_note(model)
        self.note_ = note.decode() if note else ""
        self.n_features_ = int(_native.lib.tsgs_model_feature_count(model))
        return self

    def _train(self, data, params):
        messages = []
        progress_every = int(self.verbose) if self.verbose else 0

        def on_progress(pr, user):
            p = pr.contents
            what = ("stage " + p.stage.decode()) if p.stage else "step"
            cls = ("class %d/%d (label %g): " % (p.class_index, p.classes,
                                                  p.class_label)
                   if p.classes else "")
            print("tsgs3vm: %s%s %d/%d, %.1f s, %d features"
                  % (cls, what, p.iteration, p.iterations, p.elapsed_s,
                     p.features),
                  file=sys.stderr)

        def on_warn(message, user):
            messages.append(message.decode("utf-8", "replace"))

        with _Interrupt() as interrupt:
            hooks = _native.Hooks(
                should_stop=_native.STOP_FN(lambda user: interrupt.requested),
                warn=_native.WARN_FN(on_warn))
            if progress_every:  # else NULL: the library reports nothing
                hooks.progress = _native.PROGRESS_FN(on_progress)
                hooks.progress_every = progress_every
            out = ctypes.c_void_p()
            stopped = ctypes.c_int(0)
            err = _native.Error()
            st = _native.lib.tsgs_train(data.pointer, params.pointer,
                                        ctypes.byref(hooks), ctypes.byref(out),
                                        ctypes.byref(stopped),
                                        ctypes.byref(err))
        for m in messages:
            warnings.warn(m, RuntimeWarning)
        if interrupt.requested:
            if out.value:
                _native.lib.tsgs_model_free(out.value)
            raise KeyboardInterrupt("tsgs3vm: training interrupted")
        check(st, err)
        return out.value

    # ------------------------------------------------------------- predict
    def _per_row(self, X, call, columns):
        """columns values per row of X from a library call taking (model,
        rows, threads, out, err): the scores or the probabilities."""
        check_is_fitted(self)
        X = self._validate_data(X, dtype=np.float32, order="C",
                                accept_sparse="csr", reset=False)
        out = np.empty((X.shape[0], columns), dtype=np.float64)
        if X.shape[0]:
            err = _native.Error()
            data = _rows(X)
            check(call(self._model.pointer, data.pointer, self._threads(),
                       out.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                       ctypes.byref(err)), err)
        return out

    def _scores(self, X):
        check_is_fitted(self)
        columns = _native.lib.tsgs_model_score_columns(self._model.pointer)
        return self._per_row(X, _native.lib.tsgs_predict_scores, columns)

    def decision_function(self, X):
        """Decision values: shape (n,) for two classes (positive: classes_[1]),
        (n, n_classes) one-vs-rest values for more."""
        scores = self._scores(X)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X):
        """The class of each row, in y's own values."""
        scores = self._scores(X)
        if scores.shape[1] == 1:
            index = (scores[:, 0] > 0).astype(np.intp)
        else:
            index = np.argmax(scores, axis=1)  # ties: the first, as the tool
        return self.classes_[index]

    def _has_probability(self):
        check_is_fitted(self)
        return bool(_native.lib.tsgs_model_has_probability(self._model.pointer))

    @available_if(_has_probability)
    def predict_proba(self, X):
        """Class probabilities (n, n_classes) in classes_ order; the model
        must have been fitted with probability=True."""
        return self._per_row(X, _native.lib.tsgs_predict_proba,
                             self.classes_.shape[0])

    @available_if(_has_probability)
    def predict_log_proba(self, X):
        """Logarithms of predict_proba."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    # --------------------------------------------------------- model files
    def save_model(self, path):
        """Writes the model file `tsgs3vm predict` reads."""
        check_is_fitted(self)
        err = _native.Error()
        check(_native.lib.tsgs_model_save(self._model.pointer,
                                          os.fsencode(path),
                                          ctypes.byref(err)), err)

    def _load_model(self, path):
        err = _native.Error()
        out = ctypes.c_void_p()
        check(_native.lib.tsgs_model_load(os.fsencode(path), ctypes.byref(out),
                                          ctypes.byref(err)), err)
        return _Handle(out.value, _native.lib.tsgs_model_free)

    @classmethod
    def load_model(cls, path):
        """An estimator over a model file written by `tsgs3vm train` (or
        save_model). Its classes are the file's label values."""
        est = cls()
        est._model = est._load_model(path)
        model = est._model.pointer
        k = _native.lib.tsgs_model_classes(model, None)
        labels = np.empty(k, dtype=np.float64)
        _native.lib.tsgs_model_classes(
            model, labels.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
        integral = np.all(labels == np.round(labels))
        est.classes_ = labels.astype(np.int64) if integral else labels
        est.n_features_in_ = int(_native.lib.tsgs_model_features_in(model))
        est.n_features_ = int(_native.lib.tsgs_model_feature_count(model))
        est.note_ = ""
        return est

    def _model_text(self):
        fd, path = tempfile.mkstemp(prefix="tsgs3vm-", suffix=".model")
        os.close(fd)
        try:
            self.save_model(path)
            with open(path, "rb") as f:
                return f.read()
        finally:
            os.unlink(path)

    # ------------------------------------------------------------- pickle
    def __getstate__(self):
        """Pickled through the model file's text: the C model itself is not
        picklable, its file is portable."""
        state = super().__getstate__()
        state = dict(state)
        if "_model" in state:
            state["_model"] = self._model_text()
        return state

    def __setstate__(self, state):
        text = state.pop("_model", None)
        super().__setstate__(state)
        if text is not None:
            fd, path = tempfile.mkstemp(prefix="tsgs3vm-", suffix=".model")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(text)
                self._model = self._load_model(path)
            finally:
                os.unlink(path)
