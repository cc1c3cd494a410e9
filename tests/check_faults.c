/* Out of memory anywhere: every allocation of a call, failed one at a time
 * (tests/fault_alloc.c), makes the call return TSGS_ERR_NOMEM with its
 * message, leave its outputs untouched and free what it took (the ASan
 * build finds leaks), or succeed when the library has a fallback; never a
 * crash. Each operation runs once unarmed to count its allocations. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_alloc.h"
#include "fixtures.h"
#include "tsgs3vm.h"

#define SENTINEL ((void *)0x1)

/* One operation under test: returns its status; *out (when it makes an
 * object) is written only on success. */
typedef tsgs_status (*op_fn)(void *ctx, void **out, tsgs_error *err);
typedef void (*free_fn)(void *obj);

/* About this many runs per operation at most: the first 64 allocations
 * fail one by one, later ones at evenly spaced counts (the safe solver
 * makes over 3000). */
#define MAX_RUNS 150

static void fail_each_allocation(const char *name, op_fn op, void *ctx,
                                 free_fn release)
{
    void *obj = NULL;
    tsgs_error err;
    fault_alloc_arm(0);
    ck_assert_msg(op(ctx, &obj, &err) == TSGS_OK, "%s: %s", name,
                  err.message);
    long total = fault_alloc_count();
    if (release && obj)
        release(obj);
    ck_assert_msg(total > 0, "%s allocates nothing", name);
    long step = total > MAX_RUNS ? total / MAX_RUNS : 1;
    long refused = 0;
    for (long n = 1; n <= total; n += n < 64 ? 1 : step) {
        obj = SENTINEL;
        memset(&err, 0, sizeof err);
        fault_alloc_arm(n);
        tsgs_status st = op(ctx, &obj, &err);
        int fired = fault_alloc_disarm();
        if (st == TSGS_OK) {
            if (release && obj != SENTINEL)
                release(obj);
            continue;
        }
        ck_assert_msg(fired, "%s failed with no failed allocation: %s", name,
                      err.message);
        ck_assert_msg(st == TSGS_ERR_NOMEM,
                      "%s, allocation %ld of %ld failed: status %s (%s)",
                      name, n, total, tsgs_status_name(st), err.message);
        ck_assert_msg(strstr(err.message, "out of memory"),
                      "%s, allocation %ld: \"%s\"", name, n, err.message);
        ck_assert_msg(obj == SENTINEL, "%s, allocation %ld: output written",
                      name, n);
        refused++;
    }
    ck_assert_msg(refused > 0, "%s: no failed allocation was reported", name);

}

/* ------------------------------------------------------------- operations */

static tsgs_status op_read(void *ctx, void **out, tsgs_error *err)
{
    tsgs_dataset *ds;
    tsgs_status st = tsgs_dataset_read(ctx, NULL, &ds, err);
    if (st == TSGS_OK)
        *out = ds;
    return st;
}

static void free_dataset(void *p) { tsgs_dataset_free(p); }
static void free_model(void *p) { tsgs_model_free(p); }

/* CSR rows of a given width: 6 rows, 2 non-zeros each. */
typedef struct {
    size_t d;
} csr_ctx;

static tsgs_status op_from_csr(void *ctx, void **out, tsgs_error *err)
{
    const size_t d = ((csr_ctx *)ctx)->d;
    size_t ptr[7];
    uint32_t col[12];
    float val[12];
    double y[6];
    for (size_t i = 0; i < 6; i++) {
        ptr[i] = 2 * i;
        col[2 * i] = (uint32_t)i;
        col[2 * i + 1] = (uint32_t)(d - 6 + i);
        val[2 * i] = val[2 * i + 1] = (float)i + 1.0f;
        y[i] = i < 3 ? (double)(i % 2) : TSGS_UNLABELED;
    }
    ptr[6] = 12;
    tsgs_dataset *ds;
    tsgs_status st = tsgs_dataset_from_csr(6, d, 12, ptr, col, val, y, &ds,
                                           err);
    if (st == TSGS_OK)
        *out = ds;
    return st;
}

typedef struct {
    tsgs_dataset *ds;
    tsgs_params p;
} train_ctx;

static tsgs_status op_train(void *ctx, void **out, tsgs_error *err)
{
    train_ctx *c = ctx;
    tsgs_model *m;
    tsgs_status st = tsgs_train(c->ds, &c->p, NULL, &m, NULL, err);
    if (st == TSGS_OK)
        *out = m;
    return st;
}

static void check_train(const char *name, tsgs_dataset *ds, tsgs_params p)
{
    train_ctx c = {ds, p};
    fail_each_allocation(name, op_train, &c, free_model);
}

static tsgs_params small_params(tsgs_solver solver)
{
    tsgs_params p = tsgs_params_default();
    p.solver = solver;
    p.threads = 2;
    p.iterations = 30;
    p.max_features = 32;
    p.sigma = 0.5;
    p.c_total = 10;
    return p;
}

START_TEST(reader_out_of_memory)
{
    static const char *const files[] = {
        "data/reader/basic.svm", "data/reader/basic.svm.gz",
        "data/reader/basic.svm.xz", "data/reader/basic.svm.bz2",
        "data/reader/synth_susy_100.csv"};
    for (int i = 0; i < 5; i++)
        fail_each_allocation(files[i], op_read, (void *)files[i],
                             free_dataset);
}
END_TEST

START_TEST(train_out_of_memory)
{
    tsgs_dataset *ds = fixture_blobs(60, 3, 2.0, 0.5, 16, 8, 4, NULL);
    check_train("tsg", ds, small_params(TSGS_SOLVER_TSG));
    check_train("dsg", ds, small_params(TSGS_SOLVER_DSG));
    check_train("bs3vm", ds, small_params(TSGS_SOLVER_BS3VM));
    tsgs_params p = small_params(TSGS_SOLVER_TSG);
    p.probability = 1;
    check_train("tsg -b 1", ds, p);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(safe_out_of_memory)
{
    tsgs_dataset *ds = fixture_blobs(60, 3, 2.0, 0.5, 16, 8, 4, NULL);
    tsgs_params p = tsgs_params_default();
    p.threads = 2;
    check_train("safe", ds, p);
    tsgs_dataset_free(ds);
}
END_TEST

/* Three classes: one-vs-rest models. */
START_TEST(multiclass_out_of_memory)
{
    float x[90 * 2];
    double y[90];
    for (int i = 0; i < 90; i++) {
        int k = i % 3;
        x[2 * i] = (float)(3.0 * k + 0.1 * (i % 7));
        x[2 * i + 1] = (float)(0.2 * (i % 5) - 3.0 * k);
        y[i] = i < 30 ? k + 1 : TSGS_UNLABELED;
    }
    tsgs_dataset *ds;
    ck_assert_int_eq(tsgs_dataset_from_dense(90, 2, x, y, &ds, NULL),
                     TSGS_OK);
    check_train("3 classes", ds, small_params(TSGS_SOLVER_TSG));
    tsgs_dataset_free(ds);
}
END_TEST

typedef struct {
    tsgs_model *m;
    tsgs_dataset *ds;
} predict_ctx;

static tsgs_status op_predict(void *ctx, void **out, tsgs_error *err)
{
    predict_ctx *c = ctx;
    size_t n = tsgs_dataset_rows(c->ds);
    double *dec = malloc(sizeof(double) * n * 2);
    if (!dec)
        return TSGS_ERR_NOMEM; /* the test's own allocation */
    tsgs_status st = tsgs_predict(c->m, c->ds, 2, dec, err);
    if (st == TSGS_OK)
        st = tsgs_predict_proba(c->m, c->ds, 2, dec, err);
    free(dec);
    (void)out;
    return st;
}

static tsgs_status op_save_load(void *ctx, void **out, tsgs_error *err)
{
    predict_ctx *c = ctx;
    tsgs_status st = tsgs_model_save(c->m, "faults.model", err);
    tsgs_model *back;
    if (st == TSGS_OK && (st = tsgs_model_load("faults.model", &back,
                                               err)) == TSGS_OK)
        *out = back;
    return st;
}

START_TEST(model_out_of_memory)
{
    tsgs_dataset *ds = fixture_blobs(60, 3, 2.0, 0.5, 16, 8, 4, NULL);
    tsgs_params p = small_params(TSGS_SOLVER_TSG);
    p.probability = 1;
    tsgs_model *m;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, NULL), TSGS_OK);
    predict_ctx c = {m, ds};
    /* the test's own malloc fails first: a NOMEM without a message */
    fault_alloc_arm(0);
    void *unused;
    tsgs_error err;
    ck_assert_int_eq(op_predict(&c, &unused, &err), TSGS_OK);
    fail_each_allocation("save + load", op_save_load, &c, free_model);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
    remove("faults.model");
}
END_TEST

static tsgs_status op_cv(void *ctx, void **out, tsgs_error *err)
{
    train_ctx *c = ctx;
    tsgs_params points[2] = {c->p, c->p};
    points[1].c_total = 100;
    double mean[2], sd[2];
    (void)out;
    return tsgs_cv(c->ds, points, 2, 3, 1, 2, TSGS_CV_PARALLEL_GRID, mean,
                   sd, NULL, NULL, err);
}

START_TEST(cv_out_of_memory)
{
    tsgs_dataset *ds = fixture_blobs(60, 3, 2.0, 0.5, 16, 8, 4, NULL);
    train_ctx c = {ds, small_params(TSGS_SOLVER_TSG)};
    fail_each_allocation("cv", op_cv, &c, NULL);
    tsgs_dataset_free(ds);
}
END_TEST

/* A wide LIBSVM file the reader keeps sparse: 80 rows of 6 non-zeros in
 * 6000 columns (a few frequent ones), 20 labeled by one column's sign. */
static const char *write_wide_file(void)
{
    static const char *path = "faults_wide.svm";
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    unsigned s = 7;
    for (int i = 0; i < 80; i++) {
        int lab = i % 2 ? 1 : -1;
        fprintf(f, "%d", i < 20 ? lab : 0);
        int c = 1 + i % 5;
        fprintf(f, " %d:%g", c, 0.5 * lab + 0.1 * (i % 3));
        for (int j = 0; j < 5; j++) {
            s = s * 1103515245u + 12345u;
            c += 1 + (int)(s >> 16) % 1200;
            fprintf(f, " %d:%g", c, (double)((s >> 8) % 100) / 50.0 - 1.0);
        }
        fputc('\n', f);
    }
    fclose(f);
    return path;
}

/* 0 marks the file's unlabeled rows (SVMlight's transductive 0). */
static tsgs_status op_read_wide(void *ctx, void **out, tsgs_error *err)
{
    tsgs_read_options o = tsgs_read_options_default();
    o.has_unlabeled_label = 1;
    o.unlabeled_label = 0;
    tsgs_dataset *ds;
    tsgs_status st = tsgs_dataset_read(ctx, &o, &ds, err);
    if (st == TSGS_OK)
        *out = ds;
    return st;
}

static tsgs_status op_save_npy(void *ctx, void **out, tsgs_error *err)
{
    (void)out;
    return tsgs_dataset_save_npy(ctx, "faults_wide.npy", err);
}

static tsgs_status op_predict_only(void *ctx, void **out, tsgs_error *err)
{
    predict_ctx *c = ctx;
    double dec[80];
    (void)out;
    return tsgs_predict(c->m, c->ds, 2, dec, err);
}

/* Sparse rows: reading them, training on them (the column cache, the
 * sparse kernel's scratch, a dense copy for bs3vm), predicting and
 * writing them as .npy. */
START_TEST(sparse_out_of_memory)
{
    const char *path = write_wide_file();
    fail_each_allocation("read sparse", op_read_wide, (void *)path,
                         free_dataset);
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    ck_assert_int_eq(op_read_wide((void *)path, (void **)&ds, &err),
                     TSGS_OK);
    ck_assert(tsgs_dataset_is_sparse(ds));
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 20);
    check_train("tsg sparse", ds, small_params(TSGS_SOLVER_TSG));
    check_train("dsg sparse", ds, small_params(TSGS_SOLVER_DSG));
    check_train("bs3vm sparse", ds, small_params(TSGS_SOLVER_BS3VM));
    tsgs_params p = tsgs_params_default();
    p.threads = 2;
    p.max_features = 64;
    check_train("safe sparse", ds, p);
    tsgs_model *m;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, NULL), TSGS_OK);
    predict_ctx c = {m, ds};
    fail_each_allocation("predict sparse", op_predict_only, &c, NULL);
    fail_each_allocation("save_npy sparse", op_save_npy, ds, NULL);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
    remove(path);
    remove("faults_wide.npy");
    remove("faults_wide.labels.npy");
}
END_TEST

/* .npy files: mapped in place (f4), converted (f8 with int64 labels),
 * Fortran order. */
START_TEST(npy_out_of_memory)
{
    static const char *const files[] = {"data/npy/f4.npy", "data/npy/f8.npy",
                                        "data/npy/fortran.npy"};
    for (int i = 0; i < 3; i++)
        fail_each_allocation(files[i], op_read, (void *)files[i],
                             free_dataset);
}
END_TEST

/* Rows and labels made before anything is armed (the fixtures' own
 * allocations are not checked). */
typedef struct {
    float x[40 * 3];
    double y[40];
    const char *wide; /* a sparse LIBSVM file */
} edit_ctx;

/* Every dataset edit on dense rows, then on sparse ones: append, select,
 * keep labels, drop features. */
static tsgs_status op_edit(void *ctx, void **out, tsgs_error *err)
{
    edit_ctx *c = ctx;
    tsgs_dataset *a = NULL, *b = NULL, *sel = NULL;
    static const size_t rows[] = {0, 3, 5, 39, 41, 79};
    size_t dropped;
    (void)out;
    tsgs_status st = tsgs_dataset_from_dense(40, 3, c->x, c->y, &a, err);
    if (st == TSGS_OK)
        st = tsgs_dataset_from_dense(40, 3, c->x, c->y, &b, err);
    if (st == TSGS_OK)
        st = tsgs_dataset_append_unlabeled(a, b, err);
    if (st == TSGS_OK)
        st = tsgs_dataset_select(a, rows, 6, &sel, err);
    if (st == TSGS_OK)
        st = tsgs_dataset_keep_labels(a, 6, 3, err);
    if (st == TSGS_OK)
        st = tsgs_dataset_drop_features(a, 2, &dropped, err);
    tsgs_dataset_free(a);
    tsgs_dataset_free(b);
    tsgs_dataset_free(sel);
    a = b = sel = NULL;
    if (st == TSGS_OK)
        st = tsgs_dataset_read(c->wide, NULL, &a, err);
    if (st == TSGS_OK)
        st = tsgs_dataset_read(c->wide, NULL, &b, err);
    if (st == TSGS_OK)
        st = tsgs_dataset_append_unlabeled(a, b, err);
    if (st == TSGS_OK)
        st = tsgs_dataset_select(a, rows, 6, &sel, err);
    if (st == TSGS_OK)
        st = tsgs_dataset_keep_labels(a, 10, 3, err);
    if (st == TSGS_OK)
        st = tsgs_dataset_drop_features(a, 100, &dropped, err);
    tsgs_dataset_free(a);
    tsgs_dataset_free(b);
    tsgs_dataset_free(sel);
    return st;
}

START_TEST(from_csr_out_of_memory)
{
    csr_ctx dense = {8}, sparse = {100000}; /* stored dense, then sparse */
    fail_each_allocation("from_csr dense", op_from_csr, &dense,
                         free_dataset);
    fail_each_allocation("from_csr sparse", op_from_csr, &sparse,
                         free_dataset);
}
END_TEST

START_TEST(dataset_edits_out_of_memory)
{
    edit_ctx c;
    for (int i = 0; i < 40; i++) {
        for (int k = 0; k < 3; k++)
            c.x[3 * i + k] = (float)((i % 2 ? 1 : -1) + 0.1 * ((i * 7 + k) % 5));
        c.y[i] = i < 20 ? (i % 2 ? 1 : -1) : TSGS_UNLABELED;
    }
    c.wide = write_wide_file();
    fail_each_allocation("dataset edits", op_edit, &c, NULL);
    remove(c.wide);
}
END_TEST

typedef struct {
    tsgs_dataset *ds;
    FILE *sink;
} synth_ctx;

/* A mixture fitted and 200 rows written in each layout. */
static tsgs_status op_synth(void *ctx, void **out, tsgs_error *err)
{
    synth_ctx *c = ctx;
    tsgs_mixture *m = NULL;
    (void)out;
    tsgs_status st = tsgs_mixture_fit(c->ds, 2, 5, &m, err);
    if (st == TSGS_OK)
        st = tsgs_synth_write(m, 7, 0, 200, TSGS_LAYOUT_LIBSVM, 1, 2, c->sink,
                              err);
    tsgs_mixture_free(m);
    return st;
}

START_TEST(synth_out_of_memory)
{
    synth_ctx c = {fixture_blobs(60, 3, 2.0, 0.5, 60, 30, 4, NULL),
                   fopen("/dev/null", "w")};
    ck_assert_ptr_nonnull(c.sink);
    fail_each_allocation("mixture + synth", op_synth, &c, NULL);
    fclose(c.sink);
    tsgs_dataset_free(c.ds);
}
END_TEST

/* Models of every kind saved and loaded: MAXABS scaled, bs3vm support
 * vectors, one-vs-rest. */
START_TEST(model_kinds_out_of_memory)
{
    tsgs_dataset *ds = fixture_blobs(60, 3, 2.0, 0.5, 16, 8, 4, NULL);
    tsgs_params p = small_params(TSGS_SOLVER_TSG);
    p.scale = TSGS_SCALE_MAXABS;
    tsgs_model *m;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, NULL), TSGS_OK);
    predict_ctx c = {m, ds};
    fail_each_allocation("maxabs save + load", op_save_load, &c, free_model);
    tsgs_model_free(m);
    p = small_params(TSGS_SOLVER_BS3VM);
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, NULL), TSGS_OK);
    c.m = m;
    fail_each_allocation("bs3vm save + load", op_save_load, &c, free_model);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
    float x[90 * 2];
    double y[90];
    for (int i = 0; i < 90; i++) {
        int k = i % 3;
        x[2 * i] = (float)(3.0 * k + 0.1 * (i % 7));
        x[2 * i + 1] = (float)(0.2 * (i % 5) - 3.0 * k);
        y[i] = i < 30 ? k + 1 : TSGS_UNLABELED;
    }
    ck_assert_int_eq(tsgs_dataset_from_dense(90, 2, x, y, &ds, NULL),
                     TSGS_OK);
    p = small_params(TSGS_SOLVER_TSG);
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, NULL), TSGS_OK);
    c = (predict_ctx){m, ds};
    fail_each_allocation("one-vs-rest save + load", op_save_load, &c,
                         free_model);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
    remove("faults.model");
}
END_TEST

static tsgs_status op_topology(void *ctx, void **out, tsgs_error *err)
{
    tsgs_topology *t;
    tsgs_status st = tsgs_topology_open_synthetic(ctx, &t, err);
    if (st != TSGS_OK)
        return st;
    tsgs_placement *pl;
    st = tsgs_placement_plan(t, 12, TSGS_BIND_SCATTER, &pl, err);
    if (st == TSGS_OK) {
        char buf[8192];
        st = tsgs_placement_describe(t, pl, buf, sizeof buf);
        tsgs_placement_free(pl);
    }
    tsgs_topology_free(t);
    (void)out;
    return st;
}

START_TEST(topology_out_of_memory)
{
    fail_each_allocation("placement", op_topology,
                         (void *)"pack:2 numa:2 core:4 pu:2", NULL);
}
END_TEST

Suite *faults_suite(void)
{
    Suite *s = suite_create("faults");
    TCase *tc = tcase_create("out_of_memory");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, reader_out_of_memory);
    tcase_add_test(tc, train_out_of_memory);
    tcase_add_test(tc, safe_out_of_memory);
    tcase_add_test(tc, multiclass_out_of_memory);
    tcase_add_test(tc, model_out_of_memory);
    tcase_add_test(tc, cv_out_of_memory);
    tcase_add_test(tc, topology_out_of_memory);
    tcase_add_test(tc, sparse_out_of_memory);
    tcase_add_test(tc, npy_out_of_memory);
    tcase_add_test(tc, dataset_edits_out_of_memory);
    tcase_add_test(tc, from_csr_out_of_memory);
    tcase_add_test(tc, synth_out_of_memory);
    tcase_add_test(tc, model_kinds_out_of_memory);
    suite_add_tcase(s, tc);
    return s;
}
