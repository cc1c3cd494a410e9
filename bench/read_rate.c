/* Read rate of the data loaders: writes a LIBSVM and a CSV file of
 * synthetic rows (SUSY-like width by default) into a scratch directory,
 * then times tsgs_dataset_read on each (warm page cache), plain and, when
 * gzip/xz are on the PATH, compressed. Prints tab-separated lines.
 *
 * Usage: bench_read_rate [--rows N] [--features D] [--dir DIR] [--runs R] */
#include "tsgs3vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

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

static void time_read(const char *label, const char *path, const char *raw,
                      int runs)
{
    struct stat st_raw, st_file;
    if (stat(raw, &st_raw) || stat(path, &st_file))
        return;
    double *t = malloc(sizeof(double) * (size_t)runs);
    tsgs_read_options ro = tsgs_read_options_default();
    size_t rows = 0;
    for (int r = 0; r < runs; r++) {
        tsgs_dataset *ds;
        tsgs_error err;
        double t0 = now_s();
        if (tsgs_dataset_read(path, &ro, &ds, &err) != TSGS_OK) {
            fprintf(stderr, "%s\n", err.message);
            free(t);
            return;
        }
        t[r] = now_s() - t0;
        rows = tsgs_dataset_rows(ds);
        tsgs_dataset_free(ds);
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    double med = t[runs / 2];
    printf("%s\t%zu\t%.1f\t%.1f\t%.3f\t%.0f\t%.3g\n", label, rows,
           (double)st_file.st_size / 1e6, (double)st_raw.st_size / 1e6, med,
           (double)st_raw.st_size / 1e6 / med, (double)rows / med);
    free(t);
}

int main(int argc, char **argv)
{
    size_t rows = 1000000, d = 18;
    int runs = 3;
    const char *dir = "/tmp";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--rows") == 0)
            rows = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--features") == 0)
            d = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--dir") == 0)
            dir = argv[i + 1];
        else if (strcmp(argv[i], "--runs") == 0)
            runs = atoi(argv[i + 1]);
    }
    if (runs < 1)
        runs = 1;
    char svm[512], csv[512], cmd[1200];
    snprintf(svm, sizeof svm, "%s/tsgs_read_rate.svm", dir);
    snprintf(csv, sizeof csv, "%s/tsgs_read_rate.csv", dir);
    if (write_file(svm, 0, rows, d) || write_file(csv, 1, rows, d)) {
        fprintf(stderr, "cannot write into %s\n", dir);
        return 1;
    }
    printf("# synthetic rows (a hash of row and column), %zu x %zu, "
           "values with 9 significant digits; median of %d warm reads\n",
           rows, d, runs);
    printf("file\trows\tfile_mb\ttext_mb\tseconds\ttext_mb_per_s\trows_per_s\n");
    time_read("libsvm", svm, svm, runs);
    time_read("csv", csv, csv, runs);
    snprintf(cmd, sizeof cmd, "gzip -1 -kf %s 2>/dev/null && xz -0 -T2 -kf %s 2>/dev/null", svm, svm);
    if (system(cmd) == 0) {
        char gz[520], xz[520];
        snprintf(gz, sizeof gz, "%s.gz", svm);
        snprintf(xz, sizeof xz, "%s.xz", svm);
        time_read("libsvm.gz", gz, svm, runs);
        time_read("libsvm.xz", xz, svm, runs);
        remove(gz);
        remove(xz);
    }
    remove(svm);
    remove(csv);
    return 0;
}
