/* The library's one clock: seconds on a monotonic clock, for progress
 * reports' elapsed times and the solvers' own timing, and nanoseconds for
 * the stop's times (stop.c). */
#include "common/common.h"

#include <time.h>

static struct timespec monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts;
}

double tsgs__now_s(void)
{
    const struct timespec ts = monotonic();
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

long long tsgs__now_ns(void)
{
    const struct timespec ts = monotonic();
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
