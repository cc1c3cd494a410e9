"""truth.py WORK: each gain unit's utruth.npy, the true labels of the rows
the default's unlabeled sample holds, in order (gain_study.py's own draws
made again: the same seeds, the same calls). For the real sets the unit's
unlabeled file is that sample (2,000 rows); units with more unlabeled rows
than the sample (nosignal) get the truth of the whole file and are skipped
by analyse.py."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'peers'))
import gain_study as g  # noqa: E402


def main(work):
    cache = {}
    for name in sorted(os.listdir(work)):
        u = os.path.join(work, name)
        if not os.path.exists(os.path.join(u, 'unit.json')):
            continue
        if os.path.exists(os.path.join(u, 'utruth.npy')):
            continue
        meta = json.load(open(os.path.join(u, 'unit.json')))
        case, nl = meta['case'].split('@')
        nl = int(nl)
        rng = np.random.RandomState(meta['seed'])
        if case in g.SYNTH or case == 'digits':
            x, y = g.SYNTH[case](rng) if case in g.SYNTH else g.digits()
            pool = y if case in g.TRANSDUCTIVE else y[:2200]
            li = g.draw_labels(rng, pool, nl)
            yu = pool[np.setdiff1d(np.arange(len(pool)), li)]
        else:
            if case not in cache:
                cache[case] = g.real(case)
            xa, ya, xt, yt = cache[case]
            li = g.draw_labels(rng, ya, nl)
            others = np.setdiff1d(np.arange(len(ya)), li)
            ui = rng.choice(others, min(2000, len(others)), replace=False)
            yu = ya[ui]
        np.save(os.path.join(u, 'utruth.npy'), yu)


if __name__ == '__main__':
    main(sys.argv[1])
