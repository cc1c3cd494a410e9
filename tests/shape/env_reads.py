#!/usr/bin/python3
"""Fails (exit 1) where the library reads the environment outside its
one reader (issue #32: the environment read once a training, by train.c,
and handed down): getenv and secure_getenv are called only by the tool
(src/cli/) and by parallel/affinity.c's tsgs__omp_env_read and
omp_placed (which the public tsgs_bind_resolve also calls). Prints each
other call with its file, line and function. (Who calls the reader is
not checked: tsgs__threads_resolve reads it for the library's other
entry points.)

Usage: env_reads.py [SRC]   (default: src)"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import csource  # noqa: E402

READERS = {"getenv", "secure_getenv"}
ALLOWED = {("parallel/affinity.c", "tsgs__omp_env_read"),
           ("parallel/affinity.c", "omp_placed")}


def env_reads(src):
    found = []
    for path in csource.paths(src):
        rel = os.path.relpath(path, src)
        if rel.startswith("cli/"):
            continue
        code = csource.read(path)
        toks = code.tokens
        for i, (line, tok) in enumerate(toks[:-1]):
            if tok not in READERS or toks[i + 1][1] != "(":
                continue
            where = [d.name for d in code.definitions
                     if d.kind == "function" and d.first <= line <= d.last]
            fn = where[0] if where else "(file scope)"
            if (rel, fn) not in ALLOWED:
                found.append((rel, line, fn, tok))
    return found


def main(argv):
    src = argv[1] if len(argv) > 1 else "src"
    found = env_reads(src)
    for rel, line, fn, tok in found:
        print(f"{rel}:{line}: {fn} calls {tok}: read the environment once "
              "(tsgs__omp_env_read) and pass it down")
    print(f"environment reads outside the tool and tsgs__omp_env_read: "
          f"{len(found)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
