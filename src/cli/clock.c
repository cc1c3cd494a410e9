/* The tool's clock: wall seconds on a monotonic clock (the tool uses the
 * public API only, so it keeps its own beside the library's). */
#include "cli.h"

#include <time.h>

double cli_wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
