/* Throughput of the prediction kernel: random feature evaluations
 * (rows x features, each a d-long dot product and a cosine) per second per
 * core, at d = 18 (SUSY) and d = 28 (HEPMASS), on 1 and 2 threads, beside
 * this machine's single-precision FMA peak measured in the same run.
 *
 * Usage: bench_throughput [--runs N] [--threads-max N]
 * Prints tab-separated lines with a header after a "# machine" block. */
#include "bench_clock.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef float vf8 __attribute__((vector_size(32)));

/* Peak: 12 independent chains of 8-wide fused multiply-adds. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
static float fma_loop(long n, float a)
{
    vf8 acc[12];
    for (int i = 0; i < 12; i++)
        acc[i] = (vf8){1, 2, 3, 4, 5, 6, 7, (float)i};
    vf8 m = {a, a, a, a, a, a, a, a}, c = {1e-7f, 1e-7f, 1e-7f, 1e-7f,
                                           1e-7f, 1e-7f, 1e-7f, 1e-7f};
    for (long k = 0; k < n; k++)
        for (int i = 0; i < 12; i++)
            acc[i] = acc[i] * m + c;
    float s = 0;
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 8; j++)
            s += acc[i][j];
    return s;
}

/* Single-precision flop/s on one core (2 flops per FMA lane). */
static double fma_peak(int runs)
{
    const long n = 20000000;
    double best = 0;
    volatile float sink = 0;
    for (int r = 0; r < runs; r++) {
        double t = now_s();
        sink += fma_loop(n, 0.9999999f);
        t = now_s() - t;
        double f = 2.0 * 8 * 12 * (double)n / t;
        if (f > best)
            best = f;
    }
    (void)sink;
    return best;
}

static void machine(void)
{
    char model[256] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                if (c) {
                    snprintf(model, sizeof model, "%s", c + 2);
                    model[strcspn(model, "\n")] = '\0';
                }
                break;
            }
        fclose(f);
    }
    int packages = 0, numa = 0, cores = 0, pus = 0;
    tsgs_topology *t;
    if (tsgs_topology_open(&t, NULL) == TSGS_OK) {
        tsgs_topology_counts(t, &packages, &numa, &cores, &pus);
        tsgs_topology_free(t);
    }
    char commit[64] = "unknown";
    FILE *g = popen("git rev-parse --short HEAD 2>/dev/null", "r");
    if (g) {
        if (fgets(commit, sizeof commit, g))
            commit[strcspn(commit, "\n")] = '\0';
        pclose(g);
    }
    printf("# machine\tcpu=%s\tpackages=%d\tnuma_nodes=%d\tcores=%d\tpus=%d\n",
           model, packages, numa, cores, pus);
    printf("# build\tcompiler=gcc %s\tcommit=%s\n", __VERSION__, commit);
}

int main(int argc, char **argv)
{
    int runs = 7, threads_max = 2;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--runs") == 0)
            runs = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--threads-max") == 0)
            threads_max = atoi(argv[i + 1]);
    }
    if (runs < 1)
        runs = 1;
    machine();
    double peak = fma_peak(3);
    printf("# fma_peak_sp_flops_per_core\t%.4g\n", peak);
    printf("map\td\tthreads\trows\tfeatures\tevals_per_s_median\t"
           "evals_per_s_best\tevals_per_s_per_core\tfma_fraction_of_peak\n");
    static const size_t dims[] = {18, 28};
    static const tsgs_feature_map maps[] = {TSGS_FEATURES_COS,
                                            TSGS_FEATURES_PAIR};
    const size_t rows = 4096;
    const long ndirs = 2048;
    for (int mi = 0; mi < 2; mi++)
        for (int di = 0; di < 2; di++) {
            size_t d = dims[di];
            tsgs__fspec fs = {TSGS_KERNEL_RBF, maps[mi], 1.0 / (double)d, d,
                              1, 16, maps[mi] == TSGS_FEATURES_PAIR ? 8 : 16,
                              0, 1};
            float *panel = malloc(sizeof(float) * (size_t)ndirs * d);
            float *phase = malloc(sizeof(float) * (size_t)ndirs);
            double *ac = malloc(sizeof(double) * (size_t)ndirs);
            double *as = malloc(sizeof(double) * (size_t)ndirs);
            float *X = malloc(sizeof(float) * rows * d);
            double *out = malloc(sizeof(double) * rows);
            if (!panel || !phase || !ac || !as || !X || !out)
                return 1;
            tsgs__pack_directions(&fs, 0, ndirs, panel, phase);
            for (long g = 0; g < ndirs; g++) {
                ac[g] = 1e-3 * (double)(g % 7);
                as[g] = 1e-3 * (double)(g % 5);
            }
            for (size_t i = 0; i < rows * d; i++)
                X[i] = (float)((double)(i * 2654435761u % 1000) / 500.0 - 1.0);
            tsgs__fview v = {&fs, ndirs, panel, phase, ac,
                             maps[mi] == TSGS_FEATURES_PAIR ? as : NULL};
            double features = (double)ndirs *
                              (maps[mi] == TSGS_FEATURES_PAIR ? 2 : 1);
            for (int nt = 1; nt <= threads_max; nt++) {
                tsgs_bind_threads(nt, TSGS_BIND_COMPACT, NULL, NULL);
                double *rate = malloc(sizeof(double) * (size_t)runs);
                tsgs__eval_sums(&v, X, rows, nt, out, NULL); /* warm-up */
                for (int r = 0; r < runs; r++) {
                    double t = now_s();
                    int reps = 0;
                    do {
                        tsgs__eval_sums(&v, X, rows, nt, out, NULL);
                        reps++;
                    } while (now_s() - t < 0.2);
                    t = now_s() - t;
                    rate[r] = (double)reps * (double)rows * features / t;
                }
                qsort(rate, (size_t)runs, sizeof *rate, cmp_double);
                double med = rate[runs / 2], best = rate[runs - 1];
                /* flops a feature needs in its dot product: 2 d per
                 * direction, shared by the pair's two features */
                double dot_flops = 2.0 * (double)d /
                                   (maps[mi] == TSGS_FEATURES_PAIR ? 2 : 1);
                printf("%s\t%zu\t%d\t%zu\t%.0f\t%.4g\t%.4g\t%.4g\t%.3f\n",
                       maps[mi] == TSGS_FEATURES_PAIR ? "pair" : "cos", d, nt,
                       rows, features, med, best, med / nt,
                       med / nt * dot_flops / peak);
                fflush(stdout);
                free(rate);
            }
            free(panel);
            free(phase);
            free(ac);
            free(as);
            free(X);
            free(out);
        }
    return 0;
}
