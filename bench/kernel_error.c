/* Kernel approximation error of iid against orthogonal random directions
 * at the same feature count, on real rows: the relative Frobenius error
 * |K~ - K|_F / |K|_F of the Gram matrix of N rows (z-scored, evenly spaced
 * through the file) under the RBF kernel, at sigma = sigma0 (1 / the
 * median squared distance, the centre of the defaults' grid) and at
 * 4 sigma0, pair features, over seeds.
 *
 * Usage: bench_kernel_error [--rows N] [--seeds S] FILE...
 * Prints a "# machine" line, then tab-separated lines: file, d, sigma
 * factor, features, median error iid, median error orthogonal, their
 * ratio. */
#include "bench_clock.h"
#include "internal.h"
#include "select/model_select.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* |K~ - K|_F / |K|_F over the n x n Gram matrix. */
static double gram_error(const tsgs__fspec *fs, size_t ndirs, const float *X,
                         size_t n, float *F)
{
    const size_t d = fs->d, D = 2 * ndirs;
    const tsgs__rows R = tsgs__rows_dense(X, n, d);
    if (tsgs__feature_rows(fs, ndirs, &R, 0, NULL, NULL, F, NULL) != TSGS_OK) {
        fprintf(stderr, "bench_kernel_error: out of memory\n");
        exit(2);
    }
    double se = 0, sk = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double dist = 0, est = 0;
            for (size_t k = 0; k < d; k++) {
                double t = (double)X[i * d + k] - X[j * d + k];
                dist += t * t;
            }
            for (size_t k = 0; k < D; k++)
                est += (double)F[i * D + k] * F[j * D + k];
            double kv = exp(-fs->sigma * dist);
            se += (est - kv) * (est - kv);
            sk += kv * kv;
        }
    return sqrt(se / sk);
}

int main(int argc, char **argv)
{
    size_t rows = 400;
    int seeds = 10, a = 1;
    for (; a < argc && strncmp(argv[a], "--", 2) == 0; a += 2) {
        if (a + 1 >= argc)
            break;
        if (strcmp(argv[a], "--rows") == 0)
            rows = (size_t)atol(argv[a + 1]);
        else if (strcmp(argv[a], "--seeds") == 0)
            seeds = atoi(argv[a + 1]);
        else
            break;
    }
    if (a >= argc || rows < 2 || seeds < 1) {
        fprintf(stderr, "usage: bench_kernel_error [--rows N] [--seeds S] "
                        "FILE...\n");
        return 2;
    }
    static const long features[] = {64, 256, 1024};
    static const double factors[] = {1.0, 4.0};
    printf("# machine: any (errors do not depend on it); rows %zu, seeds "
           "1..%d, pair features, rbf\n",
           rows, seeds);
    printf("file\td\tsigma\tfeatures\terr_iid\terr_orthogonal\tratio\n");
    for (; a < argc; a++) {
        tsgs_read_options ro = tsgs_read_options_default();
        tsgs_dataset *ds = NULL;
        tsgs_error err;
        if (tsgs_dataset_read(argv[a], &ro, &ds, &err) != TSGS_OK) {
            fprintf(stderr, "bench_kernel_error: %s\n", err.message);
            return 2;
        }
        const size_t d = tsgs_dataset_features(ds), nall = tsgs_dataset_rows(ds);
        const size_t n = rows < nall ? rows : nall;
        tsgs__scaler sc;
        if (tsgs__scaler_fit(ds, TSGS_SCALE_ZSCORE, &sc, &err) != TSGS_OK) {
            fprintf(stderr, "bench_kernel_error: %s\n", err.message);
            return 2;
        }
        float *X = malloc(sizeof(float) * n * d);
        float *F = malloc(sizeof(float) * n * 2 * 1024);
        double *ei = malloc(sizeof(double) * (size_t)seeds);
        double *eo = malloc(sizeof(double) * (size_t)seeds);
        if (!X || !F || !ei || !eo)
            return 2;
        for (size_t i = 0; i < n; i++)
            tsgs__scaler_apply(&sc, tsgs_dataset_row(ds, i * (nall / n)), d,
                               X + i * d);
        double sigma0;
        const tsgs__rows R = tsgs__rows_dense(X, n, d);
        if (tsgs__median_sigma(&R, &R, d, 1, 1, &sigma0, &err) != TSGS_OK)
            return 2;
        for (int fi = 0; fi < 2; fi++)
            for (int m = 0; m < 3; m++) {
                tsgs_params p = tsgs_params_default();
                p.sigma = sigma0 * factors[fi];
                for (int s = 0; s < seeds; s++) {
                    p.seed = (uint64_t)s + 1;
                    p.directions = TSGS_DIRECTIONS_IID;
                    tsgs__fspec fs = tsgs__fspec_of(&p, d);
                    ei[s] = gram_error(&fs, (size_t)features[m] / 2, X, n, F);
                    p.directions = TSGS_DIRECTIONS_ORTHOGONAL;
                    fs = tsgs__fspec_of(&p, d);
                    eo[s] = gram_error(&fs, (size_t)features[m] / 2, X, n, F);
                }
                double mi = median(ei, seeds), mo = median(eo, seeds);
                const char *base = strrchr(argv[a], '/');
                printf("%s\t%zu\t%g*sigma0\t%ld\t%.4f\t%.4f\t%.3f\n",
                       base ? base + 1 : argv[a], d, factors[fi], features[m],
                       mi, mo, mo / mi);
                fflush(stdout);
            }
        free(X);
        free(F);
        free(ei);
        free(eo);
        tsgs__scaler_clear(&sc);
        tsgs_dataset_free(ds);
    }
    return 0;
}
