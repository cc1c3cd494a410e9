#!/usr/bin/python3
"""Lists the functions of src/**/*.c over 80 lines (issue #32), from the
line their declaration starts on to their closing brace, longest first,
and fails (exit 1) when one of them is I/O or tool code: the tool
(src/cli/), the data readers (src/data/reader.c, compress.c, npy.c) and
the model file's reader and writer (src/model/model_io.c); or when
another is not among the ones still to split (STILL_LONG: a new long
function fails; one split since is named, to take out of the list).

Usage: long_functions.py [SRC]   (default: src)"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import csource  # noqa: E402

MAX_LINES = 80
IO_AND_TOOL = ("cli/", "data/reader.c", "data/compress.c", "data/npy.c",
               "model/model_io.c")
# The other functions over MAX_LINES still to split (path, name). It only
# shrinks.
STILL_LONG = {
    ("kernel/kernel_sparse.c", "run_task"),
}


def long_functions(src):
    found = []
    for path in csource.paths(src):
        for d in csource.read(path).definitions:
            if d.kind == "function" and d.lines > MAX_LINES:
                found.append((d.lines, os.path.relpath(path, src), d))
    return sorted(found, key=lambda f: (-f[0], f[1], f[2].first))


def main(argv):
    src = argv[1] if len(argv) > 1 else "src"
    found = long_functions(src)
    io = [f for f in found if f[1].startswith(IO_AND_TOOL)]
    rest = [f for f in found if f not in io]
    new = [f for f in rest if (f[1], f[2].name) not in STILL_LONG]
    listed = [f for f in rest if f not in new]
    for title, rows in (("I/O or tool code", io),
                        ("elsewhere, not in STILL_LONG", new),
                        ("elsewhere, still to split (STILL_LONG)", listed)):
        print("functions over %d lines, %s: %d" % (MAX_LINES, title,
                                                   len(rows)))
        for lines, path, d in rows:
            print("  %4d  %s:%d  %s" % (lines, path, d.first, d.name))
    split = STILL_LONG - {(f[1], f[2].name) for f in listed}
    for path, name in sorted(split):
        print("in STILL_LONG but not over %d lines (take it out): %s  %s"
              % (MAX_LINES, path, name))
    return 1 if io or new else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
