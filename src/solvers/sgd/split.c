/* A stochastic run split over processes (train.h, tsgs__split): which
 * rows of a mini-batch this process predicts, and the gather of every
 * process's share. The processes' transport (MPI) is the caller's
 * (src/mpi/); this file knows none. */
#include "train.h"

void tsgs__split_range(const tsgs__split *split, size_t n, size_t *lo,
                       size_t *hi)
{
    if (!split || split->size <= 1) {
        *lo = 0;
        *hi = n;
        return;
    }
    /* n x size fits: a mini-batch's rows times the processes */
    *lo = n * (size_t)split->rank / (size_t)split->size;
    *hi = n * ((size_t)split->rank + 1) / (size_t)split->size;
}

int tsgs__split_gather(const tsgs__split *split, double *v, size_t n,
                       int own, int failed)
{
    if (!split || split->size <= 1)
        return failed;
    return split->gather(split->ctx, v, n, own, failed);
}
