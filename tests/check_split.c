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
                tsgs__split s = {k, size, NULL, NULL, NULL};
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
    tsgs__split s0 = {0, 4, NULL, NULL, NULL};
    tsgs__split_range(&s0, 3, &lo, &hi);
    ck_assert_uint_eq(hi - lo, 0);
    /* no split: the flag as it is, the callback never called */
    ck_assert_int_eq(tsgs__split_gather(NULL, NULL, 0, 1, 2), 2);
    ck_assert_int_eq(
        tsgs__split_gather(&(tsgs__split){0, 1, NULL, NULL, NULL}, NULL, 0,
                           1, 0),
        0);
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
            r[k] = (rank_t){w,    k,   {k, size, fake_gather, &r[k], NULL},
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
        r[k] = (rank_t){w, k, {k, 3, failing_gather, &r[k], NULL}, ds, p, -1,
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

/* Rows held in shares (data.h's tsgs__held, what src/mpi/rows_mpi.c
 * does over MPI), without MPI: rank k's copy of the rows holds only its
 * share [row0[k], row0[k + 1]), the others zeros; fetch copies rows in
 * from the full set and release zeroes them again (a row read after its
 * release, or never fetched, reads zeros and moves the model); pieces is
 * a shared buffer between barriers. Every call is counted: the ranks must
 * make the same collective calls in the same order. */
typedef struct {
    world_t *w;
    int rank;
    size_t row0[MAX_RANKS + 1];
    const tsgs_dataset *full;
    tsgs_dataset *mine;
    tsgs__held h;
    tsgs__split split;
    unsigned char *pinned; /* per row */
    long *ref;             /* per row: unpinned fetches not released */
    long fetches, fetched, pieces_calls;
    tsgs_params p;
    tsgs_model *m;
    tsgs_status st;
    tsgs_error e;
} held_rank;

static unsigned char held_bytes[1 << 16];

static int in_share(const held_rank *r, size_t i)
{
    return i >= r->row0[r->rank] && i < r->row0[r->rank + 1];
}

static int world_any(world_t *w, int rank, int failed)
{
    w->failed[rank] = failed;
    pthread_barrier_wait(&w->bar);
    int any = 0;
    for (int k = 0; k < w->size; k++)
        any = w->failed[k] > any ? w->failed[k] : any;
    pthread_barrier_wait(&w->bar);
    return any;
}

static int held_fetch(void *ctx, const size_t *idx, size_t n, int pin,
                      int failed)
{
    held_rank *r = ctx;
    r->fetches++;
    r->fetched += (long)n;
    if ((failed = world_any(r->w, r->rank, failed)))
        return failed;
    const size_t d = r->full->d;
    for (size_t j = 0; j < n; j++) {
        const size_t i = idx[j];
        if (in_share(r, i))
            continue;
        memcpy(r->mine->x + i * d, r->full->x + i * d, sizeof(float) * d);
        if (pin)
            r->pinned[i] = 1;
        else
            r->ref[i]++;
    }
    return 0;
}

static void held_release(void *ctx, const size_t *idx, size_t n)
{
    held_rank *r = ctx;
    const size_t d = r->full->d;
    for (size_t j = 0; j < n; j++) {
        const size_t i = idx[j];
        if (in_share(r, i))
            continue;
        ck_assert_int_gt(r->ref[i], 0); /* released once per fetch */
        if (--r->ref[i] == 0 && !r->pinned[i])
            memset(r->mine->x + i * d, 0, sizeof(float) * d);
    }
}

static int held_pieces(void *ctx, void *v, size_t item, const size_t *first,
                       int failed)
{
    held_rank *r = ctx;
    r->pieces_calls++;
    if ((failed = world_any(r->w, r->rank, failed)))
        return failed;
    const size_t lo = first[r->rank], hi = first[r->rank + 1];
    ck_assert_uint_le(first[r->w->size] * item, sizeof held_bytes);
    memcpy(held_bytes + lo * item, (unsigned char *)v + lo * item,
           (hi - lo) * item);
    pthread_barrier_wait(&r->w->bar);
    memcpy(v, held_bytes, first[r->w->size] * item);
    pthread_barrier_wait(&r->w->bar);
    return 0;
}

static int held_gather(void *ctx, double *v, size_t n, int own, int failed)
{
    held_rank *r = ctx;
    rank_t fake = {r->w, r->rank, r->split, NULL, r->p, -1, NULL, TSGS_OK};
    return fake_gather(&fake, v, n, own, failed);
}

static void *held_main(void *arg)
{
    held_rank *r = arg;
    /* as tsgs_train_mpi: every labeled row pinned on every rank */
    const tsgs_dataset *ds = r->mine;
    size_t nl = tsgs__label_split(ds->y, ds->n, 1, NULL, NULL);
    size_t *rows = malloc(sizeof(size_t) * (nl ? nl : 1));
    tsgs__label_split(ds->y, ds->n, 1, rows, NULL);
    r->h.fetch(r->h.ctx, rows, nl, 1, 0);
    free(rows);
    tsgs__train_opts opt = {.scale_floor = 1e-150, .labeled_cache = -1};
    opt.split = &r->split;
    r->st = tsgs__train_ex(r->mine, &r->p, NULL, &opt, &r->m, NULL, &r->e);
    return NULL;
}

/* Loop _i: 40,000 rows (three of the scaler's 16,384-row chunks, which
 * straddle the shares) on 2, 3 and 4 ranks holding shares: the model of
 * the rows held whole, bit for bit; every mini-batch fetched is let go
 * of; the ranks made the same exchanges. _i 1: the quantile balance
 * (its sample fetched), min-max scaling; _i 2: sigma chosen (its sample
 * fetched); _i 3: no scaling (the finiteness check over shares). */
START_TEST(ranks_holding_shares_give_the_bits_of_one_process)
{
    tsgs_dataset *ds = fixture_blobs(40000, 6, 1.0, 0.5, 40, 20, 5, NULL);
    tsgs_params p = tsgs_params_default();
    p.solver = TSGS_SOLVER_TSG;
    p.c = 100.0;
    p.c_total = 0.0;
    p.eta = 200.0;
    p.sigma = 0.1;
    p.max_features = 256;
    p.block_size = 8;
    p.batch_unlabeled = 128;
    p.iterations = 30;
    p.warm_start = 0;
    p.threads = 1;
    switch (_i) {
    case 1: p.balance = TSGS__BALANCE_HOLD; p.scale = TSGS_SCALE_MINMAX;
            break;
    case 2: p.sigma = 0.0; break;
    case 3: p.scale = TSGS_SCALE_NONE; break;
    default: break;
    }
    tsgs__train_opts plain = {.scale_floor = 1e-150, .labeled_cache = -1};
    tsgs_model *one = NULL;
    ck_assert_int_eq(tsgs__train_ex(ds, &p, NULL, &plain, &one, NULL, NULL),
                     TSGS_OK);
    const size_t n = ds->n, d = ds->d;
    for (int size = 2; size <= MAX_RANKS; size++) {
        world_t *w = calloc(1, sizeof *w);
        ck_assert_ptr_nonnull(w);
        w->size = size;
        pthread_barrier_init(&w->bar, NULL, (unsigned)size);
        held_rank r[MAX_RANKS];
        pthread_t th[MAX_RANKS];
        for (int k = 0; k < size; k++) {
            memset(&r[k], 0, sizeof r[k]);
            r[k].w = w;
            r[k].rank = k;
            for (int q = 0; q <= size; q++) /* uneven shares */
                r[k].row0[q] = q == size ? n : n * (size_t)q * (size_t)q /
                                                   ((size_t)size * size);
            r[k].full = ds;
            tsgs_error e;
            ck_assert_int_eq(tsgs_dataset_from_dense(n, d, ds->x, ds->y,
                                                     &r[k].mine, &e),
                             TSGS_OK);
            for (size_t i = 0; i < n; i++)
                if (!in_share(&r[k], i))
                    memset(r[k].mine->x + i * d, 0, sizeof(float) * d);
            r[k].pinned = calloc(n, 1);
            r[k].ref = calloc(n, sizeof(long));
            r[k].h = (tsgs__held){k, size, r[k].row0, &r[k], held_fetch,
                                  held_release, held_pieces};
            r[k].mine->held = &r[k].h;
            r[k].split = (tsgs__split){k, size, held_gather, &r[k], NULL};
            r[k].p = p;
        }
        for (int k = 0; k < size; k++)
            ck_assert_int_eq(pthread_create(&th[k], NULL, held_main, &r[k]),
                             0);
        for (int k = 0; k < size; k++)
            pthread_join(th[k], NULL);
        for (int k = 0; k < size; k++) {
            ck_assert_msg(r[k].st == TSGS_OK, "%d ranks, rank %d: status %d",
                          size, k, r[k].st);
            same_model(one, r[k].m);
            ck_assert_int_eq(r[k].fetches, r[0].fetches);
            ck_assert_int_eq(r[k].fetched, r[0].fetched);
            ck_assert_int_eq(r[k].pieces_calls, r[0].pieces_calls);
            for (size_t i = 0; i < n; i++) /* every fetch let go of */
                ck_assert_int_eq(r[k].ref[i], 0);
            tsgs_model_free(r[k].m);
            r[k].mine->held = NULL;
            tsgs_dataset_free(r[k].mine);
            free(r[k].pinned);
            free(r[k].ref);
        }
        /* a mini-batch a step fetched, the labeled rows, the scaler's */
        ck_assert_int_ge(r[0].fetches, p.iterations + 1);
        ck_assert_int_ge(r[0].pieces_calls, p.scale == TSGS_SCALE_NONE ? 1
                                                                       : 2);
        pthread_barrier_destroy(&w->bar);
        free(w);
    }
    tsgs_model_free(one);
    tsgs_dataset_free(ds);
}
END_TEST

/* A NaN in one rank's share: every rank fails with the one-process
 * message (row and feature of the first such value). */
START_TEST(a_bad_value_in_a_share_is_the_one_process_error)
{
    tsgs_dataset *ds = fixture_blobs(40000, 4, 1.0, 0.5, 40, 20, 6, NULL);
    ds->x[31000 * 4 + 2] = __builtin_nanf("");
    ds->x[35000 * 4 + 1] = __builtin_nanf(""); /* later: not reported */
    tsgs_params p = tsgs_params_default();
    p.solver = TSGS_SOLVER_TSG;
    p.c = 100.0;
    p.c_total = 0.0;
    p.sigma = 0.1;
    p.iterations = 5;
    p.threads = 1;
    for (int none = 0; none <= 1; none++) {
        p.scale = none ? TSGS_SCALE_NONE : TSGS_SCALE_AUTO;
        tsgs__train_opts plain = {.scale_floor = 1e-150,
                                  .labeled_cache = -1};
        tsgs_model *one = NULL;
        tsgs_error e1;
        ck_assert_int_eq(
            tsgs__train_ex(ds, &p, NULL, &plain, &one, NULL, &e1),
            TSGS_ERR_DATA);
        const int size = 3;
        world_t *w = calloc(1, sizeof *w);
        w->size = size;
        pthread_barrier_init(&w->bar, NULL, (unsigned)size);
        held_rank r[3];
        pthread_t th[3];
        for (int k = 0; k < size; k++) {
            memset(&r[k], 0, sizeof r[k]);
            r[k].w = w;
            r[k].rank = k;
            for (int q = 0; q <= size; q++)
                r[k].row0[q] = ds->n * (size_t)q / (size_t)size;
            r[k].full = ds;
            tsgs_error e;
            ck_assert_int_eq(tsgs_dataset_from_dense(ds->n, ds->d, ds->x,
                                                     ds->y, &r[k].mine, &e),
                             TSGS_OK);
            for (size_t i = 0; i < ds->n; i++)
                if (!in_share(&r[k], i))
                    memset(r[k].mine->x + i * ds->d, 0,
                           sizeof(float) * ds->d);
            r[k].pinned = calloc(ds->n, 1);
            r[k].ref = calloc(ds->n, sizeof(long));
            r[k].h = (tsgs__held){k, size, r[k].row0, &r[k], held_fetch,
                                  held_release, held_pieces};
            r[k].mine->held = &r[k].h;
            r[k].split = (tsgs__split){k, size, held_gather, &r[k], NULL};
            r[k].p = p;
            pthread_create(&th[k], NULL, held_main, &r[k]);
        }
        for (int k = 0; k < size; k++)
            pthread_join(th[k], NULL);
        for (int k = 0; k < size; k++) {
            ck_assert_int_eq(r[k].st, TSGS_ERR_DATA);
            ck_assert_str_eq(r[k].e.message, e1.message);
            r[k].mine->held = NULL;
            tsgs_dataset_free(r[k].mine);
            free(r[k].pinned);
            free(r[k].ref);
        }
        ck_assert_ptr_nonnull(strstr(e1.message, "row 31001, feature 3"));
        pthread_barrier_destroy(&w->bar);
        free(w);
    }
    tsgs_dataset_free(ds);
}
END_TEST

/* The default solver's path tasks spread over ranks (tsgs__split's
 * share, safe.c): each rank runs its own tasks, the records travel from
 * the rank that ran each (a pointer handed over between barriers), and
 * every rank's model file is the one-process model's, byte for byte. */
typedef struct {
    world_t *w;
    int rank;
    tsgs__split split;
    const tsgs_dataset *ds;
    tsgs_params p;
    const void *src; /* the root's buffer, between the barriers */
    long shares[MAX_RANKS];
    tsgs_model *m;
    tsgs_status st;
} safe_rank;

static safe_rank *safe_world[MAX_RANKS];

static int fake_share(void *ctx, void *buf, size_t bytes, int root)
{
    safe_rank *r = ctx;
    if (r->rank == root)
        safe_world[0]->src = buf;
    safe_world[0]->shares[r->rank]++;
    pthread_barrier_wait(&r->w->bar);
    if (r->rank != root)
        memcpy(buf, safe_world[0]->src, bytes);
    pthread_barrier_wait(&r->w->bar); /* all read before the next write */
    return 0;
}

static int safe_gather(void *ctx, double *v, size_t n, int own, int failed)
{
    safe_rank *r = ctx;
    rank_t fake = {r->w, r->rank, r->split, NULL, r->p, -1, NULL, TSGS_OK};
    return fake_gather(&fake, v, n, own, failed);
}

static void *safe_main(void *arg)
{
    safe_rank *r = arg;
    r->st = tsgs__train_split(r->ds, &r->p, NULL, &r->split, NULL, &r->m,
                              NULL, NULL);
    return NULL;
}

/* m's model file, as text (freed by the caller). */
static char *model_text(const tsgs_model *m, const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/m.model", dir);
    ck_assert_int_eq(tsgs_model_save(m, path, NULL), TSGS_OK);
    char *t = test_read_file(path, NULL);
    ck_assert_ptr_nonnull(t);
    return t;
}

/* Loop _i: 0, two moons with 30 labels (the cluster arm's paths too);
 * 1, three classes (one-vs-rest, each class's paths spread). 2, 3 and 4
 * ranks. */
START_TEST(safe_paths_over_ranks_give_the_model_of_one_process)
{
    tsgs_dataset *ds = _i == 0
                           ? fixture_moons(400, 30, 0.1, 5, NULL)
                           : fixture_blobs(400, 4, 1.5, 0.5, 60, 30, 7, NULL);
    if (_i == 1) /* positive rows by their first feature: a third class */
        for (size_t i = 0; i < ds->n; i++)
            if (ds->y[i] == 1.0 && ds->x[i * ds->d] > 0.75f)
                ds->y[i] = 2.0;
    tsgs_params p = tsgs_params_default();
    p.threads = 2;
    tsgs_model *one = NULL;
    ck_assert_int_eq(tsgs__train_split(ds, &p, NULL, NULL, NULL, &one, NULL,
                                       NULL),
                     TSGS_OK);
    char dir[64];
    test_make_dir(dir, sizeof dir, "split-safe");
    char *want = model_text(one, dir);
    for (int size = 2; size <= MAX_RANKS; size++) {
        world_t *w = calloc(1, sizeof *w);
        ck_assert_ptr_nonnull(w);
        w->size = size;
        pthread_barrier_init(&w->bar, NULL, (unsigned)size);
        safe_rank r[MAX_RANKS];
        pthread_t th[MAX_RANKS];
        memset(r, 0, sizeof r);
        for (int k = 0; k < size; k++) {
            r[k].w = w;
            r[k].rank = k;
            r[k].split = (tsgs__split){k, size, safe_gather, &r[k],
                                       fake_share};
            r[k].ds = ds;
            r[k].p = p; /* (the model file records the threads) */
            safe_world[k] = &r[k];
        }
        for (int k = 0; k < size; k++)
            ck_assert_int_eq(pthread_create(&th[k], NULL, safe_main, &r[k]),
                             0);
        for (int k = 0; k < size; k++)
            pthread_join(th[k], NULL);
        for (int k = 0; k < size; k++) {
            ck_assert_msg(r[k].st == TSGS_OK, "%d ranks, rank %d: status %d",
                          size, k, r[k].st);
            char *got = model_text(r[k].m, dir);
            ck_assert_msg(strcmp(want, got) == 0,
                          "%d ranks, rank %d: another model file", size, k);
            free(got);
            /* every rank made the same exchanges, and some */
            ck_assert_int_eq(r[0].shares[k], r[0].shares[0]);
            tsgs_model_free(r[k].m);
        }
        ck_assert_int_gt(r[0].shares[0], 0);
        pthread_barrier_destroy(&w->bar);
        free(w);
    }
    free(want);
    test_remove_dir(dir);
    tsgs_model_free(one);
    tsgs_dataset_free(ds);
}
END_TEST

/* A rank that fails (its flag at its first exchange, the grid's) fails
 * every rank's default-solver run, none left waiting for its records. */
static int failing_safe_gather(void *ctx, double *v, size_t n, int own,
                               int failed)
{
    safe_rank *r = ctx;
    return safe_gather(ctx, v, n, own, r->rank == 1 ? 1 : failed);
}

START_TEST(a_failed_rank_fails_every_safe_rank)
{
    tsgs_dataset *ds = fixture_moons(200, 20, 0.1, 3, NULL);
    tsgs_params p = tsgs_params_default();
    p.threads = 1;
    world_t *w = calloc(1, sizeof *w);
    ck_assert_ptr_nonnull(w);
    w->size = 3;
    pthread_barrier_init(&w->bar, NULL, 3);
    safe_rank r[3];
    pthread_t th[3];
    memset(r, 0, sizeof r);
    for (int k = 0; k < 3; k++) {
        r[k].w = w;
        r[k].rank = k;
        r[k].split = (tsgs__split){k, 3, failing_safe_gather, &r[k],
                                   fake_share};
        r[k].ds = ds;
        r[k].p = p;
        safe_world[k] = &r[k];
    }
    for (int k = 0; k < 3; k++)
        ck_assert_int_eq(pthread_create(&th[k], NULL, safe_main, &r[k]), 0);
    for (int k = 0; k < 3; k++)
        pthread_join(th[k], NULL);
    for (int k = 0; k < 3; k++) {
        ck_assert_int_eq(r[k].st, TSGS_ERR_NOMEM);
        ck_assert_ptr_null(r[k].m);
        ck_assert_int_eq(w->calls[k], 1); /* the grid's check ended it */
    }
    ck_assert_int_eq(r[0].shares[0], 0); /* no records sent */
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
    tcase_add_loop_test(tc, ranks_holding_shares_give_the_bits_of_one_process,
                        0, 4);
    tcase_add_test(tc, a_bad_value_in_a_share_is_the_one_process_error);
    tcase_add_loop_test(tc,
                        safe_paths_over_ranks_give_the_model_of_one_process,
                        0, 2);
    tcase_add_test(tc, a_failed_rank_fails_every_safe_rank);
    suite_add_tcase(s, tc);
    return s;
}
