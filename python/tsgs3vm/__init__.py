"""tsgs3vm: semi-supervised kernel SVMs trained by triply stochastic
gradients, over the C library libtsgs3vm.

    from tsgs3vm import TSGS3VMClassifier
    clf = TSGS3VMClassifier(random_state=1).fit(X, y)   # y = -1: unlabeled
    clf.predict(X_test)
"""
from ._native import version
from .classifier import TSGS3VMClassifier
from .errors import (TSGSError, TSGSMemoryError, TSGSOSError,
                     TSGSRuntimeError, TSGSValueError)

__version__ = version()
__all__ = ["TSGS3VMClassifier", "TSGSError", "TSGSValueError", "TSGSOSError",
           "TSGSMemoryError", "TSGSRuntimeError", "version", "__version__"]
