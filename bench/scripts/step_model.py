#!/usr/bin/env python3
"""The step proxies of bench/scripts/step_proxies.sh (issue #33): per rows
and threads, the medians of the master's parts of a tsg step (us/step),
the serial time per step (the master alone between the team's barriers:
step_serial + step_after), the barriers per step (counted), then a model
of the step time

    T(p) = begin(p) + K1 / (p e_k(p)) + serial(p) + nb * b(p) + wait(p)

fitted on the 1- and 2-thread figures, its prediction for 16 threads, and
the lent 16-core machine's measurement beside it
(bench/results/device-16core/phases-per-step.txt). Usage:
    step_model.py --barrier-cost barrier-cost.txt \
        --device phases-per-step.txt [--all-runs] raw.tsv [raw.tsv ...]
Runs slowed down by other processes (a step total over 1.25x the fastest
run's) are left out unless --all-runs; each table says how many were kept.
"""
import argparse
import collections
import math
import re
import statistics
import sys

PARTS = ['step_begin', 'step_kernel', 'step_serial', 'step_read_ahead_update',
         'step_end', 'step_after', 'step_workers_gather']
LANES, GROUP_TILE, ROW_TILE, RB_MAX, TASKS_PER_THREAD = 16, 16, 48, 12, 3
BATCH, FEATURES = 256, 1024  # tsg's defaults on these rows


def read_raw(paths):
    full = collections.defaultdict(dict)   # (rows, threads, run) -> what -> us/step
    meta = {}
    gomp = collections.defaultdict(dict)   # (rows, threads, kind) -> what -> count
    steps = {}
    feats = {}
    others = {}
    for fi, path in enumerate(paths):
        for line in open(path):
            if line.startswith('#') or line.startswith('run\t'):
                continue
            run, rows, th, load, train_s, kind, what, count, value = \
                line.rstrip('\n').split('\t')
            rows, th, run = int(rows), int(th), 1000 * fi + int(run)
            if what == 'features':
                feats[rows] = int(value)
            elif what == 'others_cores':
                if kind == 'full':
                    others[(rows, th, run)] = float(value)
            elif kind == 'full':
                full[(rows, th, run)][what] = float(value) / int(count) * 1e6
                if what == 'step_kernel':
                    steps[(rows, th, 'full')] = int(count)
                meta[(rows, th, run)] = (float(load), float(train_s or 'nan'))
            elif kind == 'half' and what == 'step_kernel':
                steps[(rows, th, 'half')] = int(count)
            elif kind.endswith('_gomp'):
                gomp[(rows, th, kind[:-5])][what] = int(value)
    return full, meta, gomp, steps, feats, others


def step_total(parts):
    return sum(parts[c] for c in ('step_begin', 'step_kernel', 'step_serial',
                                  'step_read_ahead_update', 'step_end'))


def undisturbed(full):
    """The runs whose step total is within 25% of the fastest run of the
    same rows and threads: interference from other processes only adds
    time, and on this shared machine it comes as a core taken for the
    whole run (a 2-thread step 2.5-3.5x the quiet one), so the runs fall
    in two clear groups. Returns the kept runs and, per (rows, threads),
    (kept, all)."""
    kept, counts = {}, {}
    for n, th in {(k[0], k[1]) for k in full}:
        runs = [k for k in full if k[0] == n and k[1] == th]
        best = min(step_total(full[k]) for k in runs)
        ok = [k for k in runs if step_total(full[k]) <= 1.25 * best]
        for k in ok:
            kept[k] = full[k]
        counts[(n, th)] = (len(ok), len(runs))
    return kept, counts


def med(xs):
    xs = [x for x in xs if not math.isnan(x)]
    return statistics.median(xs) if xs else float('nan')


def row_tile(ngt, n, threads):
    rows = ROW_TILE
    while rows > RB_MAX and ngt * -(-n // rows) < TASKS_PER_THREAD * threads:
        rows -= RB_MAX
    return rows


def granularity(p, ndirs=FEATURES, n=BATCH):
    """The kernel's tasks (kernel.c: cached_tiles) over a team of p, taken
    dynamically: the share of the team busy until the last task ends, if
    every task took the same time per row (a 12-row tile is in fact
    slower per row than a 48-row one: not in this factor)."""
    ng = -(-ndirs // LANES)
    ngt = -(-ng // GROUP_TILE)
    rows = row_tile(ngt, n, p)
    nrt = -(-n // rows)
    tasks = ngt * nrt
    return tasks / (p * -(-tasks // p)), tasks, rows


def device_phases(path):
    """rows, threads -> list of (begin, blockfeat, kernel, fast_serial,
    after) us/step, one per repeat."""
    out = collections.defaultdict(list)
    for line in open(path):
        f = line.split()
        if len(f) < 3:
            continue
        m = re.search(r'us/step: ([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+)', line)
        if m:
            out[(int(f[0]), int(f[1]))].append(tuple(float(x) for x in m.groups()))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--barrier-cost', required=True)
    ap.add_argument('--device', required=True)
    ap.add_argument('--barriers', required=True)
    ap.add_argument('--all-runs', action='store_true',
                    help='keep the runs other processes slowed down')
    ap.add_argument('--serial-flat', action='store_true',
                    help='serial(p >= 2) = serial(2): the master\'s part after the kernel does not '
                         'grow with the team (it sets the scale and plans the next step; the '
                         'gradient columns are the other threads\')')
    ap.add_argument('raw', nargs='+')
    args = ap.parse_args()
    full, meta, gomp, steps, feats, others = read_raw(args.raw)
    counts = {}
    for k in full:
        c = counts.get(k[:2], (0, 0))
        counts[k[:2]] = (c[0] + 1, c[1] + 1)
    if not args.all_runs:
        full, counts = undisturbed(full)
    bcost = {}
    for line in open(args.barrier_cost):
        f = line.split()
        bcost[int(f[1])] = float(f[3])
    dev = device_phases(args.device)
    gomp = collections.defaultdict(dict)
    for line in open(args.barriers):
        f = line.split()
        if f[0] == 'rows':
            continue
        n, th, kind = int(f[0]), int(f[1]), f[2]
        steps[(n, th, kind)] = int(f[3])
        gomp[(n, th, kind)] = dict(zip(('barriers', 'singles', 'copyprivate', 'loop_ends', 'regions'),
                                       (int(x) for x in f[4:9])))
    rows_all = sorted({k[0] for k in full})
    th_all = sorted({k[1] for k in full})

    print('## Per step, master thread, medians (us/step); serial = step_serial + step_after (the master alone')
    print('## between the kernel\'s barrier and the end\'s); kept/all: the runs within 1.25x of the fastest step')
    print('## total, the others slowed down by other processes (--all-runs keeps them); others: the cores other')
    print('## processes used during the kept runs (median; nan where not recorded)')
    cols = PARTS + ['end_wait', 'serial', 'step_total']
    print('rows\tthreads\tkept/all\tothers\tload1\ttrain_s\t' + '\t'.join(cols) + '\tstep_total_range')
    M = {}
    for n in rows_all:
        for p in th_all:
            runs = [k for k in full if k[0] == n and k[1] == p]
            d = {}
            for c in PARTS:
                d[c] = med([full[k].get(c, 0.0) for k in runs])
            d['end_wait'] = med([full[k]['step_end'] - full[k]['step_after'] for k in runs])
            d['serial'] = med([full[k]['step_serial'] + full[k]['step_after'] for k in runs])
            tots = [step_total(full[k]) for k in runs]
            d['step_total'] = med(tots)
            d['train_s'] = med([meta[k][1] for k in runs])
            d['load1'] = med([meta[k][0] for k in runs])
            M[(n, p)] = d
            print('%d\t%d\t%d/%d\t%.2f\t%.2f\t%.3f\t%s\t%.1f-%.1f' % (
                n, p, counts[(n, p)][0], counts[(n, p)][1],
                med([others.get(k, float('nan')) for k in runs]), d['load1'], d['train_s'],
                '\t'.join('%.2f' % d[c] for c in cols), min(tots), max(tots)))
    print()
    print('## Barriers per step (libgomp entry points on the master, full run minus a run of half the steps)')
    print('rows\tthreads\tsteps_full\tsteps_half\tGOMP_barrier/step\tcopyprivate/step\tloop_end/step\tteam_barriers/step')
    NB = {}
    for n in rows_all:
        for p in th_all:
            a, b = gomp.get((n, p, 'full')), gomp.get((n, p, 'half'))
            sf, sh = steps.get((n, p, 'full')), steps.get((n, p, 'half'))
            if not a or not b or not sf or not sh:
                continue
            ds = sf - sh
            per = {w: (a[w] - b[w]) / ds for w in a}
            # a copyprivate single: one barrier inside (copy_start/copy_end)
            # and the GOMP_barrier after it (counted in barriers)
            nb = per['barriers'] + per['copyprivate'] + per['loop_ends']
            NB[(n, p)] = nb
            print('%d\t%d\t%d\t%d\t%.3f\t%.4f\t%.3f\t%.3f' % (n, p, sf, sh, per['barriers'],
                  per['copyprivate'], per['loop_ends'], nb))
    print()
    print('## One barrier alone (bench/scripts/barrier_cost.c, threads reaching it together), us')
    for p in sorted(bcost):
        print('threads %d\tb = %.3f us' % (p, bcost[p]))
    print()

    b2 = bcost.get(2, float('nan'))
    print('## Model: T(p) = begin(p) + K1/(p e_k(p)) + serial(p) + nb b(p) + wait(p), fitted on 1 and 2 threads here')
    print('#   K1 = step_kernel(1) (block features + tiles); e_k(2) = K1 / (2 (step_kernel(2) - b(2)))')
    print('#   serial(p) = step_serial(p) + step_after(p): step_serial(p) = ss1 + (ss2 - ss1) 2 (p - 1) / p')
    print('#     (it reads partial sums and features the team wrote: a share (p - 1) / p of them from other')
    print('#     cores), step_after(p >= 2) = step_after(2) (on 1 thread it also asks for the next rows)')
    if args.serial_flat:
        print('#   (--serial-flat: step_serial(p >= 2) = ss2, the master\'s part does not grow with the team)')
    print('#   begin(p >= 2) = begin(2); the next rows gathered by the p - 1 waiters, Gw(p) = Gw(2) / (p - 1),')
    print('#     behind the serial section; wait(p) = max(0, Gw(p) - serial(p) - ahead(2))')
    print('#   nb = the counted barriers per step (each charged b(p), the kernel\'s closing one and the end\'s)')
    print('#   e_k(16): A = e_k(2) gran(16) / gran(2): the kernel\'s tasks (kernel.c cached_tiles, dynamic),')
    print('#              no further loss per core past 2 (optimistic);')
    print('#            B = (e_k(2) / gran(2))^4 gran(16): each doubling of the team loses what the first did;')
    print('#            D = the device\'s (blockfeat + kernel)(1) / (16 (blockfeat + kernel)(16)) (7a65abe)')
    print('#   b(16):   A, B = b(2) 16 / 2 (libgomp\'s central counter: a line transfer per arrival);')
    print('#            D = the device\'s after(16) - after(1): its end-of-step barrier with its wait')
    print()
    print('rows\tfeatures\tT1\tT2\teff2\te_k(2)\tserial1\tserial2\tserial16\tnb\tcase\te_k(16)\tb(16)\tT16\teff16'
          '\t|dev\tT1\tT16\teff16\tserial16\te_k16')
    summary = []
    for n in rows_all:
        if (n, 1) not in M or (n, 2) not in M:
            continue
        m1, m2 = M[(n, 1)], M[(n, 2)]
        g2, _, _ = granularity(2, feats.get(n, FEATURES))
        g16, t16, r16 = granularity(16, feats.get(n, FEATURES))
        K1 = m1['step_kernel']
        ek2 = K1 / (2 * (m2['step_kernel'] - b2))
        ss1, ss2 = m1['step_serial'], m2['step_serial']
        S16 = (ss2 if args.serial_flat else ss1 + (ss2 - ss1) * 2 * 15 / 16) + m2['step_after']
        T1, T2 = m1['step_total'], m2['step_total']
        Gw16 = m2['step_workers_gather'] / 15
        wait = max(0.0, Gw16 - S16 - m2['step_read_ahead_update'])
        nb = NB.get((n, 2), 2.0)
        d1, d16 = dev.get((n, 1), []), dev.get((n, 16), [])
        dev_T1, dev_T16 = med([sum(x) for x in d1]), med([sum(x) for x in d16])
        dev_eff = dev_T1 / (16 * dev_T16) if d16 else float('nan')
        dev_ek16 = med([x[1] + x[2] for x in d1]) / (16 * med([x[1] + x[2] for x in d16])) if d16 else float('nan')
        dev_b16 = med([a[4] - b[4] for a, b in zip(d16, d1)]) if d16 else float('nan')
        dev_S16 = med([x[3] for x in d16]) if d16 else float('nan')
        cases = (('A', ek2 * g16 / g2, b2 * 8), ('B', (ek2 / g2) ** 4 * g16, b2 * 8),
                 ('D', dev_ek16, dev_b16))
        for tag, ek16, b16 in cases:
            T16 = m2['step_begin'] + K1 / (16 * ek16) + S16 + nb * b16 + wait
            eff = T1 / (16 * T16)
            summary.append((n, tag, eff, dev_eff, T16, ek16, b16))
            print('%d\t%d\t%.1f\t%.1f\t%.3f\t%.3f\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t%.3f\t%.2f\t%.1f\t%.3f\t|\t%.1f\t%.1f\t%.3f\t%.1f\t%.3f'
                  % (n, feats.get(n, FEATURES), T1, T2, T1 / (2 * T2), ek2, m1['serial'], m2['serial'], S16, nb,
                     tag, ek16, b16, T16, eff, dev_T1, dev_T16, dev_eff, dev_S16, dev_ek16))
        print('# rows %d: kernel tasks at 16 threads: %d of %d rows (gran %.3f; at 2: %.3f)' % (n, t16, r16, g16, g2))
    print()
    print('## What 85% at 16 threads needs, per step: T16 <= T1 / (16 x 0.85)')
    for n in rows_all:
        if (n, 1) not in M or (n, 2) not in M:
            continue
        m1, m2 = M[(n, 1)], M[(n, 2)]
        T1, K1 = m1['step_total'], m1['step_kernel']
        d1, d16 = dev.get((n, 1), []), dev.get((n, 16), [])
        dev_b16 = med([a[4] - b[4] for a, b in zip(d16, d1)]) if d16 else 1.25
        dev_ek16 = med([x[1] + x[2] for x in d1]) / (16 * med([x[1] + x[2] for x in d16])) if d16 else 0.55
        for serial, nb, b16, ek16 in ((2.0, 2, dev_b16, dev_ek16), (2.0, 2, dev_b16, 0.917),
                                      (2.0, 2, b2 * 8, 0.917), (0.0, 1, dev_b16, 0.917)):
            # with a step's work x times larger (a batch x times larger:
            # the kernel and the O(batch) rest of a step on one thread
            # grow with it, the rest split over the team as the kernel is,
            # what stays serial `serial`):
            #   x T1 / (16 (serial + nb b16 + x T1 / (16 ek16))) = 0.85
            coef = 1.0 - 0.85 / ek16
            x = 0.85 * 16 * (serial + nb * b16) / (T1 * coef) if coef > 0 else float('inf')
            print('rows %d: serial %.1f us, %d barrier(s) of %.2f us, e_k(16) %.3f: T16 <= %.1f us today (T1 %.1f, K1 %.1f);'
                  ' 85%% needs a step\'s work x %s'
                  % (n, serial, nb, b16, ek16, T1 / (16 * 0.85), T1, K1,
                     ('%.1f' % x) if x != float('inf') else 'inf (e_k(16) < 0.85: never)'))


if __name__ == '__main__':
    main()
