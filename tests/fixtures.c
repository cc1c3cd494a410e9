/* Seeded synthetic datasets for tests (labelled synthetic wherever used). */
#include "fixtures.h"

#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static double unif(unsigned seed, uint32_t i, uint32_t k)
{
    tsgs__u32x4 r = tsgs__philox(seed, i, k, 0, 4242);
    return tsgs__u01(r.v[0], r.v[1]);
}

static double gauss(unsigned seed, uint32_t i, uint32_t k)
{
    double z0, z1;
    tsgs__normal_pair(tsgs__philox(seed, i, k, 1, 4243), &z0, &z1);
    return z0;
}

tsgs_dataset *fixture_blobs(size_t n, size_t d, double sep, double pos_frac,
                            size_t n_labeled, size_t labeled_pos,
                            unsigned seed, double **truth)
{
    float *x = malloc(sizeof(float) * n * d);
    double *y = malloc(sizeof(double) * n);
    double *t = malloc(sizeof(double) * n);
    size_t lp = 0, ln = 0;
    for (size_t i = 0; i < n; i++) {
        double lab;
        if (i < n_labeled)
            lab = lp < labeled_pos ? 1.0 : -1.0;
        else
            lab = unif(seed, (uint32_t)i, 999) < pos_frac ? 1.0 : -1.0;
        if (i < n_labeled)
            lab > 0 ? lp++ : ln++;
        for (size_t k = 0; k < d; k++)
            x[i * d + k] = (float)(lab * sep / 2 + gauss(seed, (uint32_t)i, (uint32_t)k));
        t[i] = lab;
        y[i] = i < n_labeled ? lab : TSGS_UNLABELED;
    }
    tsgs_dataset *ds = NULL;
    tsgs_dataset_from_dense(n, d, x, y, &ds, NULL);
    free(x);
    free(y);
    if (truth)
        *truth = t;
    else
        free(t);
    return ds;
}

tsgs_dataset *fixture_moons(size_t n, size_t n_labeled, double noise,
                            unsigned seed, double **truth)
{
    float *x = malloc(sizeof(float) * n * 2);
    double *y = malloc(sizeof(double) * n);
    double *t = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++) {
        int pos = i % 2 == 0;
        double a = TSGS__PI * unif(seed, (uint32_t)i, 1);
        double px = pos ? cos(a) : 1.0 - cos(a);
        double py = pos ? sin(a) : 0.5 - sin(a);
        x[2 * i] = (float)(px + noise * gauss(seed, (uint32_t)i, 2));
        x[2 * i + 1] = (float)(py + noise * gauss(seed, (uint32_t)i, 3));
        t[i] = pos ? 1.0 : -1.0;
        y[i] = i < n_labeled ? t[i] : TSGS_UNLABELED;
    }
    tsgs_dataset *ds = NULL;
    tsgs_dataset_from_dense(n, 2, x, y, &ds, NULL);
    free(x);
    free(y);
    if (truth)
        *truth = t;
    else
        free(t);
    return ds;
}

void test_skip(const char *test, const char *why)
{
    fprintf(stderr, "SKIPPED %s: %s\n", test, why);
    /* Each case runs in a forked child: the runner reads this file. */
    FILE *f = fopen(TEST_SKIP_LOG, "a");
    if (f) {
        fprintf(f, "%s: %s\n", test, why);
        fclose(f);
    }
}

int test_force_isa(int isa, const char *what)
{
    if (!tsgs__isa_supported((tsgs__isa)isa)) {
        char test[96];
        snprintf(test, sizeof test, "%s on %s", what,
                 tsgs__isa_name((tsgs__isa)isa));
        test_skip(test, "this CPU (or build) does not have it");
        return 0;
    }
    ck_assert_int_eq(tsgs__isa_force(isa), 0);
    return 1;
}

char *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0, k;
    char *s = malloc(cap);
    while (s && (k = fread(s + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 == cap) {
            char *grown = realloc(s, cap *= 2);
            if (!grown)
                free(s);
            s = grown;
        }
    }
    fclose(f);
    if (!s)
        return NULL;
    s[n] = '\0';
    if (len)
        *len = n;
    return s;
}

tsgs_dataset *test_read_ok(const char *path, const tsgs_read_options *o)
{
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    tsgs__error_clear(&err);
    tsgs_status st = tsgs_dataset_read(path, o, &ds, &err);
    ck_assert_msg(st == TSGS_OK, "%s: %s", path, err.message);
    ck_assert_ptr_nonnull(ds);
    return ds;
}

void test_make_dir(char *dir, size_t size, const char *name)
{
    snprintf(dir, size, "/tmp/tsgs-%s-XXXXXX", name);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

void test_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

void test_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    const size_t len = strlen(text);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

double test_now_s(void) { return tsgs__now_s(); }
