/* Timing helpers shared by the benchmark programs of bench/: wall and
 * CPU seconds, and a comparator for sorting samples (medians). */
#ifndef TSGS_BENCH_CLOCK_H
#define TSGS_BENCH_CLOCK_H

#include <sys/resource.h>
#include <time.h>

/* Monotonic wall-clock seconds. */
static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds of every thread of this process so far. */
static inline double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* qsort comparator of doubles, ascending. */
static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
