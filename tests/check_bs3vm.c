/* The BS3VM peer solver: its decision function against a brute-force sum
 * over the support vectors; the two budgets under each maintenance rule;
 * removal of the smallest |alpha|; the NNP / RNP projection against a
 * direct least-squares solve and the values of f it preserves; model
 * files; thread counts; accuracy on blobs and the graph term's effect. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "internal.h"

static tsgs_params bs_params(void)
{
    tsgs_params p = tsgs_params_default();
    p.solver = TSGS_SOLVER_BS3VM;
    p.c_total = 100.0;
    p.budget_labeled = 15;
    p.budget_unlabeled = 40;
    p.iterations = 1500;
    p.threads = 1;
    p.bind = TSGS_BIND_NONE;
    return p;
}

static double *decisions(const tsgs_model *m, const tsgs_dataset *ds,
                         int threads)
{
    double *d = malloc(sizeof(double) * tsgs_dataset_rows(ds));
    ck_assert_int_eq(tsgs_predict(m, ds, threads, d, NULL), TSGS_OK);
    return d;
}

/* exp(-sigma |a - b|^2), written out here apart from the library's. */
static double rbf(double sigma, const float *a, const float *b, size_t d)
{
    double s = 0.0;
    for (size_t k = 0; k < d; k++)
        s += ((double)a[k] - b[k]) * ((double)a[k] - b[k]);
    return exp(-sigma * s);
}

START_TEST(decision_is_the_kernel_sum)
{
    tsgs_dataset *ds = fixture_blobs(600, 4, 2.0, 0.5, 30, 15, 3, NULL);
    tsgs_params p = bs_params();
    tsgs_model *m = NULL;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, NULL), TSGS_OK);
    const tsgs__bs3vm *b = m->bs3vm;
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_gt(b->n_sv, 10);
    ck_assert_int_eq(tsgs_model_feature_count(m), (long)b->n_sv);
    double *dec = decisions(m, ds, 1);
    float x[4];
    for (size_t i = 0; i < tsgs_dataset_rows(ds); i++) {
        tsgs__scaler_apply(&m->scaler, tsgs_dataset_row(ds, i), 4, x);
        double f = 0.0;
        for (size_t j = 0; j < b->n_sv; j++)
            f += b->alpha[j] * rbf(b->sigma, b->x + j * 4, x, 4);
        ck_assert_double_eq_tol(dec[i], f, 1e-12 * (1.0 + fabs(f)));
    }
    free(dec);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
}
END_TEST

typedef struct {
    long max_seen, limit, calls;
} watch_t;

static void watch(const tsgs_progress *pr, void *user)
{
    watch_t *w = user;
    w->calls++;
    if (pr->features > w->max_seen)
        w->max_seen = pr->features;
}

/* Rows of ds whose scaled features equal support vector j: 1 if such a
 * row is labeled, 0 if unlabeled, -1 if none. */
static int portion_of(const tsgs_model *m, const tsgs_dataset *ds, size_t j)
{
    size_t d = tsgs_dataset_features(ds);
    float *x = malloc(sizeof(float) * d);
    int found = -1;
    for (size_t i = 0; i < tsgs_dataset_rows(ds) && found < 0; i++) {
        tsgs__scaler_apply(&m->scaler, tsgs_dataset_row(ds, i), d, x);
        if (memcmp(x, m->bs3vm->x + j * d, sizeof(float) * d) == 0)
            found = !tsgs_is_unlabeled(tsgs_dataset_label(ds, i));
    }
    free(x);
    return found;
}

START_TEST(budgets_hold_for_every_rule)
{
    tsgs_dataset *ds = fixture_blobs(500, 3, 2.0, 0.5, 40, 20, 5, NULL);
    for (int rule = TSGS_BUDGET_REMOVE; rule <= TSGS_BUDGET_RNP; rule++) {
        tsgs_params p = bs_params();
        p.maintenance = (tsgs_budget_rule)rule;
        p.budget_labeled = 12;
        p.budget_unlabeled = 30;
        p.iterations = 800;
        p.neighbours = 4;
        watch_t w = {0, 0, 0};
        tsgs_train_hooks h;
        memset(&h, 0, sizeof h);
        h.progress = watch;
        h.progress_every = 1;
        h.user = &w;
        tsgs_model *m = NULL;
        ck_assert_int_eq(tsgs_train(ds, &p, &h, &m, NULL, NULL), TSGS_OK);
        ck_assert_int_eq(w.calls, 800);
        ck_assert_int_le(w.max_seen, 12 + 30);
        size_t nl = 0, nu = 0;
        for (size_t j = 0; j < m->bs3vm->n_sv; j++) {
            int por = portion_of(m, ds, j);
            ck_assert_int_ge(por, 0);
            nl += por == 1;
            nu += por == 0;
        }
        /* 800 steps fill both portions to their budgets, never past */
        ck_assert_uint_eq(nl, 12);
        ck_assert_uint_eq(nu, 30);
        tsgs_model_free(m);
    }
    tsgs_dataset_free(ds);
}
END_TEST

/* A small model by hand: n vectors in d = 2 spread over a grid. */
static tsgs__bs3vm *hand_model(size_t n, double sigma, unsigned char *lab)
{
    tsgs__bs3vm *b = calloc(1, sizeof *b);
    b->d = 2;
    b->n_sv = b->cap = n;
    b->kernel = TSGS_KERNEL_RBF;
    b->sigma = sigma;
    b->x = malloc(sizeof(float) * n * 2);
    b->alpha = malloc(sizeof(double) * n);
    for (size_t j = 0; j < n; j++) {
        b->x[2 * j] = (float)(0.37 * (double)(j % 5) + 0.05 * (double)j);
        b->x[2 * j + 1] = (float)(0.41 * (double)(j / 5) - 0.03 * (double)j);
        b->alpha[j] = (j % 3 ? 1.0 : -1.0) * (0.5 + 0.173 * (double)((j * 7) % 11));
        lab[j] = j % 2;
    }
    return b;
}

static double f_at(const tsgs__bs3vm *b, const float *x, size_t skip)
{
    double f = 0.0;
    for (size_t j = 0; j < b->n_sv; j++)
        if (j != skip)
            f += b->alpha[j] * rbf(b->sigma, b->x + j * 2, x, 2);
    return f;
}

START_TEST(removal_takes_smallest_alpha_of_the_portion)
{
    unsigned char lab[20];
    tsgs__bs3vm *b = hand_model(20, 1.0, lab);
    b->alpha[7] = 0.01;  /* smallest overall, labeled (7 % 2 == 1) */
    b->alpha[4] = -0.02; /* smallest unlabeled */
    double before[20];
    memcpy(before, b->alpha, sizeof before);
    size_t nb[4], used = 9;
    double nd[4], K[16], kr[4];
    tsgs__bs3vm_scratch sc = {nb, nd, K, kr};
    uint64_t rc = 0;
    ck_assert_uint_eq(tsgs__bs3vm_maintain(b, lab, 1, TSGS_BUDGET_REMOVE, 4,
                                           1, &rc, &sc, &used), 7);
    ck_assert_uint_eq(used, 0);
    ck_assert_uint_eq(tsgs__bs3vm_maintain(b, lab, 0, TSGS_BUDGET_REMOVE, 4,
                                           1, &rc, &sc, &used), 4);
    ck_assert_int_eq(memcmp(before, b->alpha, sizeof before), 0);
    tsgs__bs3vm_free(b);
}
END_TEST

/* Solves A c = r (n x n, A symmetric) by Gaussian elimination with
 * partial pivoting: the normal equations of min |Phi_r - sum c_j Phi_j|. */
static void solve(double *A, double *r, size_t n)
{
    for (size_t c = 0; c < n; c++) {
        size_t piv = c;
        for (size_t i = c + 1; i < n; i++)
            if (fabs(A[i * n + c]) > fabs(A[piv * n + c]))
                piv = i;
        for (size_t k = 0; k < n; k++) {
            double t = A[c * n + k];
            A[c * n + k] = A[piv * n + k];
            A[piv * n + k] = t;
        }
        double t = r[c];
        r[c] = r[piv];
        r[piv] = t;
        for (size_t i = c + 1; i < n; i++) {
            double q = A[i * n + c] / A[c * n + c];
            for (size_t k = c; k < n; k++)
                A[i * n + k] -= q * A[c * n + k];
            r[i] -= q * r[c];
        }
    }
    for (size_t i = n; i-- > 0;) {
        double v = r[i];
        for (size_t k = i + 1; k < n; k++)
            v -= A[i * n + k] * r[k];
        r[i] = v / A[i * n + i];
    }
}

static void check_projection(tsgs_budget_rule rule)
{
    unsigned char lab[20];
    tsgs__bs3vm *b = hand_model(20, 0.8, lab);
    double before[20];
    memcpy(before, b->alpha, sizeof before);
    size_t nb[3], used = 0;
    double nd[3], K[9], kr[3];
    tsgs__bs3vm_scratch sc = {nb, nd, K, kr};
    uint64_t rc = 0;
    size_t r = tsgs__bs3vm_maintain(b, lab, 0, rule, 3, 42, &rc, &sc,
                                    &used);
    ck_assert_uint_eq(used, 3);
    /* r: the smallest |alpha| among the unlabeled (even) slots */
    for (size_t j = 0; j < 20; j += 2)
        ck_assert(fabs(before[r]) <= fabs(before[j]));
    ck_assert_uint_eq(lab[r], 0);
    for (size_t i = 0; i < 3; i++) {
        ck_assert_uint_ne(nb[i], r);
        for (size_t q = 0; q < i; q++)
            ck_assert_uint_ne(nb[i], nb[q]);
    }
    if (rule == TSGS_BUDGET_NNP) { /* no other vector is nearer */
        double far = 0.0;
        for (size_t i = 0; i < 3; i++) {
            double dd = 0.0;
            for (int k = 0; k < 2; k++) {
                double t = (double)b->x[nb[i] * 2 + k] - b->x[r * 2 + k];
                dd += t * t;
            }
            far = dd > far ? dd : far;
        }
        for (size_t j = 0; j < 20; j++) {
            if (j == r || j == nb[0] || j == nb[1] || j == nb[2])
                continue;
            double dd = 0.0;
            for (int k = 0; k < 2; k++) {
                double t = (double)b->x[j * 2 + k] - b->x[r * 2 + k];
                dd += t * t;
            }
            ck_assert(dd >= far);
        }
    }
    /* the coefficients added are alpha_r times the least-squares c */
    double A[9], c[3];
    for (size_t i = 0; i < 3; i++) {
        c[i] = rbf(0.8, b->x + nb[i] * 2, b->x + r * 2, 2);
        for (size_t q = 0; q < 3; q++)
            A[i * 3 + q] = rbf(0.8, b->x + nb[i] * 2, b->x + nb[q] * 2, 2);
    }
    solve(A, c, 3);
    for (size_t i = 0; i < 3; i++)
        ck_assert_double_eq_tol((b->alpha[nb[i]] - before[nb[i]]) / before[r],
                                c[i], 1e-6 * (1.0 + fabs(c[i])));
    /* others untouched; f on the k vectors is what it was with sv_r */
    for (size_t j = 0; j < 20; j++)
        if (j != nb[0] && j != nb[1] && j != nb[2])
            ck_assert(b->alpha[j] == before[j]);
    tsgs__bs3vm *orig = hand_model(20, 0.8, lab);
    for (size_t i = 0; i < 3; i++) {
        const float *x = b->x + nb[i] * 2;
        ck_assert_double_eq_tol(f_at(b, x, r), f_at(orig, x, (size_t)-1),
                                1e-6);
    }
    tsgs__bs3vm_free(orig);
    tsgs__bs3vm_free(b);
}

START_TEST(nnp_projection_is_least_squares)
{
    check_projection(TSGS_BUDGET_NNP);
}
END_TEST

START_TEST(rnp_projection_is_least_squares)
{
    check_projection(TSGS_BUDGET_RNP);
}
END_TEST

START_TEST(save_load_predict_identical)
{
    tsgs_dataset *ds = fixture_blobs(400, 3, 2.0, 0.5, 20, 10, 8, NULL);
    tsgs_params p = bs_params();
    p.maintenance = TSGS_BUDGET_NNP;
    tsgs_model *m = NULL, *back = NULL;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, NULL), TSGS_OK);
    tsgs_error err;
    ck_assert_int_eq(tsgs_model_save(m, "tmp_bs3vm.txt", &err), TSGS_OK);
    ck_assert_int_eq(tsgs_model_load("tmp_bs3vm.txt", &back, &err), TSGS_OK);
    ck_assert_ptr_nonnull(back->bs3vm);
    ck_assert_int_eq(back->params.solver, TSGS_SOLVER_BS3VM);
    ck_assert_int_eq(back->params.maintenance, TSGS_BUDGET_NNP);
    ck_assert_int_eq(tsgs_model_feature_count(back), tsgs_model_feature_count(m));
    double *a = decisions(m, ds, 1), *b = decisions(back, ds, 2);
    ck_assert_int_eq(memcmp(a, b, sizeof(double) * tsgs_dataset_rows(ds)), 0);
    free(a);
    free(b);
    tsgs_model_free(back);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
    remove("tmp_bs3vm.txt");
}
END_TEST

START_TEST(truncated_or_corrupt_file_refused)
{
    tsgs_dataset *ds = fixture_blobs(300, 3, 2.0, 0.5, 20, 10, 8, NULL);
    tsgs_params p = bs_params();
    p.iterations = 300;
    tsgs_model *m = NULL, *back = NULL;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs_model_save(m, "tmp_bs3vm_t.txt", NULL), TSGS_OK);
    FILE *f = fopen("tmp_bs3vm_t.txt", "rb");
    char *buf = malloc(1 << 20);
    size_t len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    buf[len] = '\0';
    char *sv = strstr(buf, "\nsupport-vectors ");
    ck_assert_ptr_nonnull(sv);
    long sv_line = 2; /* line of "support-vectors" */
    for (char *c = buf; c < sv; c++)
        sv_line += *c == '\n';
    tsgs_error err;
    /* cut after the second support vector line: the rest of the file
     * cannot hold the count announced, refused on its line */
    char *cut = strchr(strchr(strchr(sv + 1, '\n') + 1, '\n') + 1, '\n') + 1;
    f = fopen("tmp_bs3vm_t.txt", "wb");
    fwrite(buf, 1, (size_t)(cut - buf), f);
    fclose(f);
    ck_assert_int_eq(tsgs_model_load("tmp_bs3vm_t.txt", &back, &err),
                     TSGS_ERR_FORMAT);
    ck_assert_ptr_null(back);
    ck_assert_str_eq(err.file, "tmp_bs3vm_t.txt");
    ck_assert_int_eq(err.line, sv_line);
    ck_assert_msg(strstr(err.message, "support-vectors: ") &&
                      strstr(err.message, " announced, but the "),
                  "%s", err.message);
    /* cut before the last one: bytes enough, a line short */
    const long nsv = tsgs_model_feature_count(m);
    ck_assert_int_gt(nsv, 2);
    cut = buf + len - strlen("end\n") - 1;
    while (cut[-1] != '\n')
        cut--;
    f = fopen("tmp_bs3vm_t.txt", "wb");
    fwrite(buf, 1, (size_t)(cut - buf), f);
    fclose(f);
    ck_assert_int_eq(tsgs_model_load("tmp_bs3vm_t.txt", &back, &err),
                     TSGS_ERR_FORMAT);
    ck_assert_ptr_null(back);
    ck_assert_int_eq(err.line, sv_line + nsv - 1);
    ck_assert_msg(strstr(err.message, "truncated"), "%s", err.message);
    /* a bad number on the first support-vector line */
    char *first = strchr(sv + 1, '\n') + 1;
    f = fopen("tmp_bs3vm_t.txt", "wb");
    fwrite(buf, 1, (size_t)(first - buf), f);
    fputs("0.5 1 2 x3\n", f);
    fputs(strchr(first, '\n') + 1, f);
    fclose(f);
    ck_assert_int_eq(tsgs_model_load("tmp_bs3vm_t.txt", &back, &err),
                     TSGS_ERR_FORMAT);
    ck_assert_int_eq(err.line, sv_line + 1);
    /* no "end" line */
    f = fopen("tmp_bs3vm_t.txt", "wb");
    fwrite(buf, 1, len - 4, f);
    fclose(f);
    ck_assert_int_eq(tsgs_model_load("tmp_bs3vm_t.txt", &back, &err),
                     TSGS_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "end"));
    free(buf);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
    remove("tmp_bs3vm_t.txt");
}
END_TEST

START_TEST(one_and_two_threads_identical)
{
    tsgs_dataset *ds = fixture_blobs(2000, 5, 1.5, 0.5, 40, 20, 11, NULL);
    tsgs_params p = bs_params();
    p.budget_unlabeled = 700; /* several chunks of support vectors */
    p.iterations = 1200;
    tsgs_model *m1 = NULL, *m2 = NULL;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m1, NULL, NULL), TSGS_OK);
    p.threads = 2;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m2, NULL, NULL), TSGS_OK);
    ck_assert_uint_gt(m1->bs3vm->n_sv, 256);
    ck_assert_uint_eq(m1->bs3vm->n_sv, m2->bs3vm->n_sv);
    ck_assert_int_eq(memcmp(m1->bs3vm->alpha, m2->bs3vm->alpha,
                            sizeof(double) * m1->bs3vm->n_sv), 0);
    double *a = decisions(m1, ds, 1), *b = decisions(m1, ds, 2);
    ck_assert_int_eq(memcmp(a, b, sizeof(double) * tsgs_dataset_rows(ds)), 0);
    free(a);
    free(b);
    tsgs_model_free(m1);
    tsgs_model_free(m2);
    tsgs_dataset_free(ds);
}
END_TEST

static double accuracy(const tsgs_model *m, const tsgs_dataset *ds,
                       const double *truth)
{
    double *dec = decisions(m, ds, 1);
    size_t n = tsgs_dataset_rows(ds), ok = 0;
    for (size_t i = 0; i < n; i++)
        ok += (dec[i] > 0) == (truth[i] > 0);
    free(dec);
    return (double)ok / (double)n;
}

/* 20 labels of 1500 rows: every rule above 0.85 (measured: about 0.92);
 * the graph term (C' = C against C' = 0) changes the model. */
START_TEST(blobs_accuracy_and_graph_term)
{
    double *truth = NULL;
    tsgs_dataset *ds = fixture_blobs(1500, 4, 1.5, 0.5, 20, 10, 17, &truth);
    double acc[3];
    for (int rule = 0; rule < 3; rule++) {
        tsgs_params p = bs_params();
        p.maintenance = (tsgs_budget_rule)rule;
        p.budget_labeled = 0;
        p.budget_unlabeled = 100;
        p.iterations = 3000;
        tsgs_model *m = NULL;
        ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, NULL), TSGS_OK);
        acc[rule] = accuracy(m, ds, truth);
        ck_assert_msg(acc[rule] > 0.85, "rule %d: accuracy %.3f", rule,
                      acc[rule]);
        if (rule == 0) {
            tsgs_model *m0 = NULL;
            p.c_prime = 0.0;
            ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m0, NULL, NULL),
                             TSGS_OK);
            /* no graph term: only labeled support vectors */
            ck_assert_uint_le(m0->bs3vm->n_sv, 20);
            ck_assert_uint_gt(m->bs3vm->n_sv, 20);
            double *a = decisions(m, ds, 1), *b = decisions(m0, ds, 1);
            size_t differ = 0;
            for (size_t i = 0; i < tsgs_dataset_rows(ds); i++)
                differ += fabs(a[i] - b[i]) > 1e-6;
            ck_assert_uint_gt(differ, 100);
            fprintf(stderr, "bs3vm blobs: C'=C %.3f, C'=0 %.3f\n", acc[0],
                    accuracy(m0, ds, truth));
            free(a);
            free(b);
            tsgs_model_free(m0);
        }
        tsgs_model_free(m);
    }
    free(truth);
    tsgs_dataset_free(ds);
}
END_TEST

/* Defaults resolved into the model: B_u = ceil(0.2 n_u), C = 1000 / n_l
 * per labeled row (a total of 1000), C' = that total, T from passes * n. */
START_TEST(defaults_resolved)
{
    tsgs_dataset *ds = fixture_blobs(300, 2, 2.0, 0.5, 20, 10, 2, NULL);
    tsgs_params p = tsgs_params_default();
    p.solver = TSGS_SOLVER_BS3VM;
    p.threads = 1;
    p.bind = TSGS_BIND_NONE;
    ck_assert_int_eq(tsgs_train_steps(ds, &p), 300);
    tsgs_model *m = NULL;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, NULL), TSGS_OK);
    const tsgs_params *q = tsgs_model_params(m);
    ck_assert_int_eq(q->budget_unlabeled, 56); /* ceil(0.2 * 280) */
    ck_assert_double_eq(q->c, 1000.0 / 20.0);
    ck_assert_double_eq(q->c_total, 0.0);
    ck_assert(q->c_prime == 1000.0);
    ck_assert_int_eq(q->iterations, 300);
    ck_assert_uint_le(m->bs3vm->n_sv, 20 + 56);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
}
END_TEST

/* exp(-sigma |a - b|_1), the Laplacian kernel, written out here. */
static double laplacian(double sigma, const float *a, const float *b,
                        size_t d)
{
    double s = 0.0;
    for (size_t k = 0; k < d; k++)
        s += fabs((double)a[k] - b[k]);
    return exp(-sigma * s);
}

/* Reads a support-vector section from text (its "support-vectors N" line
 * first, as a model file has it); *line gets the last line read. */
static tsgs_status read_section(const char *text, long n_sv, size_t d,
                                tsgs__bs3vm **out, long *line,
                                tsgs_error *err)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    rewind(f);
    long n = -1;
    ck_assert_int_eq(fscanf(f, "support-vectors %ld\n", &n), 1);
    ck_assert_int_eq(n, n_sv);
    *line = 1;
    tsgs_status st = tsgs__bs3vm_read(f, "sv.txt", line, n_sv, d,
                                      TSGS_KERNEL_LAPLACIAN, 0.7, out, err);
    fclose(f);
    return st;
}

/* A Laplacian-kernel expansion of 1500 support vectors (more than the
 * 1024 a model file's section starts with, and grown from a capacity of
 * one): its decision values on one and two threads against the sum
 * written out; its section written and read back exactly (every alpha and
 * value, the line count); a value that is not a float, text after the
 * last value, refused with the line and what is wrong. */
START_TEST(laplacian_section_round_trip)
{
    const size_t d = 3, nsv = 1500, n = 25;
    tsgs__bs3vm *b = NULL;
    ck_assert_int_eq(tsgs__bs3vm_new(d, 0, TSGS_KERNEL_LAPLACIAN, 0.7, &b,
                                     NULL),
                     TSGS_OK);
    ck_assert_uint_eq(b->cap, 1);
    ck_assert_int_eq(tsgs__bs3vm_reserve(b, 1, NULL), TSGS_OK);
    ck_assert_uint_eq(b->cap, 1);
    ck_assert_int_eq(tsgs__bs3vm_reserve(b, nsv, NULL), TSGS_OK);
    ck_assert_uint_eq(b->cap, nsv);
    for (size_t j = 0; j < nsv; j++) {
        b->alpha[j] = sin(0.37 * (double)j) / 7.0;
        for (size_t k = 0; k < d; k++)
            b->x[j * d + k] = (float)cos(0.11 * (double)(j * d + k));
    }
    b->n_sv = nsv;
    float X[25 * 3];
    for (size_t i = 0; i < n * d; i++)
        X[i] = (float)(0.05 * (double)i - 1.5);
    double dec1[25], dec2[25];
    tsgs__bs3vm_decision(b, X, n, 1, dec1);
    tsgs__bs3vm_decision(b, X, n, 2, dec2);
    for (size_t i = 0; i < n; i++) {
        double want = 0.0;
        for (size_t j = 0; j < nsv; j++)
            want += b->alpha[j] * laplacian(0.7, b->x + j * d, X + i * d, d);
        ck_assert_double_eq_tol(dec1[i], want, 1e-12 * (1.0 + fabs(want)));
        ck_assert(dec1[i] == dec2[i]);
    }

    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    ck_assert_ptr_nonnull(f);
    tsgs__bs3vm_write(f, b);
    ck_assert_int_eq(fclose(f), 0);
    tsgs__bs3vm *back = NULL;
    long line = 0;
    tsgs_error err;
    ck_assert_msg(read_section(text, (long)nsv, d, &back, &line, &err) ==
                      TSGS_OK,
                  "%s", err.message);
    ck_assert_int_eq(line, (long)nsv + 2); /* the sv lines and "end" */
    ck_assert_uint_eq(back->n_sv, nsv);
    ck_assert_uint_ge(back->cap, nsv);
    ck_assert_int_eq(back->kernel, TSGS_KERNEL_LAPLACIAN);
    for (size_t j = 0; j < nsv; j++) {
        ck_assert(back->alpha[j] == b->alpha[j]);
        for (size_t k = 0; k < d; k++)
            ck_assert(back->x[j * d + k] == b->x[j * d + k]);
    }
    tsgs__bs3vm_free(back);
    free(text);
    tsgs__bs3vm_free(b);

    back = NULL;
    ck_assert_int_eq(read_section("support-vectors 2\n0.5 1 2 3\n"
                                  "0.25 1 2 1e39\nend\n",
                                  2, d, &back, &line, &err),
                     TSGS_ERR_FORMAT);
    ck_assert_ptr_null(back);
    ck_assert_str_eq(err.message, "sv.txt:3: support vector: value 4 of 4 "
                                  "is missing or not a finite number");
    ck_assert_int_eq(read_section("support-vectors 2\n0.5 1 2 3 \n"
                                  "0.25 1 2 3 junk\nend\n",
                                  2, d, &back, &line, &err),
                     TSGS_ERR_FORMAT);
    ck_assert_ptr_null(back);
    ck_assert_str_eq(err.message, "sv.txt:3: support vector: unexpected "
                                  "text \"junk\" after 4 values");
    ck_assert_int_eq(read_section("support-vectors 0\nend\n", 0, d, &back,
                                  &line, &err),
                     TSGS_OK);
    ck_assert_uint_eq(back->n_sv, 0);
    tsgs__bs3vm_free(back);
}
END_TEST

/* A model file whose "support-vectors" count is not a count in
 * [0, 2^40] (a word, negative, past the limit, a fraction) is refused
 * with its line and the value, before any support vector is read. */
START_TEST(bad_support_vector_count_refused)
{
    tsgs_dataset *ds = fixture_blobs(200, 3, 2.0, 0.5, 20, 10, 9, NULL);
    tsgs_params p = bs_params();
    p.iterations = 200;
    tsgs_model *m = NULL, *back = NULL;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, NULL), TSGS_OK);
    const char *path = "tmp_bs3vm_count.txt";
    ck_assert_int_eq(tsgs_model_save(m, path, NULL), TSGS_OK);
    char *text = test_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    char *sv = strstr(text, "\nsupport-vectors ");
    ck_assert_ptr_nonnull(sv);
    long sv_line = 2;
    for (char *c = text; c < sv; c++)
        sv_line += *c == '\n';
    char *rest = strchr(sv + 1, '\n');
    static const char *const bad[] = {"x", "-3", "1099511627777", "2.5",
                                      ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        fwrite(text, 1, (size_t)(sv - text), f);
        fprintf(f, "\nsupport-vectors %s%s", bad[i], rest);
        ck_assert_int_eq(fclose(f), 0);
        tsgs_error err;
        ck_assert_int_eq(tsgs_model_load(path, &back, &err), TSGS_ERR_FORMAT);
        ck_assert_ptr_null(back);
        ck_assert_int_eq(err.line, sv_line);
        char want[160];
        snprintf(want, sizeof want, "%s:%ld: support-vectors: \"%s\" is not "
                                    "a count in [0, 1099511627776]",
                 path, sv_line, bad[i]);
        ck_assert_str_eq(err.message, want);
    }
    free(text);
    remove(path);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
}
END_TEST

Suite *bs3vm_suite(void)
{
    Suite *s = suite_create("bs3vm");
    TCase *tc = tcase_create("bs3vm");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, decision_is_the_kernel_sum);
    tcase_add_test(tc, budgets_hold_for_every_rule);
    tcase_add_test(tc, removal_takes_smallest_alpha_of_the_portion);
    tcase_add_test(tc, nnp_projection_is_least_squares);
    tcase_add_test(tc, rnp_projection_is_least_squares);
    tcase_add_test(tc, save_load_predict_identical);
    tcase_add_test(tc, truncated_or_corrupt_file_refused);
    tcase_add_test(tc, one_and_two_threads_identical);
    tcase_add_test(tc, blobs_accuracy_and_graph_term);
    tcase_add_test(tc, defaults_resolved);
    tcase_add_test(tc, laplacian_section_round_trip);
    tcase_add_test(tc, bad_support_vector_count_refused);
    suite_add_tcase(s, tc);
    return s;
}
