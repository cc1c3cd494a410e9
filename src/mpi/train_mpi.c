/* tsgs_train_mpi (include/tsgs3vm_mpi.h): tsgs_train with a tsgs__split
 * whose gather is an MPI_Allgatherv of the processes' shares of a
 * mini-batch's decision values. Each value is one row's, computed by one
 * process in the order one process would use, and moved whole: no sum
 * crosses processes, so the bits do not depend on their number. The flag
 * that goes round before the values also carries the caller's stop: a
 * stop asked on any process is agreed by all in the same step's exchange,
 * and the solvers see it when they next ask (after that step). Built only
 * with MPI (Makefile: MPI). */
#include "tsgs3vm_mpi.h"

#include <limits.h>
#include <stdlib.h>

#include "train.h"

typedef struct {
    MPI_Comm comm;
    int size;
    int *counts, *displs; /* per process: its share of a mini-batch */
    size_t n;             /* the mini-batch size counts is for */
    int rank;
    tsgs_mpi_stats st;
    const tsgs_train_hooks *outer; /* the caller's hooks (NULL: none) */
    int stop;                      /* a stop agreed in an exchange */
} gather_ctx;

/* counts and displs for a mini-batch of n rows (tsgs__split_range's). */
static void shares_of(gather_ctx *g, size_t n)
{
    tsgs__split me = {0, g->size, NULL, NULL, NULL};
    for (int k = 0; k < g->size; k++) {
        size_t lo, hi;
        me.rank = k;
        tsgs__split_range(&me, n, &lo, &hi);
        g->counts[k] = (int)(hi - lo);
        g->displs[k] = (int)lo;
    }
    g->n = n;
}

/* Whether this process's caller asks to stop (asked once per exchange,
 * from the thread that makes it). */
static int stop_asked(const gather_ctx *g)
{
    return !g->stop && g->outer && g->outer->should_stop &&
           g->outer->should_stop(g->outer->user);
}

static int gather(void *ctx, double *v, size_t n, int own, int failed)
{
    gather_ctx *g = ctx;
    /* failed + 1 where this process failed, else 1 where its caller asks
     * to stop: the largest over the processes says both */
    int any = failed > 0 ? failed + 1 : stop_asked(g);
    const double t0 = MPI_Wtime();
    /* every process learns whether one failed first: then none waits for
     * values that a failed one cannot send */
    if (MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, g->comm) !=
        MPI_SUCCESS)
        return 1;
    if (any == 1)
        g->stop = 1; /* every process, in this step's exchange */
    any = any > 1 ? any - 1 : 0;
    g->st.bytes_sent += sizeof(int);
    g->st.bytes_received += sizeof(int) * (double)(g->size - 1);
    if (!any && own) {
        if (n != g->n)
            shares_of(g, n);
        if (MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, g->counts,
                           g->displs, MPI_DOUBLE, g->comm) != MPI_SUCCESS)
            any = 1;
        const double mine = sizeof(double) * (double)g->counts[g->rank];
        g->st.bytes_sent += mine;
        g->st.bytes_received += sizeof(double) * (double)n - mine;
    }
    g->st.exchanges++;
    g->st.seconds += MPI_Wtime() - t0;
    return any;
}

/* The caller's hooks as the solvers see them in a job: progress and
 * warnings as they are, the stop the one agreed in the exchanges (so it
 * comes after the same step on every process). */
typedef struct {
    const tsgs_train_hooks *outer;
    const gather_ctx *g;
} relay_hooks;

static void relay_progress(const tsgs_progress *pr, void *user)
{
    const relay_hooks *rh = user;
    rh->outer->progress(pr, rh->outer->user);
}

static void relay_warn(const char *message, void *user)
{
    const relay_hooks *rh = user;
    rh->outer->warn(message, rh->outer->user);
}

static int relay_should_stop(void *user)
{
    return ((const relay_hooks *)user)->g->stop;
}

/* The default solver's path tasks' records (tsgs__split's share): root's
 * bytes broadcast, in pieces an int counts. */
static int share(void *ctx, void *buf, size_t bytes, int root)
{
    gather_ctx *g = ctx;
    const double t0 = MPI_Wtime();
    int failed = 0;
    for (size_t at = 0; at < bytes && !failed;) {
        const size_t n = bytes - at < (size_t)INT_MAX ? bytes - at
                                                      : (size_t)INT_MAX;
        failed = MPI_Bcast((unsigned char *)buf + at, (int)n, MPI_BYTE, root,
                           g->comm) != MPI_SUCCESS;
        at += n;
    }
    if (root == g->rank)
        g->st.bytes_sent += (double)bytes * (g->size - 1);
    else
        g->st.bytes_received += (double)bytes;
    g->st.exchanges++;
    g->st.seconds += MPI_Wtime() - t0;
    return failed;
}

/* A dataset read in shares: every labeled row fetched and pinned on every
 * process (the solvers read them at every step). */
static tsgs_status pin_labeled(const tsgs_dataset *ds, tsgs_error *err)
{
    const tsgs__held *h = ds->held;
    const size_t nl = tsgs__label_split(ds->y, ds->n, 1, NULL, NULL);
    size_t *rows = malloc(sizeof(size_t) * (nl ? nl : 1));
    if (rows)
        tsgs__label_split(ds->y, ds->n, 1, rows, NULL);
    int failed = h->fetch(h->ctx, rows, rows ? nl : 0, 1, !rows);
    free(rows);
    return failed ? tsgs__fail(err, TSGS_ERR_NOMEM, NULL, 0,
                               "the labeled rows over the processes: out "
                               "of memory")
                  : TSGS_OK;
}

/* What a dataset read in shares carries (tsgs3vm_mpi.h): tsg on two
 * classes, no probabilities, a scale fitted over the shares. */
static tsgs_status held_carried(const tsgs_dataset *ds, const tsgs_params *p,
                                tsgs_error *err)
{
    double *labels = NULL;
    size_t k = 0;
    tsgs_status st = tsgs_dataset_classes(ds, &labels, &k, err);
    free(labels);
    if (st != TSGS_OK)
        return st;
    if (p->solver != TSGS_SOLVER_TSG || p->probability || k > 2 ||
        p->scale == TSGS_SCALE_MAXABS || p->scale == TSGS_SCALE_CLASS)
        return tsgs__fail(err, TSGS_ERR_UNSUPPORTED, NULL, 0,
                          "tsgs_train_mpi: rows read in shares "
                          "(tsgs_dataset_read_mpi) train with solver tsg "
                          "on two classes, without probabilities, scale "
                          "auto, zscore, minmax or none; read the rows "
                          "whole on every process for the rest");
    return TSGS_OK;
}

tsgs_status tsgs_train_mpi(MPI_Comm comm, const tsgs_dataset *train,
                           const tsgs_params *params,
                           const tsgs_train_hooks *hooks, tsgs_model **out,
                           int *stopped_early, tsgs_mpi_stats *stats,
                           tsgs_error *err)
{
    return tsgs_train_mpi_checkpointed(comm, train, params, hooks, NULL, out,
                                       stopped_early, stats, err);
}

tsgs_status tsgs_train_mpi_checkpointed(MPI_Comm comm,
                                        const tsgs_dataset *train,
                                        const tsgs_params *params,
                                        const tsgs_train_hooks *hooks,
                                        const tsgs_checkpoint *ck,
                                        tsgs_model **out, int *stopped_early,
                                        tsgs_mpi_stats *stats,
                                        tsgs_error *err)
{
    int rank, size, level, inited = 0;
    MPI_Initialized(&inited);
    if (!inited)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_train_mpi: MPI is not initialised");
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS ||
        MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_train_mpi: not a communicator");
    MPI_Query_thread(&level);
    if (size > 1 && level < MPI_THREAD_SERIALIZED && params &&
        params->threads != 1)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_train_mpi: MPI initialised below "
                          "MPI_THREAD_SERIALIZED; with threads != 1 call "
                          "MPI_Init_thread with MPI_THREAD_SERIALIZED");
    gather_ctx g = {comm, size, NULL, NULL, 0, rank, {size, 0, 0, 0, 0},
                    hooks, 0};
    g.counts = malloc(sizeof(int) * (size_t)size);
    g.displs = malloc(sizeof(int) * (size_t)size);
    tsgs_status st;
    if (!g.counts || !g.displs) {
        st = TSGS__NOMEM(err);
    } else if (train && train->held && params &&
               ((st = held_carried(train, params, err)) != TSGS_OK ||
                (st = pin_labeled(train, err)) != TSGS_OK)) {
        /* (said on every process) */
    } else {
        tsgs__split s = {rank, size, gather, &g, share};
        relay_hooks rh = {hooks, &g};
        tsgs_train_hooks h;
        if (hooks) {
            h = *hooks;
            h.user = &rh;
            h.progress = hooks->progress ? relay_progress : NULL;
            h.warn = hooks->warn ? relay_warn : NULL;
            h.should_stop = hooks->should_stop ? relay_should_stop : NULL;
        }
        st = tsgs__train_split(train, params, hooks ? &h : NULL, &s, ck,
                               out, stopped_early, err);
    }
    free(g.counts);
    free(g.displs);
    if (stats)
        *stats = g.st;
    return st;
}
