#!/usr/bin/python3
"""Fails (exit 1) on a circle between the modules of src/ (issue #32).

A module is a .c file together with its own header (foo.c and foo.h); a
header that declares what several .c files define (a layer's header,
cli/cli.h) is a module of its own. Module A depends on module B when a
file of A includes a header of B (#include "...", resolved against the
including file's folder, include/ and src/, as -Iinclude -Isrc do), or
when a .c file of A uses a function or variable that a .c file of B
defines (directly or through a header's macro or inline function): a
shared header hides no dependency. Prints every circle with the names
that make each step, and any solver that calls up into train.c.

Usage: include_circles.py [SRC [INCLUDE]]   (defaults: src include)"""

import os
import sys
from collections import defaultdict, deque

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import csource  # noqa: E402


def sources(src, include):
    files = {}
    for top in (src, include):
        for path in csource.paths(top, (".c", ".h")):
            path = os.path.normpath(path)
            files[path] = csource.read(path)
    return files


def resolve(files, path, target, roots):
    for folder in [os.path.dirname(path)] + roots:
        candidate = os.path.normpath(os.path.join(folder, target))
        if candidate in files:
            return candidate
    return None


class Graph:
    def __init__(self, src, include):
        self.files = sources(src, include)
        roots = [include, src]
        self.includes = {
            p: [h for h in (resolve(self.files, p, t, roots)
                            for t in s.includes) if h]
            for p, s in self.files.items()}
        self.definer = {}   # name -> the .c file defining it (not static)
        self.expands = {}   # header-defined macro / inline -> identifiers
        for path, s in self.files.items():
            for d in s.definitions:
                if path.endswith(".c") and not d.static:
                    self.definer[d.name] = path
                elif path.endswith(".h") and d.kind == "function":
                    self.expands[d.name] = set(csource.identifiers(
                        t for n, t in s.code if d.first <= n <= d.last))
            if path.endswith(".h"):
                self.expands.update(s.macros)
        self.edges = defaultdict(dict)  # module -> module -> reasons
        for path in self.files:
            self._add_edges(path)

    def module(self, path):
        """foo.c's module is foo; so is foo.h's when foo.h declares only
        what foo.c defines; another header is a module of its own."""
        stem, ext = os.path.splitext(path)
        if ext == ".c" or stem + ".c" not in self.files:
            return stem if ext == ".c" else path
        declared = {self.definer.get(t) for _, t in self.files[path].code}
        declared.discard(None)
        return stem if declared <= {stem + ".c"} else path

    def visible(self, path):
        seen, todo = set(), [path]
        while todo:
            for h in self.includes[todo.pop()]:
                if h not in seen:
                    seen.add(h)
                    todo.append(h)
        return seen

    def uses(self, path):
        """The identifiers path's code names (members after . and ->
        aside), its headers' macros and inline functions expanded."""
        s = self.files[path]
        own = {d.name for d in s.definitions if d.static}
        words = [t for _, t in s.tokens]
        names = {w for i, w in enumerate(words)
                 if i == 0 or words[i - 1] not in (".", "->")}
        names = set(csource.identifiers(names)) - own
        todo = [n for n in names if n in self.expands]
        while todo:
            for n in self.expands[todo.pop()] - names:
                names.add(n)
                if n in self.expands:
                    todo.append(n)
        return names

    def _add_edges(self, path):
        me = self.module(path)
        for h in self.includes[path]:
            self._edge(me, self.module(h), path, "#include " + h)
        if not path.endswith(".c"):
            return
        for name in sorted(self.uses(path)):
            other = self.definer.get(name)
            if other and other != path:
                self._edge(me, self.module(other), path, name)

    def _edge(self, a, b, path, why):
        if a != b:
            self.edges[a].setdefault(b, []).append(
                "%s: %s" % (os.path.basename(path), why))


def components(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []
    nodes = set(edges) | {b for a in edges for b in edges[a]}

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def shortest_circle(edges, part):
    """The shortest circle through part's first module, inside part."""
    start, inside = part[0], set(part)
    back = {start: None}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(edges.get(v, {})):
            if w == start:
                path = [v]
                while back[path[-1]] is not None:
                    path.append(back[path[-1]])
                return path[::-1] + [start]
            if w in inside and w not in back:
                back[w] = v
                queue.append(w)
    return [start]


def main(argv):
    src = argv[1] if len(argv) > 1 else "src"
    include = argv[2] if len(argv) > 2 else "include"
    g = Graph(src, include)
    bad = 0
    for part in components(g.edges):
        circle = shortest_circle(g.edges, part)
        print("circle: " + " -> ".join(circle))
        for a, b in zip(circle, circle[1:]):
            why = g.edges[a][b]
            more = " (+%d more)" % (len(why) - 3) if len(why) > 3 else ""
            print("  %s -> %s: %s%s" % (a, b, "; ".join(why[:3]), more))
        if len(part) > len(circle) - 1:
            print("  (in one knot with: %s)" % ", ".join(
                m for m in part if m not in circle))
        bad = 1
    train = os.path.join(src, "train")
    for a in sorted(g.edges):
        if a.startswith(os.path.join(src, "solvers") + os.sep) and \
                train in g.edges[a]:
            print("solver calls up into train.c: %s -> %s: %s"
                  % (a, train, "; ".join(g.edges[a][train])))
            bad = 1
    modules = {g.module(p) for p in g.files}
    if not bad:
        print("no circle among %d modules (%d files)"
              % (len(modules), len(g.files)))
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
