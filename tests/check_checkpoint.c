/* Checkpoints of the stochastic solvers (tsgs_train_checkpointed,
 * src/solvers/sgd/checkpoint.c): a run stopped at several steps and
 * resumed from its checkpoint writes the same model file, byte for byte,
 * as the run that was never stopped, on every path of the solvers (tsg's
 * fast path and its general one, the quantile balance, dsg, dsg with a
 * budget reusing blocks, cdsg's checking rule, frs, sparse rows), the
 * checkpoint written on 1 thread and resumed on 2 and the reverse; a run
 * that writes checkpoints makes the model it makes without; a truncated,
 * corrupt, foreign or other version's file, and one of other settings or
 * other rows, is refused with an error naming the file and the field. */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "internal.h"

static char dir[64];

static void setup(void)
{
    test_make_dir(dir, sizeof dir, "ckpt");
}

static void teardown(void)
{
    test_remove_dir(dir);
}

static const char *tmp(const char *name)
{
    static char buf[8][256];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

/* ---------------------------------------------------- the runs */

#define STEPS 120

/* The paths a checkpoint must carry a run through (loop index). */
static tsgs_params config(int i, size_t *labeled)
{
    tsgs_params p = tsgs_params_default();
    p.solver = TSGS_SOLVER_TSG;
    p.iterations = STEPS;
    p.batch_unlabeled = 64;
    p.c = 1.0;
    p.sigma = 0.5;
    p.block_size = 4;
    *labeled = 60;
    switch (i) {
    case 0: /* the fast path; C and sigma chosen by the grid */
        p.c = 0.0;
        p.sigma = 0.0;
        break;
    case 1: /* the quantile balance's running threshold, from zero */
        p.balance = 1;
        p.warm_start = 0;
        break;
    case 2:
        p.solver = TSGS_SOLVER_DSG;
        break;
    case 3: /* udsg: a budget, old blocks reused uniformly */
        p.solver = TSGS_SOLVER_DSG;
        p.max_features = 64;
        p.reuse = TSGS_REUSE_UNIFORM;
        break;
    case 4: /* cdsg: the checking rule (the general path) */
        p.solver = TSGS_SOLVER_CDSG;
        p.max_features = 64;
        break;
    case 5: /* many labels: the labeled batch predicted, no cache */
        p.batch_labeled = 16;
        *labeled = 1400;
        break;
    case 6:
        p.solver = TSGS_SOLVER_FRS;
        p.max_features = 64;
        break;
    default: /* sparse rows (config_data) */
        p.max_features = 64;
        break;
    }
    return p;
}

/* The rows of config i: two blobs, 1,500 rows; config 7 spreads their 4
 * features over 6,000 columns (stored sparse). */
static tsgs_dataset *config_data(int i, size_t labeled)
{
    tsgs_dataset *ds = fixture_blobs(1500, 4, 1.5, 0.4, labeled,
                                     labeled * 2 / 5, 7, NULL);
    if (i != 7)
        return ds;
    const size_t n = tsgs_dataset_rows(ds);
    size_t *ptr = malloc(sizeof(size_t) * (n + 1));
    uint32_t *col = malloc(sizeof(uint32_t) * n * 4);
    float *val = malloc(sizeof(float) * n * 4);
    double *y = malloc(sizeof(double) * n);
    ck_assert(ptr && col && val && y);
    ptr[0] = 0;
    for (size_t r = 0; r < n; r++) {
        const float *x = tsgs_dataset_row(ds, r);
        for (size_t k = 0; k < 4; k++) {
            col[r * 4 + k] = (uint32_t)(k * 1500 + 3);
            val[r * 4 + k] = x[k];
        }
        ptr[r + 1] = (r + 1) * 4;
        y[r] = tsgs_dataset_label(ds, r);
    }
    tsgs_dataset *sp;
    ck_assert_int_eq(tsgs_dataset_from_csr(n, 6000, n * 4, ptr, col, val, y,
                                           &sp, NULL),
                     TSGS_OK);
    ck_assert(tsgs_dataset_is_sparse(sp));
    free(ptr);
    free(col);
    free(val);
    free(y);
    tsgs_dataset_free(ds);
    return sp;
}

/* Stops the run at the end of step `stop_at` (a progress report comes
 * after each step's stop poll: `reported` steps are done). */
typedef struct {
    long reported, stop_at;
} counter;

static void count(const tsgs_progress *pr, void *user)
{
    counter *c = user;
    c->reported = pr->iteration;
}

static int stop_due(void *user)
{
    const counter *c = user;
    return c->reported + 1 >= c->stop_at;
}

/* Trains ds with p and ck (NULL: none), stopped at step stop_at (0:
 * never), and saves the model to path (when not NULL). */
static void train(const tsgs_dataset *ds, const tsgs_params *p,
                  const tsgs_checkpoint *ck, long stop_at, const char *path)
{
    counter c = {0, stop_at};
    tsgs_train_hooks h;
    memset(&h, 0, sizeof h);
    h.progress = count;
    h.progress_every = 1;
    h.should_stop = stop_at ? stop_due : NULL;
    h.user = &c;
    tsgs_model *m = NULL;
    tsgs_error err;
    int stopped = 0;
    ck_assert_msg(tsgs_train_checkpointed(ds, p, &h, ck, &m, &stopped,
                                          &err) == TSGS_OK,
                  "training: %s", err.message);
    ck_assert_int_eq(stopped, stop_at != 0);
    if (path)
        ck_assert_int_eq(tsgs_model_save(m, path, NULL), TSGS_OK);
    tsgs_model_free(m);
}

static void assert_same_file(const char *a, const char *b, const char *what)
{
    size_t la, lb;
    char *x = test_read_file(a, &la), *y = test_read_file(b, &lb);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y);
    ck_assert_msg(la == lb && memcmp(x, y, la) == 0, "%s: %s and %s differ",
                  what, a, b);
    free(x);
    free(y);
}

/* Config i (the loop): for the reference on 1 thread and on 2, a run
 * stopped at steps 2, 41 and STEPS - 1 on the other count writes a
 * checkpoint, and the run resumed from it (on the reference's count)
 * writes the reference's model file. */
START_TEST(resumed_same_model_file)
{
    size_t labeled;
    const tsgs_params base = config(_i, &labeled);
    tsgs_dataset *ds = config_data(_i, labeled);
    const char *ref = tmp("ref.model"), *got = tmp("got.model"),
               *ckf = tmp("run.ckpt");
    for (int th = 1; th <= 2; th++) {
        tsgs_params p = base;
        p.threads = th;
        train(ds, &p, NULL, 0, ref);
        const long at[] = {2, 41, STEPS - 1};
        for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
            tsgs_params q = p;
            q.threads = 3 - th;
            const tsgs_checkpoint write = {ckf, 0.0, 0, NULL};
            train(ds, &q, &write, at[k], NULL);
            const tsgs_checkpoint resume = {NULL, 0.0, 0, ckf};
            train(ds, &p, &resume, 0, got);
            char what[96];
            snprintf(what, sizeof what, "config %d, %d threads, stopped at "
                                        "step %ld",
                     _i, th, at[k]);
            assert_same_file(ref, got, what);
            unlink(got);
        }
    }
    tsgs_dataset_free(ds);
}
END_TEST

/* Checkpoints written every 7 steps and every millisecond leave the model
 * as it was; resuming from the last one written (and writing more) too. */
START_TEST(writing_checkpoints_same_model)
{
    size_t labeled;
    tsgs_params p = config(_i, &labeled);
    tsgs_dataset *ds = config_data(_i, labeled);
    p.threads = 2;
    const char *ref = tmp("ref.model"), *got = tmp("got.model"),
               *ckf = tmp("run.ckpt");
    train(ds, &p, NULL, 0, ref);
    const tsgs_checkpoint often = {ckf, 0.001, 7, NULL};
    train(ds, &p, &often, 0, got);
    assert_same_file(ref, got, "checkpoints written");
    ck_assert_int_eq(access(ckf, R_OK), 0);
    const tsgs_checkpoint again = {ckf, 0.0, 5, ckf};
    train(ds, &p, &again, 0, got);
    assert_same_file(ref, got, "resumed from the last one");
    tsgs_dataset_free(ds);
}
END_TEST

/* The monitor's measurements (every 10 steps) are all made when
 * checkpoints come at the same steps, and at others. */
static void count_measured(const tsgs_progress *pr, void *user)
{
    long *n = user;
    *n += pr->monitor_accuracy >= 0.0;
}

static long measured(const tsgs_dataset *ds, const tsgs_params *p,
                     const tsgs_checkpoint *ck)
{
    long n = 0;
    tsgs_train_hooks h;
    memset(&h, 0, sizeof h);
    h.progress = count_measured;
    h.progress_every = 1;
    h.monitor = ds;
    h.monitor_every = 10;
    h.user = &n;
    tsgs_model *m = NULL;
    ck_assert_int_eq(tsgs_train_checkpointed(ds, p, &h, ck, &m, NULL, NULL),
                     TSGS_OK);
    tsgs_model_free(m);
    return n;
}

START_TEST(monitor_measurements_kept)
{
    size_t labeled;
    tsgs_params p = config(2, &labeled);
    tsgs_dataset *ds = config_data(2, labeled);
    const long want = measured(ds, &p, NULL);
    ck_assert_int_eq(want, STEPS / 10); /* (the last one: at the end) */
    const tsgs_checkpoint same = {tmp("a.ckpt"), 0.0, 10, NULL};
    ck_assert_int_eq(measured(ds, &p, &same), want);
    const tsgs_checkpoint other = {tmp("b.ckpt"), 0.0, 3, NULL};
    ck_assert_int_eq(measured(ds, &p, &other), want);
    tsgs_dataset_free(ds);
}
END_TEST

/* ---------------------------------------------------- refusals */

/* A checkpoint of config 0 stopped at step 30 into path. */
static tsgs_dataset *write_one(const char *path, tsgs_params *p)
{
    size_t labeled;
    *p = config(2, &labeled);
    p->threads = 1;
    tsgs_dataset *ds = config_data(2, labeled);
    const tsgs_checkpoint w = {path, 0.0, 0, NULL};
    train(ds, p, &w, 30, NULL);
    return ds;
}

/* Resuming from path fails with `code`, the message holding path and
 * each of the NULL-terminated strings. */
static void assert_refused(const tsgs_dataset *ds, const tsgs_params *p,
                           const char *path, tsgs_status code, ...)
{
    const tsgs_checkpoint r = {NULL, 0.0, 0, path};
    tsgs_model *m = NULL;
    tsgs_error err;
    tsgs_status st = tsgs_train_checkpointed(ds, p, NULL, &r, &m, NULL, &err);
    ck_assert_msg(st == code, "expected %s, got %s: %s",
                  tsgs_status_name(code), tsgs_status_name(st), err.message);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(err.message, path), "no file name in: %s",
                  err.message);
    va_list ap;
    va_start(ap, code);
    for (const char *s; (s = va_arg(ap, const char *));)
        ck_assert_msg(strstr(err.message, s), "'%s' not in: %s", s,
                      err.message);
    va_end(ap);
}

static void write_bytes(const char *path, const char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

START_TEST(truncated_or_corrupt_refused)
{
    tsgs_params p;
    const char *ckf = tmp("run.ckpt"), *bad = tmp("bad.ckpt");
    tsgs_dataset *ds = write_one(ckf, &p);
    size_t n;
    char *b = test_read_file(ckf, &n);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_gt(n, 200);
    /* cut inside the header, inside a record, before the checksum */
    write_bytes(bad, b, 12);
    assert_refused(ds, &p, bad, TSGS_ERR_FORMAT, "'version'", "truncated",
                   NULL);
    write_bytes(bad, b, n / 2);
    assert_refused(ds, &p, bad, TSGS_ERR_FORMAT, "checkpoint field '",
                   "truncated", NULL);
    write_bytes(bad, b, n - 3);
    assert_refused(ds, &p, bad, TSGS_ERR_FORMAT, "'checksum'", "truncated",
                   NULL);
    write_bytes(bad, b, 0);
    assert_refused(ds, &p, bad, TSGS_ERR_FORMAT, "not a tsgs3vm checkpoint",
                   NULL);
    /* one byte changed inside the coefficients */
    b[n - 200] ^= 0x10;
    write_bytes(bad, b, n);
    assert_refused(ds, &p, bad, TSGS_ERR_FORMAT, "'checksum'", "corrupt",
                   NULL);
    b[n - 200] ^= 0x10;
    /* another format version */
    b[8] = 9;
    write_bytes(bad, b, n);
    assert_refused(ds, &p, bad, TSGS_ERR_FORMAT, "'version'", "format 9",
                   NULL);
    /* a model file is not a checkpoint */
    test_write_text(bad, "tsgs3vm-model 2\nsolver tsg\n");
    assert_refused(ds, &p, bad, TSGS_ERR_FORMAT, "not a tsgs3vm checkpoint",
                   NULL);
    /* none there */
    unlink(bad);
    assert_refused(ds, &p, bad, TSGS_ERR_IO, "cannot open", NULL);
    free(b);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(other_settings_or_rows_refused)
{
    tsgs_params p;
    const char *ckf = tmp("run.ckpt");
    tsgs_dataset *ds = write_one(ckf, &p);
    tsgs_params q = p;
    q.eta = 77.0;
    assert_refused(ds, &q, ckf, TSGS_ERR_PARAM, "'settings'", "eta", NULL);
    q = p;
    q.seed = 99;
    assert_refused(ds, &q, ckf, TSGS_ERR_PARAM, "'settings'", "seed 99",
                   NULL);
    /* threads, bind and cache-mb leave the model alone: not refused */
    q = p;
    q.threads = 2;
    q.cache_mb = 0.0;
    const tsgs_checkpoint r = {NULL, 0.0, 0, ckf};
    tsgs_model *m = NULL;
    ck_assert_int_eq(tsgs_train_checkpointed(ds, &q, NULL, &r, &m, NULL,
                                             NULL),
                     TSGS_OK);
    tsgs_model_free(m);
    /* the same counts, one value changed; other counts */
    size_t labeled;
    config(2, &labeled);
    tsgs_dataset *other = fixture_blobs(1500, 4, 1.5, 0.4, labeled,
                                        labeled * 2 / 5, 8, NULL);
    assert_refused(other, &p, ckf, TSGS_ERR_DATA, "'data'",
                   "other values or labels", NULL);
    tsgs_dataset_free(other);
    other = fixture_blobs(1400, 4, 1.5, 0.4, labeled, labeled * 2 / 5, 7,
                          NULL);
    assert_refused(other, &p, ckf, TSGS_ERR_DATA, "'data'", "1500 rows",
                   "1400 of 4", NULL);
    tsgs_dataset_free(other);
    /* a solver that is not checkpointed */
    q = p;
    q.solver = TSGS_SOLVER_SAFE;
    const tsgs_checkpoint w = {ckf, 0.0, 0, NULL};
    tsgs_error err;
    ck_assert_int_eq(tsgs_train_checkpointed(ds, &q, NULL, &w, &m, NULL,
                                             &err),
                     TSGS_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err.message, "safe"));
    tsgs_dataset_free(ds);
}
END_TEST

Suite *checkpoint_suite(void)
{
    Suite *s = suite_create("checkpoint");
    TCase *tc = tcase_create("resume");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, resumed_same_model_file, 0, 8);
    tcase_add_loop_test(tc, writing_checkpoints_same_model, 0, 8);
    tcase_add_test(tc, monitor_measurements_kept);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("refused");
    tcase_add_checked_fixture(bad, setup, teardown);
    tcase_set_timeout(bad, 60);
    tcase_add_test(bad, truncated_or_corrupt_refused);
    tcase_add_test(bad, other_settings_or_rows_refused);
    suite_add_tcase(s, bad);
    return s;
}
