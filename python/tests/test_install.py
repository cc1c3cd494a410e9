"""`pip install ./python` installs the package (python/pyproject.toml,
setuptools, pure Python), which then finds the C library as _native.py
says. Offline: no build isolation, no dependencies fetched (Debian's pip
and setuptools, tests/setup.sh test). `pip install .` from the repository
root (pyproject.toml, setup.py) builds the C library and bundles it."""
import os
import shutil
import subprocess
import sys
import tomllib

import tsgs3vm

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.normpath(os.path.join(HERE, os.pardir))


def test_pyproject_version_is_the_library_version():
    with open(os.path.join(PYTHON_DIR, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    assert project["version"] == tsgs3vm.version()
    assert project["name"] == "tsgs3vm"


def test_pip_install_and_import(tmp_path):
    # a copy, so that the build leaves nothing in the source tree
    src = tmp_path / "python"
    shutil.copytree(PYTHON_DIR, src, ignore=shutil.ignore_patterns(
        "__pycache__", "build", "*.egg-info"))
    target = tmp_path / "site"
    env = dict(os.environ, PIP_NO_INDEX="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_ROOT_USER_ACTION="ignore")
    run = subprocess.run([sys.executable, "-m", "pip", "install", "-q",
                          "--no-build-isolation", "--no-deps", "--target",
                          str(target), str(src)],
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    installed = sorted(p.name for p in (target / "tsgs3vm").glob("*.py"))
    assert installed == ["__init__.py", "_native.py", "classifier.py",
                         "errors.py"]
    assert not (target / "tests").exists()

    # imported from the install alone (not the source tree), over the
    # library TSGS3VM_LIBRARY names, as a user of a pip install would
    script = (
        "import numpy as np, tsgs3vm\n"
        "from sklearn.datasets import make_moons\n"
        "print(tsgs3vm.__file__)\n"
        "print(tsgs3vm.__version__)\n"
        "X, y = make_moons(200, noise=0.1, random_state=0)\n"
        "clf = tsgs3vm.TSGS3VMClassifier(C=10, gamma=2, random_state=0)\n"
        "print(clf.fit(X, y).score(X, y))\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(target)
    assert env.get("TSGS3VM_LIBRARY"), "make test-python sets it"
    run = subprocess.run([sys.executable, "-c", script], cwd=str(tmp_path),
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    path, version, score = run.stdout.split()
    assert path.startswith(str(target))
    assert version == tsgs3vm.version()
    assert float(score) > 0.95

    # without the library anywhere: an ImportError that says what to do
    env["TSGS3VM_LIBRARY"] = str(tmp_path / "missing.so")
    run = subprocess.run([sys.executable, "-c", "import tsgs3vm"],
                         cwd=str(tmp_path), env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode != 0
    assert "TSGS3VM_LIBRARY" in run.stderr and "make install" in run.stderr


ROOT = os.path.normpath(os.path.join(PYTHON_DIR, os.pardir))


def test_root_pyproject_version_is_the_library_version():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    assert project["version"] == tsgs3vm.version()
    assert project["name"] == "tsgs3vm"


def test_pip_install_root_bundles_the_library(tmp_path):
    """`pip install .` from the repository root (issue #30): setup.py runs
    `make shared` and the package carries libtsgs3vm.so.0, so that it
    imports with no TSGS3VM_LIBRARY and no `make install`, and fits and
    predicts scipy.sparse rows with SVC's C and gamma."""
    lib = os.path.join(ROOT, "build", "libtsgs3vm.so.0")
    assert os.path.exists(lib), "make test-python builds it"
    # a copy of what the build reads, with this build's objects and their
    # times (copy2), so that make has nothing left to compile
    src = tmp_path / "tree"
    src.mkdir()
    for name in ("Makefile", "pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(os.path.join(ROOT, name), src / name)
    for name in ("src", "include", "python"):
        shutil.copytree(os.path.join(ROOT, name), src / name,
                        ignore=shutil.ignore_patterns(
                            "__pycache__", "build", "*.egg-info"))
    (src / "tests").mkdir()
    shutil.copy2(os.path.join(ROOT, "tests", "hardening.mk"),
                 src / "tests" / "hardening.mk")
    shutil.copytree(os.path.join(ROOT, "build", "pic"), src / "build" / "pic")
    target = tmp_path / "site"
    env = dict(os.environ, PIP_NO_INDEX="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_ROOT_USER_ACTION="ignore",
               TSGS3VM_MAKE_JOBS="2")
    run = subprocess.run([sys.executable, "-m", "pip", "install", "-q",
                          "--no-build-isolation", "--no-deps", "--target",
                          str(target), str(src)],
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert (target / "tsgs3vm" / "libtsgs3vm.so.0").exists()
    script = (
        "import numpy as np, scipy.sparse as sp, tsgs3vm\n"
        "from sklearn.datasets import make_moons\n"
        "print(tsgs3vm._native.lib._name)\n"
        "X, y = make_moons(200, noise=0.1, random_state=0)\n"
        "clf = tsgs3vm.TSGS3VMClassifier(C=10, gamma=2, random_state=0)\n"
        "clf.fit(sp.csr_matrix(X), y)\n"
        "print((clf.predict(sp.csc_matrix(X)) == y).mean())\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "TSGS3VM_LIBRARY")}
    env["PYTHONPATH"] = str(target)
    run = subprocess.run([sys.executable, "-c", script], cwd=str(tmp_path),
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    path, score = run.stdout.split()
    assert path == str(target / "tsgs3vm" / "libtsgs3vm.so.0")
    assert float(score) > 0.95


def test_make_install_installs_the_package(tmp_path):
    """`make install` (issue #30) installs the Python package too, with no
    pip and no network: python/tsgs3vm copied into PREFIX's
    python3.X/dist-packages (Debian's; site-packages elsewhere) with a
    relative link to PREFIX/lib/libtsgs3vm.so.0, so that under DESTDIR,
    and with no TSGS3VM_LIBRARY, it imports the installed library and
    fits; PYTHON=none installs the rest alone."""
    lib = os.environ.get("TSGS3VM_LIBRARY", "")
    build = os.path.relpath(os.path.dirname(os.path.realpath(lib)), ROOT)
    assert lib and not build.startswith(os.pardir), "make test-python sets it"
    make = ["make", "--no-print-directory", "-C", ROOT, "B=" + build]
    if subprocess.run(make + ["-q", "all"]).returncode != 0:
        import pytest
        pytest.skip("the build is not up to date: make install would build")
    prefix, dest = "/opt/tsgs3vm-test", tmp_path / "dest"
    env = {k: v for k, v in os.environ.items() if k != "MAKEFLAGS"}
    run = subprocess.run(make + ["install", "PREFIX=" + prefix,
                                 "DESTDIR=" + str(dest),
                                 "PYTHON=" + sys.executable],
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    import sysconfig
    site = "python%d.%d/%s" % (sys.version_info[0], sys.version_info[1],
                               "dist-packages" if "posix_local" in
                               sysconfig.get_scheme_names() else
                               "site-packages")
    pkg = dest / prefix.lstrip("/") / "lib" / site / "tsgs3vm"
    assert sorted(p.name for p in pkg.iterdir()) == [
        "__init__.py", "_native.py", "classifier.py", "errors.py",
        "libtsgs3vm.so.0"]
    link = os.readlink(pkg / "libtsgs3vm.so.0")
    assert link == "../../../libtsgs3vm.so.0"  # relative: DESTDIR-proof
    installed = dest / prefix.lstrip("/") / "lib" / "libtsgs3vm.so.0"
    assert os.path.samefile(pkg / "libtsgs3vm.so.0", installed)
    assert (dest / prefix.lstrip("/") / "share/man/man1/tsgs3vm.1").exists()
    assert "PYTHONPATH=" + prefix + "/lib/" + site in run.stdout
    script = (
        "import tsgs3vm\n"
        "from sklearn.datasets import make_moons\n"
        "print(tsgs3vm.__file__, tsgs3vm._native.lib._name)\n"
        "X, y = make_moons(200, noise=0.1, random_state=0)\n"
        "clf = tsgs3vm.TSGS3VMClassifier(C=10, gamma=2, random_state=0)\n"
        "print(clf.fit(X, y).score(X, y))\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "TSGS3VM_LIBRARY")}
    env["PYTHONPATH"] = str(pkg.parent)
    run = subprocess.run([sys.executable, "-c", script], cwd=str(tmp_path),
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    path, loaded, score = run.stdout.split()
    assert path == str(pkg / "__init__.py")
    assert loaded == str(pkg / "libtsgs3vm.so.0")
    assert float(score) > 0.95

    dest2 = tmp_path / "dest2"
    run = subprocess.run(make + ["install", "PREFIX=" + prefix,
                                 "DESTDIR=" + str(dest2), "PYTHON=none"],
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "pip install ./python" in run.stdout
    assert (dest2 / prefix.lstrip("/") / "bin" / "tsgs3vm").exists()
    assert not list(dest2.rglob("*.py"))
