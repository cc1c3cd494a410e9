"""analyse.py OUT.tsv WORK [WORK...]: the unlabeled rows' evidence beside
the safe selection's CV (issue #29), from units that dump.sh has run.

Per unit and candidate of the selection (0 the supervised SVM, 1-3 the
cluster path at T = 1, 0.3, 0.1, 4-6 the grid's path at the same
temperatures) it measures, on the default's unlabeled sample:
  acc    accuracy against the sample's true labels (utruth.npy)
  dens   margin density: the share of rows with |f| under 0.2 times the
         median |f| (scale-free: a boundary through a gap leaves few)
  cut    the share of 10-nearest-neighbour pairs (z-scored rows) that the
         labelling puts in different classes (a boundary through a gap
         cuts few)
  kappa  fold stability: Cohen's kappa between the labellings of the
         sample by the CV's fold fits (5 folds x 2 repeats), averaged over
         pairs (a labelling fixed by the clusters barely moves with the
         labels it saw; chance agreement taken out, so that a constant
         labelling scores 0)
writes them to OUT.tsv, prints per-case means, and replays the rules of
the study: what the kept candidate's accuracy would be under each."""
import collections
import os
import re
import sys

import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.neighbors import NearestNeighbors

NC = 7
ARM = ['sup', 'cl', 'cl', 'cl', 'gr', 'gr', 'gr']
# the candidate's place in a fold dump: (arm's D rank, candidate 0..5)
FOLD_AT = [(0, 0), (1, 3), (1, 4), (1, 5), (0, 3), (0, 4), (0, 5)]


def read_dump(path):
    sel, cands = None, []
    for ln in open(path):
        if ln.startswith('SEL'):
            if sel is not None:
                break  # one-vs-rest and later selections: not studied
            sel = {k: float(v) for k, v in re.findall(r'(\w+)=([-\d.e]+)', ln)}
        elif ln.startswith('CAND'):
            parts = ln.split()
            kv = {k: float(v) for k, v in
                  re.findall(r'(\w+)=([-\d.e]+)', ' '.join(parts[:-1]))}
            kv['f'] = np.array(parts[-1].split(','), dtype=float)
            cands.append(kv)
    return sel, cands


def fold_kappas(path):
    arms = collections.defaultdict(list)
    for ln in open(path):
        parts = ln.split()
        D, nw, s = int(parts[1][2:]), int(parts[4][3:]), parts[5]
        if len(s) == 6 * nw:
            arms[D].append(np.frombuffer(s.encode(), np.uint8).reshape(6, nw) - 48)
    Ds = sorted(arms)
    if len(Ds) != 2:
        return None
    out = []
    for rank, c in FOLD_AT:
        F = np.array(arms[Ds[rank]])[:, c, :]
        ks = []
        for i in range(len(F)):
            for j in range(i + 1, len(F)):
                po = (F[i] == F[j]).mean()
                p1, p2 = F[i].mean(), F[j].mean()
                pe = p1 * p2 + (1 - p1) * (1 - p2)
                ks.append((po - pe) / (1 - pe) if pe < 1 else 0.0)
        out.append(float(np.mean(ks)))
    return out


def neighbours(u, k=10):
    X, _ = load_svmlight_file(os.path.join(u, 'unlabeled.svm'))
    X = X.toarray()
    X = (X - X.mean(0)) / (X.std(0) + 1e-12)
    return NearestNeighbors(n_neighbors=k + 1).fit(X).kneighbors(
        X, return_distance=False)[:, 1:]


def unit(u):
    sel, cands = read_dump(os.path.join(u, 'dump.txt'))
    yt = np.load(os.path.join(u, 'utruth.npy'))
    if sel is None or len(cands) != NC or len(cands[0]['f']) != len(yt):
        return None  # the sample is not the whole unlabeled file
    t = yt > yt.min()
    nn = neighbours(u)
    fold = os.path.join(u, 'fold.txt')
    kap = fold_kappas(fold) if os.path.exists(fold) else None
    rows = []
    for c, x in enumerate(cands):
        s = x['f'] > 0
        a = np.abs(x['f'])
        rows.append(dict(acc=100 * float((s == t).mean()),
                         dens=float((a < 0.2 * np.median(a)).mean()),
                         cut=float((s[:, None] != s[nn]).mean()),
                         kappa=kap[c] if kap else float('nan'),
                         right=int(x['right'])))
    return sel, rows


# ---- the rules replayed: each maps (sel, rows) to the candidate kept ----
def now(sel, rows):
    return int(sel['kept'])


def no_tolerance(sel, rows):
    """NO_WORSE_ANSWERS off: the path only where it wins the CV."""
    return 0 if sel['no_worse'] else int(sel['kept'])


def cluster_two_behind(sel, rows):
    """The cluster path kept 2 answers behind the supervised SVM (today 1)."""
    k, b = int(sel['kept']), int(sel['best'])
    if k == 0 and not sel['unbal'] and ARM[b] == 'cl' and \
            sel['right_sup'] - sel['right_path'] <= 2:
        return b
    return k


def stable_four_behind(sel, rows):
    """Up to 4 answers behind where the path's fold kappa >= 0.97 and
    0.1 above the supervised SVM's."""
    k, b = int(sel['kept']), int(sel['best'])
    if k == 0 and not sel['unbal'] and \
            sel['right_sup'] - sel['right_path'] <= 4 and \
            rows[b]['kappa'] >= 0.97 and \
            rows[b]['kappa'] - rows[0]['kappa'] >= 0.1:
        return b
    return k


def tolerance_if_unstable_sup(sel, rows):
    """NO_WORSE_ANSWERS only where the supervised SVM's fold kappa < 0.85
    (its labelling moves with the labels it saw)."""
    if sel['no_worse'] and rows[0]['kappa'] >= 0.85:
        return 0
    return int(sel['kept'])


def bounded_deficit(sel, rows):
    """NO_WORSE_WORST (adopted): a path behind the supervised SVM is kept
    for scoring only where (behind + 2 sqrt(discordant)) <= 10% of the
    held-out answers."""
    behind = sel['right_sup'] - sel['right_path']
    cap = 0.10 * 2 * sel['nl']  # not applied where even 1 + 2 is beyond it
    if sel['no_worse'] and behind > 0 and cap >= 3 and \
            behind + 2 * np.sqrt(sel['disc']) > cap:
        return 0
    return int(sel['kept'])


RULES = [now, no_tolerance, cluster_two_behind, stable_four_behind,
         tolerance_if_unstable_sup, bounded_deficit]


def main(out, works):
    units = []
    for w in works:
        for name in sorted(os.listdir(w)):
            u = os.path.join(w, name)
            if not all(os.path.exists(os.path.join(u, f)) for f in
                       ('dump.txt', 'utruth.npy')):
                continue
            r = unit(u)
            if r:
                units.append((name, r[0], r[1]))
    with open(out, 'w') as f:
        f.write('unit\tkept\tbest\tno_worse\tright_sup\tright_path\tcand\t'
                'right\tacc\tdens\tcut\tkappa\n')
        for name, sel, rows in units:
            for c, x in enumerate(rows):
                f.write(f"{name}\t{int(sel['kept'])}\t{int(sel['best'])}\t"
                        f"{int(sel['no_worse'])}\t{int(sel['right_sup'])}\t"
                        f"{int(sel['right_path'])}\t{c}\t{x['right']}\t"
                        f"{x['acc']:.2f}\t{x['dens']:.4f}\t{x['cut']:.4f}\t"
                        f"{x['kappa']:.4f}\n")
    cases = collections.defaultdict(list)
    for name, sel, rows in units:
        cases[name.split('.s')[0]].append((sel, rows))
    print('| case | draws | measure | supervised | cluster path T=0.1 | '
          'grid path T=0.1 | kept |')
    print('|---|---|---|---|---|---|---|')
    for case in sorted(cases):
        L = cases[case]
        for m in ('acc', 'dens', 'cut', 'kappa'):
            v = [np.nanmean([r[c][m] for _, r in L]) for c in (0, 3, 6)]
            kept = np.nanmean([r[int(s['kept'])][m] for s, r in L])
            print(f"| {case} | {len(L)} | {m} | {v[0]:.3f} | {v[1]:.3f} | "
                  f"{v[2]:.3f} | {kept:.3f} |")
    print()
    print('| case | draws | ' + ' | '.join(r.__name__ for r in RULES) + ' |')
    print('|---|---|' + '---|' * len(RULES))
    for case in sorted(cases):
        L = cases[case]
        cells = []
        for rule in RULES:
            acc = [r[rule(s, r)]['acc'] for s, r in L]
            changed = sum(rule(s, r) != now(s, r) for s, r in L)
            worst = min([r[rule(s, r)]['acc'] - r[now(s, r)]['acc']
                         for s, r in L])
            cells.append(f"{np.mean(acc):.2f}" + (
                f" ({changed}, worst {worst:+.1f})" if changed else ''))
        print(f"| {case} | {len(L)} | " + ' | '.join(cells) + ' |')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2:])
