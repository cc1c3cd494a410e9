/* How fast orthogonal directions are made (tsgs__pack_directions), and
 * their bits: bench_directions_speed D COUNT prints the seconds, the ns per
 * coordinate and an FNV-1a hash of the packed panel (the same hash from
 * two builds: the same directions). make bench builds it as
 * build/bench_directions_speed; docs/performance.md has its figures. */
#include "internal.h"
#include "kernel/kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s D COUNT\n", argv[0]);
        return 2;
    }
    const size_t d = strtoul(argv[1], NULL, 10);
    const long count = atol(argv[2]);
    if (d == 0 || count <= 0) {
        fprintf(stderr, "%s: D and COUNT must be positive\n", argv[0]);
        return 2;
    }
    tsgs_params p = tsgs_params_default();
    p.sigma = 0.01;
    p.seed = 5;
    p.directions = TSGS_DIRECTIONS_ORTHOGONAL;
    const tsgs__fspec fs = tsgs__fspec_of(&p, d);
    const size_t lanes = (size_t)(count + TSGS__LANES - 1) / TSGS__LANES *
                         TSGS__LANES;
    float *panel = malloc(sizeof(float) * lanes * d);
    float *phase = malloc(sizeof(float) * lanes);
    if (!panel || !phase) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
    double t = now_s();
    if (tsgs__pack_directions(&fs, 0, count, panel, phase) != 0) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
    t = now_s() - t;
    unsigned long long h = 1469598103934665603ULL;
    const unsigned char *b = (const unsigned char *)panel;
    for (size_t i = 0; i < sizeof(float) * lanes * d; i++) {
        h ^= b[i];
        h *= 1099511628211ULL;
    }
    printf("d %zu count %ld: %.3f s (%.1f ns per coordinate) hash %016llx\n",
           d, count, t, t * 1e9 / ((double)count * (double)d), h);
    free(panel);
    free(phase);
    return 0;
}
