"""A small reader of C sources for the shape checks (issue #32): no
preprocessor and no compiler, just enough for this project's files.

paths(top) lists the .c files under top; read(path) gives a CSource: its tokens with line numbers (comments and
string literals gone), its #include "..." lines, its function-like and
object-like macros, and its top-level definitions (functions with their
first and last lines, variables), each marked static or not."""

import os
import re

_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|->|\S")


def _blank(text):
    """text with comments, string and character literals replaced by
    spaces (newlines kept, so line numbers stay)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            # the quotes stay: an #include "..." keeps its shape
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Definition:
    def __init__(self, name, kind, static, first, last):
        self.name, self.kind, self.static = name, kind, static
        self.first, self.last = first, last

    @property
    def lines(self):
        return self.last - self.first + 1


class CSource:
    def __init__(self, path, text):
        self.path = path
        self.includes = re.findall(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"',
                                   text, re.M)
        plain = _blank(text)
        self.tokens = []     # (line, token) of the whole file
        self.code = []       # the same without preprocessor lines
        self.macros = {}     # name -> the identifiers of its body
        in_directive = False
        for number, line in enumerate(plain.split("\n"), 1):
            toks = [(number, t) for t in _TOKEN.findall(line)]
            self.tokens += toks
            starts = line.lstrip().startswith("#")
            if starts or in_directive:
                self._macro(line, starts)
            else:
                self.code += toks
            in_directive = line.rstrip().endswith("\\")
        self.definitions = self._definitions()

    def _macro(self, line, starts):
        m = re.match(r"\s*#\s*define\s+(\w+)(.*)", line) if starts else None
        if m:
            self._last_macro = m.group(1)
            self.macros[m.group(1)] = set()
            body = m.group(2)
        elif not starts and getattr(self, "_last_macro", None):
            body = line  # a continuation line of the last #define
        else:
            self._last_macro = None
            return
        self.macros[self._last_macro] |= set(identifiers(
            _TOKEN.findall(body)))

    def _definitions(self):
        """Functions and variables defined at file scope."""
        found = []
        toks = self.code
        start = 0  # first token of the current top-level declaration
        i, depth = 0, 0
        while i < len(toks):
            t = toks[i][1]
            if t == "{":
                if depth == 0 and i > 0 and toks[i - 1][1] == ")":
                    end = _matching(toks, i)
                    name = _function_name(toks, start, i)
                    if name:
                        words = {w for _, w in toks[start:i]}
                        found.append(Definition(
                            name, "function", "static" in words,
                            toks[start][0], toks[end][0]))
                    i, start = end + 1, end + 1
                    continue
                depth += 1
            elif t == "}":
                depth -= 1
            elif t == ";" and depth == 0:
                var = _variable(toks[start:i])
                if var:
                    found.append(Definition(var[0], "variable", var[1],
                                            toks[start][0], toks[i][0]))
                start = i + 1
            i += 1
        return found


def identifiers(words):
    return [w for w in words if re.match(r"[A-Za-z_]\w*$", w)]


def _matching(toks, i):
    depth = 0
    for j in range(i, len(toks)):
        depth += {"{": 1, "}": -1}.get(toks[j][1], 0)
        if depth == 0:
            return j
    return len(toks) - 1


def _function_name(toks, start, brace):
    """The name before the parameter list that ends just before brace."""
    depth = 0
    for j in range(brace - 1, start - 1, -1):
        depth += {")": 1, "(": -1}.get(toks[j][1], 0)
        if depth == 0:
            words = identifiers([toks[j - 1][1]]) if j > start else []
            return words[0] if words else None
    return None


def _variable(decl):
    """(name, static) of a file-scope variable definition, else None."""
    words = [t for _, t in decl]
    if not words or {"extern", "typedef"} & set(words):
        return None
    if "=" in words:
        words = words[:words.index("=")]
    while words and words[-1] == "]":
        words = words[:words.index("[")] if "[" in words else []
    if {"(", ")", "{", "}"} & set(words) or len(words) < 2:
        return None
    if not identifiers(words[-1:]) or words[-2] in ("struct", "union",
                                                    "enum"):
        return None
    return words[-1], "static" in words


def paths(top, endings=(".c",)):
    """The files under top whose names end with one of endings, each folder
    in the walk's order and its files sorted."""
    for folder, _, names in os.walk(top):
        for name in sorted(names):
            if name.endswith(endings):
                yield os.path.join(folder, name)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return CSource(path, f.read())
