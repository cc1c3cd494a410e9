/* One tsgs_dataset_read of FILE in a fresh process: prints "LABEL THREADS
 * wall_seconds cpu_seconds rows". Built by read_before_after.sh against
 * an older library too, whose read options may lack `threads`
 * (-DHAS_THREADS sets it). Usage: read_once FILE THREADS LABEL */
#include "tsgs3vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_s(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)r.ru_utime.tv_sec + 1e-6 * (double)r.ru_utime.tv_usec +
           (double)r.ru_stime.tv_sec + 1e-6 * (double)r.ru_stime.tv_usec;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: read_once FILE THREADS LABEL\n");
        return 2;
    }
    tsgs_read_options o = tsgs_read_options_default();
#ifdef HAS_THREADS
    o.threads = atoi(argv[2]);
#endif
    tsgs_dataset *ds;
    tsgs_error e;
    double t0 = now_s(), c0 = cpu_s();
    if (tsgs_dataset_read(argv[1], &o, &ds, &e) != TSGS_OK) {
        fprintf(stderr, "%s\n", e.message);
        return 1;
    }
    printf("%s\t%s\t%.3f\t%.3f\t%zu\n", argv[3], argv[2], now_s() - t0,
           cpu_s() - c0, tsgs_dataset_rows(ds));
    tsgs_dataset_free(ds);
    return 0;
}
