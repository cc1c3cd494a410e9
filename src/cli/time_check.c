/* --max-time: refuse, before it starts, a training run whose random
 * features' directions alone (tsgs_train_seconds: the part of the run
 * that grows with the input's width) are estimated to take longer than
 * allowed, naming the file, its shape, the estimate and the ways out. */
#include "cli.h"

#include <stdio.h>

int cli_check_time(const cli_opts *o, const char *path,
                   const tsgs_dataset *ds, const tsgs_params *p)
{
    if (o->max_time <= 0.0)
        return 0;
    tsgs_error err;
    double need;
    if (tsgs_train_seconds(ds, p, &need, &err) != TSGS_OK) {
        cli_error(&err);
        return 1;
    }
    if (need <= o->max_time)
        return 0;
    const size_t n = tsgs_dataset_rows(ds), d = tsgs_dataset_features(ds);
    const int sparse = tsgs_dataset_is_sparse(ds);
    fprintf(stderr,
            "ERROR: %s: %zu rows x %zu features: making the random "
            "features' directions alone is estimated at %.0f s (%.1f min) "
            "on this run's threads, more than --max-time %.0f s. It grows "
            "with the %s, not the rows: %sfewer random features "
            "(--max-features), --sigma and -c given (no grid search), or "
            "--max-time 0 to train anyway.\n",
            path, n, d, need, need / 60.0, o->max_time,
            sparse ? "columns the sparse rows use" : "features (columns)",
            sparse ? "" : "sparse rows (a LIBSVM file holds only the "
                          "non-zero columns) where most values are zero, ");
    return 1;
}
