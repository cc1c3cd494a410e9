"""ctypes declarations of libtsgs3vm's public C API (include/tsgs3vm.h).

Only the calls the estimator needs are declared. The library is found, in
order: $TSGS3VM_LIBRARY, the package's own folder (where `pip install .`
puts it), the build folder of the source tree this package sits in
(build/libtsgs3vm.so.0), then the system's search path (an installed
`make install`).
"""
import ctypes
import ctypes.util
import os

_SONAME = "libtsgs3vm.so.0"

# tsgs_status values, in the header's order.
STATUS_NAMES = (
    "ok", "out of memory", "i/o error", "parse error", "bad parameter",
    "dimension mismatch", "bad data", "bad model format", "unsupported",
    "stopped", "internal error",
)
ERR_NOMEM, ERR_IO, ERR_STOPPED = 1, 2, 9


class Error(ctypes.Structure):
    """tsgs_error."""
    _fields_ = [("code", ctypes.c_int),
                ("file", ctypes.c_char * 256),
                ("line", ctypes.c_long),
                ("message", ctypes.c_char * 512)]


class Progress(ctypes.Structure):
    """tsgs_progress."""
    _fields_ = [("iteration", ctypes.c_long),
                ("iterations", ctypes.c_long),
                ("elapsed_s", ctypes.c_double),
                ("rows_per_s", ctypes.c_double),
                ("features", ctypes.c_long),
                ("monitor_accuracy", ctypes.c_double),
                ("stage", ctypes.c_char_p),
                ("class_index", ctypes.c_long),
                ("classes", ctypes.c_long),
                ("class_label", ctypes.c_double)]


PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(Progress), ctypes.c_void_p)
STOP_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
WARN_FN = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p)


class Hooks(ctypes.Structure):
    """tsgs_train_hooks."""
    _fields_ = [("progress", PROGRESS_FN),
                ("progress_every", ctypes.c_long),
                ("should_stop", STOP_FN),
                ("user", ctypes.c_void_p),
                ("monitor", ctypes.c_void_p),
                ("monitor_every", ctypes.c_long),
                ("warn", WARN_FN)]


def _candidates():
    env = os.environ.get("TSGS3VM_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    bundled = os.path.join(here, _SONAME)
    tree = os.path.join(here, os.pardir, os.pardir, "build", _SONAME)
    found = ctypes.util.find_library("tsgs3vm")
    first = [bundled] if os.path.exists(bundled) else []
    return first + [os.path.normpath(tree), _SONAME] + ([found] if found else [])


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (missing)")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("tsgs3vm: cannot load the C library; install with "
                      "`pip install .` from the repository root (which "
                      "bundles it), or run `make` in the source tree (and "
                      "`make install` for a package installed from "
                      "./python), or set TSGS3VM_LIBRARY to "
                      "build/libtsgs3vm.so.0. Tried: " + "; ".join(tried))


lib = _load()

_P = ctypes.c_void_p
_PE = ctypes.POINTER(Error)
_PF = ctypes.POINTER(ctypes.c_float)
_PD = ctypes.POINTER(ctypes.c_double)
_S = ctypes.c_size_t


def _declare(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)


_declare("tsgs_version", ctypes.c_char_p)
_declare("tsgs_params_new", _P)
_declare("tsgs_params_free", None, _P)
_declare("tsgs_params_set", ctypes.c_int, _P, ctypes.c_char_p,
         ctypes.c_char_p, _PE)
_declare("tsgs_params_check", ctypes.c_int, _P, _PE)
_declare("tsgs_dataset_wrap_dense", ctypes.c_int, _S, _S, _PF, _PD,
         ctypes.POINTER(_P), _PE)
_declare("tsgs_dataset_from_csr", ctypes.c_int, _S, _S, _S,
         ctypes.POINTER(_S), ctypes.POINTER(ctypes.c_uint32), _PF, _PD,
         ctypes.POINTER(_P), _PE)
_declare("tsgs_dataset_free", None, _P)
_declare("tsgs_train", ctypes.c_int, _P, _P, ctypes.POINTER(Hooks),
         ctypes.POINTER(_P), ctypes.POINTER(ctypes.c_int), _PE)
_declare("tsgs_model_free", None, _P)
_declare("tsgs_model_classes", _S, _P, _PD)
_declare("tsgs_model_score_columns", _S, _P)
_declare("tsgs_model_features_in", _S, _P)
_declare("tsgs_model_feature_count", ctypes.c_long, _P)
_declare("tsgs_model_has_probability", ctypes.c_int, _P)
_declare("tsgs_model_note", ctypes.c_char_p, _P)
_declare("tsgs_predict_scores", ctypes.c_int, _P, _P, ctypes.c_int, _PD, _PE)
_declare("tsgs_predict_proba", ctypes.c_int, _P, _P, ctypes.c_int, _PD, _PE)
_declare("tsgs_model_save", ctypes.c_int, _P, ctypes.c_char_p, _PE)
_declare("tsgs_model_load", ctypes.c_int, ctypes.c_char_p,
         ctypes.POINTER(_P), _PE)


def version():
    """The C library's version at run time."""
    return lib.tsgs_version().decode()
