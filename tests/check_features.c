/* Orthogonal random directions (Yu et al. 2016): exactly orthogonal within
 * a group, each still Gaussian on its own (chi lengths), regenerated the
 * same in any order, a smaller kernel error than iid directions at the same
 * count, chosen by "auto" for rbf only, and recorded in model files (files
 * from before the key read as iid). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "internal.h"

static tsgs__fspec spec(size_t d, tsgs_directions directions, uint64_t seed)
{
    tsgs_params p = tsgs_params_default();
    p.sigma = 0.5;
    p.seed = seed;
    p.block_size = 6; /* pair: 3 directions per block, so groups span blocks */
    p.directions = directions;
    return tsgs__fspec_of(&p, d);
}

static void unpack(const tsgs__fspec *fs, long g0, long count, double *W)
{
    const long ng = (count + TSGS__LANES - 1) / TSGS__LANES;
    float *panel = malloc(sizeof(float) * (size_t)ng * TSGS__LANES * fs->d);
    float *phase = malloc(sizeof(float) * (size_t)ng * TSGS__LANES);
    ck_assert_int_eq(tsgs__pack_directions(fs, g0, count, panel, phase), 0);
    for (long i = 0; i < count; i++)
        for (size_t k = 0; k < fs->d; k++)
            W[(size_t)i * fs->d + k] =
                panel[(size_t)(i / TSGS__LANES) * fs->d * TSGS__LANES +
                      k * TSGS__LANES + i % TSGS__LANES];
    free(panel);
    free(phase);
}

static double cosine(const double *a, const double *b, size_t d)
{
    double ab = 0, aa = 0, bb = 0;
    for (size_t k = 0; k < d; k++) {
        ab += a[k] * b[k];
        aa += a[k] * a[k];
        bb += b[k] * b[k];
    }
    return ab / sqrt(aa * bb);
}

START_TEST(auto_means_orthogonal_for_rbf_only)
{
    tsgs_params p = tsgs_params_default();
    ck_assert_int_eq(p.directions, TSGS_DIRECTIONS_AUTO);
    tsgs__fspec fs = tsgs__fspec_of(&p, 10);
    ck_assert_int_eq(fs.orthogonal, 1);
    ck_assert_int_eq(fs.group, 10);
    ck_assert_int_eq(tsgs__fspec_of(&p, 1000).group, TSGS__ORF_GROUP_MAX);
    ck_assert_int_eq(tsgs__fspec_of(&p, 1).orthogonal, 0); /* nothing to be
                                                             orthogonal to */
    p.kernel = TSGS_KERNEL_LAPLACIAN;
    ck_assert_int_eq(tsgs__fspec_of(&p, 10).orthogonal, 0);
    ck_assert_int_eq(tsgs__fspec_of(&p, 10).group, 1);
    p.kernel = TSGS_KERNEL_RBF;
    p.directions = TSGS_DIRECTIONS_IID;
    ck_assert_int_eq(tsgs__fspec_of(&p, 10).orthogonal, 0);

    /* Cauchy directions cannot be made orthogonal: refused, by name. */
    tsgs_error err;
    ck_assert_int_eq(tsgs_params_set(&p, "directions", "orthogonal", &err),
                     TSGS_OK);
    p.kernel = TSGS_KERNEL_LAPLACIAN;
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_ERR_PARAM);
    ck_assert_msg(strstr(err.message, "directions = orthogonal"), "%s",
                  err.message);
    ck_assert_int_eq(tsgs_params_set(&p, "directions", "sideways", &err),
                     TSGS_ERR_PARAM);
    ck_assert_msg(strstr(err.message, "orthogonal"), "%s", err.message);
}
END_TEST

/* Within a group every pair is orthogonal to float precision; directions
 * of different groups are independent, so some pairs are far from it. */
START_TEST(orthogonal_within_groups)
{
    static const size_t dims[] = {2, 7, 130};
    for (int t = 0; t < 3; t++) {
        const size_t d = dims[t];
        tsgs__fspec fs = spec(d, TSGS_DIRECTIONS_ORTHOGONAL, 3);
        const long m = fs.group, count = 3 * m + 5;
        ck_assert_int_eq(m, d < TSGS__ORF_GROUP_MAX ? (long)d
                                                    : TSGS__ORF_GROUP_MAX);
        double *W = malloc(sizeof(double) * (size_t)count * d);
        unpack(&fs, 0, count, W);
        double worst_inside = 0, largest_across = 0;
        for (long i = 0; i < count; i++)
            for (long j = i + 1; j < count; j++) {
                double c = fabs(cosine(W + i * d, W + j * d, d));
                if (i / m == j / m)
                    worst_inside = fmax(worst_inside, c);
                else
                    largest_across = fmax(largest_across, c);
            }
        ck_assert_msg(worst_inside < 2e-6, "d %zu: |cos| %g inside a group",
                      d, worst_inside);
        ck_assert_msg(largest_across > 0.1, "d %zu: |cos| %g across groups",
                      d, largest_across);
        free(W);
    }
}
END_TEST

/* Each direction is N(0, 2 sigma I) on its own: squared length / (2 sigma)
 * is chi-squared with d degrees of freedom (mean d, variance 2d) and each
 * coordinate has mean 0 and variance 2 sigma. */
START_TEST(orthogonal_directions_are_gaussian)
{
    const size_t d = 6;
    tsgs__fspec fs = spec(d, TSGS_DIRECTIONS_ORTHOGONAL, 11);
    const long n = 30000;
    double *W = malloc(sizeof(double) * (size_t)n * d);
    unpack(&fs, 0, n, W);
    double s1 = 0, s2 = 0, c1 = 0, c2 = 0;
    for (long i = 0; i < n; i++) {
        double q = 0;
        for (size_t k = 0; k < d; k++) {
            double w = W[i * d + k];
            q += w * w;
            c1 += w;
            c2 += w * w;
        }
        q /= 2 * fs.sigma;
        s1 += q;
        s2 += q * q;
    }
    double mean = s1 / n, var = s2 / n - mean * mean;
    ck_assert_double_eq_tol(mean, (double)d, 0.1);
    ck_assert_double_eq_tol(var, 2.0 * d, 0.5);
    ck_assert_double_eq_tol(c1 / (n * (double)d), 0.0, 0.02);
    ck_assert_double_eq_tol(c2 / (n * (double)d), 2 * fs.sigma, 0.02);
    free(W);
}
END_TEST

/* Any range, any order, one at a time or packed: the same floats. */
START_TEST(orthogonal_regenerate_in_any_order)
{
    const size_t d = 5;
    tsgs__fspec fs = spec(d, TSGS_DIRECTIONS_ORTHOGONAL, 7);
    const long n = 40;
    double *all = malloc(sizeof(double) * (size_t)n * d);
    double *part = malloc(sizeof(double) * (size_t)n * d);
    unpack(&fs, 0, n, all);
    unpack(&fs, 13, 19, part); /* starts and ends inside groups */
    ck_assert_int_eq(memcmp(all + 13 * d, part, sizeof(double) * 19 * d), 0);
    for (long g = n - 1; g >= 0; g--) {
        float w[5], phase = -1;
        ck_assert_int_eq(
            tsgs__direction(&fs, g / fs.dirs, g % fs.dirs, w, &phase), 0);
        ck_assert(phase == 0.0f);
        for (size_t k = 0; k < d; k++)
            ck_assert(w[k] == (float)all[g * (long)d + (long)k]);
    }
    /* Another seed, other directions. */
    tsgs__fspec other = spec(d, TSGS_DIRECTIONS_ORTHOGONAL, 8);
    unpack(&other, 0, n, part);
    ck_assert(memcmp(all, part, sizeof(double) * n * d) != 0);
    free(all);
    free(part);
}
END_TEST

/* Mean squared error of (1 / D) sum_g cos(w_g . (x - y)) against
 * exp(-sigma |x - y|^2) over pairs of points and seeds. */
static double kernel_mse(size_t d, tsgs_directions directions, long D,
                         double dist)
{
    enum { SEEDS = 40, PAIRS = 20 };
    double *W = malloc(sizeof(double) * (size_t)D * d);
    double *z = malloc(sizeof(double) * d);
    double se = 0;
    for (int s = 0; s < SEEDS; s++) {
        tsgs__fspec fs = spec(d, directions, 1000 + (uint64_t)s);
        unpack(&fs, 0, D, W);
        for (int p = 0; p < PAIRS; p++) {
            /* x - y: a fixed length in a direction that varies */
            double len = 0;
            for (size_t k = 0; k < d; k++) {
                z[k] = sin(1.7 * (double)(k + 1) * (p + 1) + s);
                len += z[k] * z[k];
            }
            for (size_t k = 0; k < d; k++)
                z[k] *= dist / sqrt(len);
            double est = 0;
            for (long g = 0; g < D; g++) {
                double ph = 0;
                for (size_t k = 0; k < d; k++)
                    ph += W[g * (long)d + (long)k] * z[k];
                est += cos(ph);
            }
            est /= (double)D;
            double e = est - exp(-fs.sigma * dist * dist);
            se += e * e;
        }
    }
    free(W);
    free(z);
    return se / (SEEDS * PAIRS);
}

/* At the same number of directions the orthogonal ones estimate the kernel
 * with a smaller error (Yu et al. 2016, Fig. 1: the gain grows with the
 * distance and with d). The iid errors are checked against their
 * closed-form variance so that the comparison is with the right baseline. */
START_TEST(orthogonal_kernel_error_below_iid)
{
    static const size_t dims[] = {4, 16};
    for (int t = 0; t < 2; t++) {
        const size_t d = dims[t];
        const long D = 4 * (long)d;
        const double dist = 1.2; /* sigma 0.5: k = 0.49 */
        double iid = kernel_mse(d, TSGS_DIRECTIONS_IID, D, dist);
        double orf = kernel_mse(d, TSGS_DIRECTIONS_ORTHOGONAL, D, dist);
        /* Var cos(w . z) = (1 + k(2z)) / 2 - k(z)^2, over D directions */
        double k1 = exp(-0.5 * dist * dist), k2 = exp(-0.5 * 4 * dist * dist);
        double want = ((1 + k2) / 2 - k1 * k1) / (double)D;
        ck_assert_msg(iid > 0.75 * want && iid < 1.3 * want,
                      "d %zu: iid mse %g, closed form %g", d, iid, want);
        ck_assert_msg(orf < 0.8 * iid, "d %zu: orthogonal mse %g, iid %g", d,
                      orf, iid);
    }
}
END_TEST

/* The stochastic solvers read a block's directions out of the model's
 * cache: the same floats as regenerating them. */
START_TEST(cached_block_directions_match_regenerated)
{
    tsgs_params p = tsgs_params_default();
    p.sigma = 0.3;
    p.block_size = 10;
    tsgs_model *m = NULL;
    const size_t d = 7;
    ck_assert_int_eq(tsgs__model_new(&p, d, 8, &m, NULL), TSGS_OK);
    ck_assert(m->cache_enabled);
    for (int b = 0; b < 8; b++)
        ck_assert_int_eq(tsgs__model_add_block(m, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs__model_cache_sync(m, NULL), TSGS_OK);
    const size_t size = TSGS__LANES * d;
    float *a = malloc(sizeof(float) * size), *b = malloc(sizeof(float) * size);
    float pa[TSGS__LANES], pb[TSGS__LANES];
    for (long blk = 0; blk < 8; blk++) {
        ck_assert_int_eq(tsgs__model_block_directions(m, blk, a, pa), 0);
        ck_assert_int_eq(
            tsgs__pack_directions(&m->fs, blk * m->fs.dirs, m->fs.dirs, b, pb),
            0);
        ck_assert_int_eq(memcmp(a, b, sizeof(float) * size), 0);
        ck_assert_int_eq(memcmp(pa, pb, sizeof pa), 0);
    }
    free(a);
    free(b);
    tsgs_model_free(m);
}
END_TEST

static char *read_all(const char *path)
{
    char *text = test_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* A model says which directions it used; a file from before the key
 * existed (no "directions" line) was trained on iid ones and loads so. */
START_TEST(model_files_record_the_directions)
{
    tsgs_dataset *ds = fixture_blobs(400, 4, 2.0, 0.5, 40, 20, 5, NULL);
    tsgs_params p = tsgs_params_default();
    p.solver = TSGS_SOLVER_DSG;
    p.c_total = 100;
    p.sigma = 0.3;
    p.max_features = 64;
    tsgs_model *m = NULL, *back = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, &err), TSGS_OK);
    ck_assert_int_eq(tsgs_model_save(m, "tmp_orf.model", &err), TSGS_OK);
    char *text = read_all("tmp_orf.model");
    ck_assert_ptr_nonnull(strstr(text, "\ndirections orthogonal\n"));

    /* The same file without the line: iid directions, other predictions. */
    char *line = strstr(text, "\ndirections orthogonal\n");
    memmove(line, line + strlen("\ndirections orthogonal"),
            strlen(line + strlen("\ndirections orthogonal")) + 1);
    FILE *f = fopen("tmp_orf_old.model", "wb");
    fputs(text, f);
    fclose(f);
    ck_assert_int_eq(tsgs_model_load("tmp_orf_old.model", &back, &err),
                     TSGS_OK);
    ck_assert_int_eq(back->fs.orthogonal, 0);
    size_t n = tsgs_dataset_rows(ds);
    double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
    ck_assert_int_eq(tsgs_predict(m, ds, 1, a, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs_predict(back, ds, 1, b, NULL), TSGS_OK);
    ck_assert(memcmp(a, b, sizeof(double) * n) != 0);
    tsgs_model_free(back);

    /* Asking for iid writes it, and the file loads back as iid. */
    p.directions = TSGS_DIRECTIONS_IID;
    tsgs_model_free(m);
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, &err), TSGS_OK);
    ck_assert_int_eq(tsgs_model_save(m, "tmp_orf.model", &err), TSGS_OK);
    free(text);
    text = read_all("tmp_orf.model");
    ck_assert_ptr_nonnull(strstr(text, "\ndirections iid\n"));
    ck_assert_int_eq(tsgs_model_load("tmp_orf.model", &back, &err), TSGS_OK);
    ck_assert_int_eq(back->fs.orthogonal, 0);
    free(text);
    free(a);
    free(b);
    tsgs_model_free(m);
    tsgs_model_free(back);
    tsgs_dataset_free(ds);
    remove("tmp_orf.model");
    remove("tmp_orf_old.model");
}
END_TEST

/* With no budget given, the safe solver's feature count follows the rows'
 * dimension: 1024 up to TSGS__WIDE_DIMENSIONS features, 2048 above; the
 * stochastic solvers take max(1024, ceil(sqrt(n))) whatever the dimension;
 * a budget given wins. Then end to end: the safe solver's model on wide
 * and on narrow rows. */
/* The packer writes every lane below count and zeroes the last group's
 * unused lanes, whatever the panel held (it no longer clears the whole
 * panel first): the same bits as packing into a zeroed panel. */
START_TEST(packing_overwrites_whatever_the_panel_held)
{
    const long counts[] = {1, TSGS__LANES - 1, TSGS__LANES, 2 * TSGS__LANES + 3};
    for (int orth = 0; orth <= 1; orth++)
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
            tsgs__fspec fs = spec(13, orth ? TSGS_DIRECTIONS_ORTHOGONAL
                                           : TSGS_DIRECTIONS_IID, 7);
            const long count = counts[c];
            const size_t ng = (size_t)(count + TSGS__LANES - 1) / TSGS__LANES;
            const size_t np = ng * TSGS__LANES * fs.d, nf = ng * TSGS__LANES;
            float *clean = calloc(np, sizeof(float));
            float *dirty = malloc(sizeof(float) * np);
            float *pc = calloc(nf, sizeof(float));
            float *pd = malloc(sizeof(float) * nf);
            ck_assert(clean && dirty && pc && pd);
            for (size_t i = 0; i < np; i++)
                dirty[i] = NAN;
            for (size_t i = 0; i < nf; i++)
                pd[i] = 12345.0f;
            ck_assert_int_eq(tsgs__pack_directions(&fs, 5, count, clean, pc), 0);
            ck_assert_int_eq(tsgs__pack_directions(&fs, 5, count, dirty, pd), 0);
            ck_assert_int_eq(memcmp(clean, dirty, sizeof(float) * np), 0);
            ck_assert_int_eq(memcmp(pc, pd, sizeof(float) * nf), 0);
            /* the unused lanes are zero, the used ones are not */
            for (size_t k = 0; k < fs.d; k++)
                for (long lane = 0; lane < TSGS__LANES; lane++) {
                    float v = dirty[(ng - 1) * fs.d * TSGS__LANES +
                                    k * TSGS__LANES + (size_t)lane];
                    long i = (long)(ng - 1) * TSGS__LANES + lane;
                    if (i >= count)
                        ck_assert(v == 0.0f);
                    else
                        ck_assert(isfinite(v) && v != 0.0f);
                }
            free(clean);
            free(dirty);
            free(pc);
            free(pd);
        }
}
END_TEST

START_TEST(auto_feature_count_follows_the_dimension)
{
    tsgs_params p = tsgs_params_default(); /* safe, max-features -1 */
    ck_assert_int_eq(tsgs__auto_features(&p, 3), 1024);
    ck_assert_int_eq(tsgs__auto_features(&p, TSGS__WIDE_DIMENSIONS), 1024);
    ck_assert_int_eq(tsgs__auto_features(&p, TSGS__WIDE_DIMENSIONS + 1),
                     2048);
    ck_assert_int_eq(tsgs__auto_features(&p, 1024), 2048);
    ck_assert_int_eq(tsgs__default_features(&p, 5000000, 18), 1024);
    ck_assert_int_eq(tsgs__default_features(&p, 5000000, 300), 2048);
    ck_assert_int_eq(tsgs__first_features(&p, 300), 2048);
    p.solver = TSGS_SOLVER_TSG;
    ck_assert_int_eq(tsgs__auto_features(&p, 300), 1024);
    ck_assert_int_eq(tsgs__first_features(&p, 300), 1024);
    ck_assert_int_eq(tsgs__default_features(&p, 5000000, 18), 2237);
    ck_assert_int_eq(tsgs__default_features(&p, 2500, 300), 1024);
    ck_assert_int_eq(tsgs__default_features(&p, 9000000, 300), 3000);
    p.max_features = 50;
    ck_assert_int_eq(tsgs__default_features(&p, 2500, 300), 50);
    ck_assert_int_eq(tsgs__first_features(&p, 300), 50);

    const size_t dims[2] = {TSGS__WIDE_DIMENSIONS, TSGS__WIDE_DIMENSIONS + 1};
    for (int k = 0; k < 2; k++) {
        tsgs_dataset *ds =
            fixture_blobs(160, dims[k], 2.0, 0.5, 40, 20, 3, NULL);
        tsgs_params q = tsgs_params_default();
        q.threads = 1;
        q.bind = TSGS_BIND_NONE;
        tsgs_model *m = NULL;
        tsgs_error err;
        ck_assert_int_eq(tsgs_train(ds, &q, NULL, &m, NULL, &err), TSGS_OK);
        ck_assert_int_eq(tsgs_model_feature_count(m), k ? 2048 : 1024);
        ck_assert_int_eq(m->params.max_features, k ? 2048 : 1024);
        tsgs_model_free(m);
        tsgs_dataset_free(ds);
    }
}
END_TEST

Suite *features_suite(void)
{
    Suite *s = suite_create("features");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, auto_means_orthogonal_for_rbf_only);
    tcase_add_test(tc, orthogonal_within_groups);
    tcase_add_test(tc, orthogonal_directions_are_gaussian);
    tcase_add_test(tc, orthogonal_regenerate_in_any_order);
    tcase_add_test(tc, orthogonal_kernel_error_below_iid);
    tcase_add_test(tc, cached_block_directions_match_regenerated);
    tcase_add_test(tc, model_files_record_the_directions);
    tcase_add_test(tc, auto_feature_count_follows_the_dimension);
    tcase_add_test(tc, packing_overwrites_whatever_the_panel_held);
    suite_add_tcase(s, tc);
    return s;
}
