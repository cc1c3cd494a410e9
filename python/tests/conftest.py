"""pytest set-up: the package from this source tree, over the library that
`make` built (build/libtsgs3vm.so.0), and the tool beside it."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))
sys.path.insert(0, os.path.join(ROOT, "python"))


@pytest.fixture(scope="session")
def tool():
    """The command-line tool built from the same tree (make builds it
    before the Python tests run: a missing tool is a failure, not a skip)."""
    path = os.environ.get("TSGS3VM_TOOL") or \
        os.path.join(ROOT, "build", "tsgs3vm")
    assert os.access(path, os.X_OK), "run make first: %s is missing" % path
    return path


@pytest.fixture(scope="session")
def root():
    return ROOT
