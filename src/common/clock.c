/* The library's one clock: seconds on a monotonic clock, for progress
 * reports' elapsed times and the solvers' own timing. */
#include "common/common.h"

#include <time.h>

double tsgs__now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
