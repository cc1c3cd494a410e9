/* Read rate of the data loaders: writes a LIBSVM and a CSV file of
 * synthetic rows (SUSY-like width by default) into a scratch directory,
 * or takes an existing file (--file), then times tsgs_dataset_read on each
 * (warm page cache) at every thread count of --threads, the counts
 * interleaved run by run so that they see the same load; plain, .npy (the
 * CSV converted once by tsgs_dataset_save_npy) and, when gzip, xz and
 * zstd are on the PATH, compressed (xz -T2: blocks that liblzma's threads
 * decode side by side). Prints tab-separated lines; text_mb is the size of
 * the text the rows came from, so MB/s compare across forms; cpu_seconds
 * is the median CPU time of all threads (on a machine shared by other
 * jobs, wall time says how much of the CPU the run got, CPU time what the
 * work cost).
 *
 * Usage: bench_read_rate [--rows N] [--features D] [--dir DIR] [--runs R]
 *                        [--threads 1,2] [--file PATH] [--no-compressed] */
#include "bench_clock.h"
#include "tsgs3vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_COUNTS 16

/* Values with 9 significant digits, like published physics CSVs. */
static double value(size_t i, size_t k)
{
    unsigned long long h = (i * 0x9E3779B97F4A7C15ull) ^ (k * 0xBF58476D1CE4E5B9ull);
    h ^= h >> 31;
    h *= 0x94D049BB133111EBull;
    h ^= h >> 29;
    return (double)(h % 2000000000ull) / 1e9 - 1.0;
}

static int write_file(const char *path, int csv, size_t rows, size_t d)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    for (size_t i = 0; i < rows; i++) {
        fprintf(f, csv ? "%d" : "%+d", i % 3 ? -1 : 1);
        for (size_t k = 0; k < d; k++) {
            if (csv)
                fprintf(f, ",%.9g", value(i, k));
            else
                fprintf(f, " %zu:%.9g", k + 1, value(i, k));
        }
        fputc('\n', f);
    }
    return fclose(f) != 0;
}

typedef struct {
    int counts[MAX_COUNTS];
    int n;
} thread_counts;

/* Times reading `path` at each thread count (runs interleaved); raw is
 * the text the rows came from. */
static void time_read(const char *label, const char *path, const char *raw,
                      int runs, const thread_counts *tc)
{
    struct stat st_raw, st_file;
    if (stat(raw, &st_raw) || stat(path, &st_file))
        return;
    double *t = malloc(sizeof(double) * (size_t)runs * (size_t)tc->n);
    double *cpu = malloc(sizeof(double) * (size_t)runs * (size_t)tc->n);
    size_t rows = 0;
    for (int r = 0; r < runs; r++)
        for (int c = 0; c < tc->n; c++) {
            tsgs_read_options ro = tsgs_read_options_default();
            ro.threads = tc->counts[c];
            tsgs_dataset *ds;
            tsgs_error err;
            double t0 = now_s(), c0 = cpu_s();
            if (tsgs_dataset_read(path, &ro, &ds, &err) != TSGS_OK) {
                fprintf(stderr, "%s\n", err.message);
                free(t);
                free(cpu);
                return;
            }
            t[c * runs + r] = now_s() - t0;
            cpu[c * runs + r] = cpu_s() - c0;
            rows = tsgs_dataset_rows(ds);
            tsgs_dataset_free(ds);
        }
    for (int c = 0; c < tc->n; c++) {
        double *tt = t + c * runs, *cc = cpu + c * runs;
        qsort(tt, (size_t)runs, sizeof *tt, cmp_double);
        qsort(cc, (size_t)runs, sizeof *cc, cmp_double);
        double med = tt[runs / 2];
        printf("%s\t%d\t%zu\t%.1f\t%.1f\t%.3f\t%.3f\t%.3f\t%.0f\t%.3g\n",
               label, tc->counts[c], rows, (double)st_file.st_size / 1e6,
               (double)st_raw.st_size / 1e6, med, tt[0], cc[runs / 2],
               (double)st_raw.st_size / 1e6 / med, (double)rows / med);
    }
    fflush(stdout);
    free(t);
    free(cpu);
}

/* Converts text to NAME.npy (+ NAME.labels.npy) once and times reading. */
static void time_npy(const char *text, int runs, const thread_counts *tc)
{
    char npy[600], labels[640];
    snprintf(npy, sizeof npy, "%s.npy", text);
    tsgs_npy_labels_path(npy, labels, sizeof labels);
    tsgs_read_options ro = tsgs_read_options_default();
    tsgs_dataset *ds;
    tsgs_error err;
    if (tsgs_dataset_read(text, &ro, &ds, &err) != TSGS_OK ||
        tsgs_dataset_save_npy(ds, npy, &err) != TSGS_OK) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    tsgs_dataset_free(ds);
    time_read("npy", npy, text, runs, tc);
    remove(npy);
    remove(labels);
}

/* How many CPUs this process gets now: `threads` threads spin for 0.5 s
 * and their CPU time is divided by the wall time (on a machine shared
 * with other sessions the scheduler's share, not the core count, may
 * bound any speedup). */
static double cpus_available(int threads)
{
    double t0 = now_s(), c0 = cpu_s();
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
    {
        volatile double x = 0;
        while (now_s() - t0 < 0.5)
            for (int i = 0; i < 10000; i++)
                x += 1e-9 * i;
    }
    return (cpu_s() - c0) / (now_s() - t0);
}

static int parse_counts(const char *s, thread_counts *tc)
{
    tc->n = 0;
    while (*s && tc->n < MAX_COUNTS) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1)
            return 1;
        tc->counts[tc->n++] = (int)v;
        s = *end == ',' ? end + 1 : end;
    }
    return tc->n == 0;
}

int main(int argc, char **argv)
{
    size_t rows = 1000000, d = 18;
    int runs = 3, compressed = 1;
    const char *dir = "/tmp", *file = NULL;
    thread_counts tc = {{1, 2}, 2};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-compressed") == 0) {
            compressed = 0;
            continue;
        }
        if (!v) {
            fprintf(stderr, "%s needs a value\n", a);
            return 2;
        }
        i++;
        if (strcmp(a, "--rows") == 0)
            rows = strtoull(v, NULL, 10);
        else if (strcmp(a, "--features") == 0)
            d = strtoull(v, NULL, 10);
        else if (strcmp(a, "--dir") == 0)
            dir = v;
        else if (strcmp(a, "--runs") == 0)
            runs = atoi(v);
        else if (strcmp(a, "--file") == 0)
            file = v;
        else if (strcmp(a, "--threads") == 0) {
            if (parse_counts(v, &tc)) {
                fprintf(stderr, "--threads: a list such as 1,2\n");
                return 2;
            }
        } else {
            fprintf(stderr, "unknown option %s\n", a);
            return 2;
        }
    }
    if (runs < 1)
        runs = 1;
    int most = 1;
    for (int c = 0; c < tc.n; c++)
        most = tc.counts[c] > most ? tc.counts[c] : most;
    printf("# cpus_available\t%.2f (%d threads spinning 0.5 s: CPU time / "
           "wall time)\n",
           cpus_available(most), most);
    const char *header = "file\tthreads\trows\tfile_mb\ttext_mb\tseconds\t"
                         "best_seconds\tcpu_seconds\ttext_mb_per_s\t"
                         "rows_per_s\n";
    if (file) {
        printf("# %s; median (and best) of %d warm reads\n", file, runs);
        printf("%s", header);
        time_read("file", file, file, runs, &tc);
        time_npy(file, runs, &tc);
        return 0;
    }
    char svm[512], csv[512], cmd[1800];
    snprintf(svm, sizeof svm, "%s/tsgs_read_rate.svm", dir);
    snprintf(csv, sizeof csv, "%s/tsgs_read_rate.csv", dir);
    if (write_file(svm, 0, rows, d) || write_file(csv, 1, rows, d)) {
        fprintf(stderr, "cannot write into %s\n", dir);
        return 1;
    }
    printf("# SYNTHETIC rows (a hash of row and column), %zu x %zu, "
           "values with 9 significant digits; median (and best) of %d warm "
           "reads\n",
           rows, d, runs);
    printf("%s", header);
    time_read("libsvm", svm, svm, runs, &tc);
    time_read("csv", csv, csv, runs, &tc);
    time_npy(csv, runs, &tc);
    /* xz -T2 writes blocks that liblzma's threads decode side by side. */
    snprintf(cmd, sizeof cmd,
             "gzip -1 -kf %s 2>/dev/null && xz -0 -T2 -kf %s 2>/dev/null && "
             "zstd -q -1 -f -k %s 2>/dev/null",
             svm, svm, svm);
    if (compressed && system(cmd) == 0) {
        char gz[520], xz[520], zst[520];
        snprintf(gz, sizeof gz, "%s.gz", svm);
        snprintf(xz, sizeof xz, "%s.xz", svm);
        snprintf(zst, sizeof zst, "%s.zst", svm);
        time_read("libsvm.gz", gz, svm, runs, &tc);
        time_read("libsvm.xz", xz, svm, runs, &tc);
        time_read("libsvm.zst", zst, svm, runs, &tc);
        remove(gz);
        remove(xz);
        remove(zst);
    }
    remove(svm);
    remove(csv);
    return 0;
}
