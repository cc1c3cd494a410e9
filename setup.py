"""`pip install .`: the Python package (python/tsgs3vm) with its C library.

build_py runs `make shared` (the library alone, in build/, as `make`
builds it) and copies build/libtsgs3vm.so.0 into the package, where
python/tsgs3vm/_native.py looks first after $TSGS3VM_LIBRARY. The wheel is
platform-specific (it holds a shared object); setuptools' own temporary
folders go under build/python/, so `make clean` removes them too.
"""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
SONAME = "libtsgs3vm.so.0"


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        jobs = os.environ.get("TSGS3VM_MAKE_JOBS", str(os.cpu_count() or 1))
        subprocess.check_call(["make", "-j" + jobs, "shared"], cwd=HERE)
        src = os.path.realpath(os.path.join(HERE, "build", SONAME))
        dst = os.path.join(self.build_lib, "tsgs3vm", SONAME)
        self.mkpath(os.path.dirname(dst))
        shutil.copyfile(src, dst)
        os.chmod(dst, 0o755)


class WithLibrary(Distribution):
    def has_ext_modules(self):
        return True  # a platform wheel: it carries libtsgs3vm.so.0


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=WithLibrary,
      options={"build": {"build_base": "build/python"}})
