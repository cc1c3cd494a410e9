/* A stochastic run split over processes (train.h's tsgs__split, the core
 * of training over MPI: src/mpi/, docs/mpi.md), without MPI: the
 * "processes" are threads of this test, their gather a shared buffer and a
 * barrier. Every share of a mini-batch is its own range, and the model of
 * every rank has the bits of the run that was not split, on every path of
 * the stochastic solvers. (tests/mpi/run.sh runs the tool under mpirun
 * where the build has MPI.) */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "internal.h"

START_TEST(ranges_cover_the_batch_in_order)
{
    for (size_t n = 0; n <= 40; n++)
        for (int size = 1; size <= 6; size++) {
            size_t next = 0, small = n, big = 0;
            for (int k = 0; k < size; k++) {
                tsgs__split s = {k, size, NULL, NULL};
                size_t lo, hi;
                tsgs__split_range(&s, n, &lo, &hi);
                ck_assert_uint_eq(lo, next); /* contiguous, rank order */
                ck_assert_uint_le(lo, hi);
                next = hi;
                small = hi - lo < small ? hi - lo : small;
                big = hi - lo > big ? hi - lo : big;
            }
            ck_assert_uint_eq(next, n);  /* all of them */
            ck_assert_uint_le(big - small, 1); /* even */
        }
    size_t lo, hi;
    tsgs__split_range(NULL, 7, &lo, &hi); /* one process: all */
    ck_assert(lo == 0 && hi == 7);
    /* 4 ranks, 3 rows: rank 0's share is empty */
    tsgs__split s0 = {0, 4, NULL, NULL};
    tsgs__split_range(&s0, 3, &lo, &hi);
    ck_assert_uint_eq(hi - lo, 0);
    /* no split: the flag as it is, the callback never called */
    ck_assert_int_eq(tsgs__split_gather(NULL, NULL, 0, 1, 2), 2);
    ck_assert_int_eq(tsgs__split_gather(&(tsgs__split){0, 1, NULL, NULL},
                                        NULL, 0, 1, 0), 0);
}
END_TEST

/* The "world": ranks as threads. */
#define MAX_RANKS 4
typedef struct {
    int size;
    pthread_barrier_t bar;
    double buf[4096];
    int failed[MAX_RANKS];
    long own_calls[MAX_RANKS], calls[MAX_RANKS];
} world_t;

typedef struct {
    world_t *w;
    int rank;
    tsgs__split split;
    const tsgs_dataset *ds;
    tsgs_params p;
    int labeled_cache;  /* tsgs__train_opts' */
    tsgs_model *m;
    tsgs_status st;
} rank_t;

static int fake_gather(void *ctx, double *v, size_t n, int own, int failed)
{
    rank_t *r = ctx;
    world_t *w = r->w;
    size_t lo, hi;
    tsgs__split_range(&r->split, n, &lo, &hi);
    w->failed[r->rank] = failed;
    w->calls[r->rank]++;
    if (own) {
        w->own_calls[r->rank]++;
        memcpy(w->buf + lo, v + lo, sizeof(double) * (hi - lo));
    }
    pthread_barrier_wait(&w->bar);
    int any = 0;
    for (int k = 0; k < w->size; k++)
        any = w->failed[k] > any ? w->failed[k] : any;
    if (own && !any)
        memcpy(v, w->buf, sizeof(double) * n);
    pthread_barrier_wait(&w->bar); /* all read before the next write */
    return any;
}

static void *rank_main(void *arg)
{
    rank_t *r = arg;
    tsgs__train_opts opt = {.scale_floor = 1e-150, .labeled_cache = -1};
    opt.split = &r->split;
    opt.labeled_cache = r->labeled_cache;
    r->st = tsgs__train_ex(r->ds, &r->p, NULL, &opt, &r->m, NULL, NULL);
    return NULL;
}

static void same_model(const tsgs_model *a, const tsgs_model *b)
{
    ck_assert_int_eq(a->nblocks, b->nblocks);
    size_t n = sizeof(double) * (size_t)tsgs__model_dirs(a);
    ck_assert_int_eq(memcmp(a->ac, b->ac, n), 0);
    if (a->as)
        ck_assert_int_eq(memcmp(a->as, b->as, n), 0);
    ck_assert(a->scale == b->scale && a->bias == b->bias);
}

/* Loop _i: the solver path (as check_train.c's same_bits_on_1_2_3_threads)
 * on 2 and 3 ranks of 1 and 2 threads, against the run not split. */
START_TEST(ranks_give_the_bits_of_one_process)
{
    tsgs_dataset *ds = fixture_blobs(1500, 10, 1.0, 0.5, 150, 75, 11, NULL);
    tsgs_params p = tsgs_params_default();
    p.solver = TSGS_SOLVER_TSG;
    p.c = 1000.0; /* the solvers' unit (tsgs__train_ex) */
    p.c_total = 0.0;
    p.eta = 200.0;
    p.sigma = 0.1;
    p.max_features = 400;
    p.block_size = 8;
    p.batch_unlabeled = 128;
    p.iterations = 40;
    p.warm_start = 0;
    int shared_path = 1; /* the mini-batch's predictions shared out */
    int labeled_cache = -1;
    switch (_i) {
    case 1: p.balance = TSGS__BALANCE_HOLD; p.warm_start = 1; break;
    case 2: p.reuse = TSGS_REUSE_CHECK; p.max_features = 64; break;
    case 3: p.solver = TSGS_SOLVER_FRS; p.max_features = 128;
            shared_path = 0; break;
    case 4: p.batch_labeled = 64; labeled_cache = 0; break; /* general */
    case 5: p.cache_mb = 0; break;
    default: break;
    }
    p.threads = 1;
    tsgs__train_opts plain = {.scale_floor = 1e-150,
                              .labeled_cache = labeled_cache};
    tsgs_model *one = NULL;
    ck_assert_int_eq(tsgs__train_ex(ds, &p, NULL, &plain, &one, NULL, NULL),
                     TSGS_OK);
    for (int size = 2; size <= 3; size++) {
        world_t *w = calloc(1, sizeof *w);
        ck_assert_ptr_nonnull(w);
        w->size = size;
        pthread_barrier_init(&w->bar, NULL, (unsigned)size);
        rank_t r[MAX_RANKS];
        pthread_t th[MAX_RANKS];
        for (int k = 0; k < size; k++) {
            r[k] = (rank_t){w,    k,   {k, size, fake_gather, &r[k]},
                            ds,   p,   labeled_cache,
                            NULL, TSGS_OK};
            r[k].p.threads = 1 + (k + size) % 2; /* 1 and 2 threads */
            ck_assert_int_eq(pthread_create(&th[k], NULL, rank_main, &r[k]),
                             0);
        }
        for (int k = 0; k < size; k++)
            pthread_join(th[k], NULL);
        for (int k = 0; k < size; k++) {
            ck_assert_int_eq(r[k].st, TSGS_OK);
            same_model(one, r[k].m);
            /* one exchange a step; the values too where shared out */
            ck_assert_int_eq(w->calls[k], p.iterations);
            ck_assert_int_eq(w->own_calls[k],
                             shared_path ? p.iterations : 0);
            tsgs_model_free(r[k].m);
        }
        pthread_barrier_destroy(&w->bar);
        free(w);
    }
    tsgs_model_free(one);
    tsgs_dataset_free(ds);
}
END_TEST

/* A rank whose kernel fails (its flag) fails every rank's run, none left
 * waiting. */
static int failing_gather(void *ctx, double *v, size_t n, int own,
                          int failed)
{
    rank_t *r = ctx;
    return fake_gather(ctx, v, n, own, r->rank == 1 ? 1 : failed);
}

START_TEST(a_failed_rank_fails_every_rank)
{
    tsgs_dataset *ds = fixture_blobs(600, 5, 1.0, 0.5, 60, 30, 3, NULL);
    tsgs_params p = tsgs_params_default();
    p.solver = TSGS_SOLVER_TSG;
    p.c = 100.0;
    p.c_total = 0.0;
    p.sigma = 0.1;
    p.iterations = 10;
    p.threads = 1;
    world_t *w = calloc(1, sizeof *w);
    ck_assert_ptr_nonnull(w);
    w->size = 3;
    pthread_barrier_init(&w->bar, NULL, 3);
    rank_t r[3];
    pthread_t th[3];
    for (int k = 0; k < 3; k++) {
        r[k] = (rank_t){w, k, {k, 3, failing_gather, &r[k]}, ds, p, -1,
                        NULL, TSGS_OK};
        ck_assert_int_eq(pthread_create(&th[k], NULL, rank_main, &r[k]), 0);
    }
    for (int k = 0; k < 3; k++)
        pthread_join(th[k], NULL);
    for (int k = 0; k < 3; k++) {
        ck_assert_int_eq(r[k].st, TSGS_ERR_NOMEM);
        ck_assert_ptr_null(r[k].m);
        ck_assert_int_eq(w->calls[k], 1); /* the first step ended it */
    }
    pthread_barrier_destroy(&w->bar);
    free(w);
    tsgs_dataset_free(ds);
}
END_TEST

Suite *split_suite(void)
{
    Suite *s = suite_create("split");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, ranges_cover_the_batch_in_order);
    tcase_add_loop_test(tc, ranks_give_the_bits_of_one_process, 0, 6);
    tcase_add_test(tc, a_failed_rank_fails_every_rank);
    suite_add_tcase(s, tc);
    return s;
}
