#!/usr/bin/python3
"""Which one-vs-rest joint option each margin keeps, from the records of a
build that prints, per training, a line

    OVRDBG n N best B: [-1] R/D [0] R/D ... [5] R/D

(option -1: each class's own choice, 0: every class supervised, 1..5: every
class at one temperature; R held-out answers right of N, D the answers
where the option and option 0 differ in rightness). Input: TSV rows
`unit <tab> margin <tab> accuracy <tab> OVRDBG line` (bench/results/gain/
ovr-margin/). Prints the units whose kept option differs between margin
0 and each margin given, as (unit, option at 0, option at the margin).

usage: joint_options.py RECORDS.tsv MARGIN [MARGIN ...]
"""
import math
import re
import sys


def pick(right, disc, margin):
    """The rule of tsgs__joint_best (src/solvers/safe/safe_select.c)."""
    best = 0
    for o in range(-1, 6):
        if o == 0 or right[o] <= right[best]:
            continue
        if right[o] >= right[0] + margin * math.sqrt(disc[o]):
            best = o
    return best


def main():
    rows = []
    for line in open(sys.argv[1]):
        f = line.rstrip("\n").split("\t")
        if len(f) < 4:
            continue
        opts = re.findall(r"\[(-?\d)\] (\d+)/(\d+)", f[3])
        right = {int(o): int(r) for o, r, _ in opts}
        disc = {int(o): int(d) for o, _, d in opts}
        rows.append((f[0], right, disc))
    for m in map(float, sys.argv[2:]):
        flips = [(u, pick(r, d, 0.0), pick(r, d, m)) for u, r, d in rows
                 if pick(r, d, 0.0) != pick(r, d, m)]
        print("margin %g: %d of %d units change %s" % (m, len(flips),
                                                     len(rows), flips))


if __name__ == "__main__":
    main()
