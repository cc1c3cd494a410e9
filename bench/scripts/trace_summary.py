#!/usr/bin/env python3
"""Summarise bench/scripts/device_trace.sh's traces.tsv(.gz): per solver,
build, rows and threads, the median training time and efficiency against
the same build's 1-thread median, and the median time of each stage
(spans) and of the tsg steps' master parts (totals). Usage:
    trace_summary.py traces.tsv.gz [stage ...]
"""
import collections
import gzip
import statistics
import sys


def rows_of(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt') as f:
        for line in f:
            if line.startswith('run\t'):
                continue
            yield line.rstrip('\n').split('\t')


def main():
    path = sys.argv[1]
    runs = collections.defaultdict(dict)  # (solver, build, rows, threads, run) -> parts
    times = {}
    for r in rows_of(path):
        run, rows, threads, solver, build, train_s, kind, what = r[:8]
        key = (solver, build, int(rows), int(threads), int(run))
        times[key] = float(train_s)
        parts = runs[key]
        if kind == 'span':
            t0, t1 = float(r[10]), float(r[11])
            first = parts.setdefault(what, [t0, t1])
            first[0], first[1] = min(first[0], t0), max(first[1], t1)
        elif kind == 'total':
            parts[what] = [0.0, float(r[11 - 2])]  # seconds in the 4th column
    groups = collections.defaultdict(list)
    for key, t in times.items():
        groups[key[:4]].append(key)
    stages = sys.argv[2:] or ['finite', 'classes', 'scaler', 'safe_gather',
                              'safe_grid', 'sgd_settings_grid',
                              'safe_features', 'safe_paths', 'sgd_steps',
                              'step_kernel', 'step_serial']
    print('solver\tbuild\trows\tthreads\ttrain_s_median\truns\tefficiency\t' +
          '\t'.join(stages))
    base = {}
    for g in sorted(groups):
        med = statistics.median(times[k] for k in groups[g])
        if g[3] == 1:
            base[g[:3]] = med
        eff = base.get(g[:3], float('nan')) / med / g[3]
        cols = []
        for s in stages:
            v = [runs[k][s][1] - runs[k][s][0] for k in groups[g] if s in runs[k]]
            cols.append('%.4f' % statistics.median(v) if v else '-')
        print('%s\t%s\t%d\t%d\t%.3f\t%d\t%.3f\t%s' % (g + (med, len(groups[g]), eff, '\t'.join(cols))))


if __name__ == '__main__':
    main()
