/* tsgs_dataset_read_mpi (include/tsgs3vm_mpi.h, issue #34): each process
 * reads its share of a training file (tsgs__dataset_read_share: byte
 * ranges of a text file split at line starts, row ranges of a .npy) and
 * the processes put together one dataset that every one of them sees
 * whole, but holds only in part (tsgs__held, data.h):
 *
 * - the labels of every row (8 bytes a row: the labeled rows, the classes,
 *   --labeled's sample and the mini-batches' draws need them all);
 * - the features in an address range for all n x d floats mapped with no
 *   memory behind it (MAP_NORESERVE, no huge pages): this process's share
 *   written there, every labeled row fetched and pinned when a training
 *   starts, and the rows a step or a fit needs fetched from their holders
 *   (an MPI_Allgatherv of each one's in the list's order) and let go of
 *   after (madvise MADV_DONTNEED on pages that hold nothing pinned), so
 *   that what is resident is ~1/N of the rows plus the labeled ones.
 *
 * The training code reads rows by their index as it always did; what
 * reads every row (the scaler's fit, the finiteness check) does it over
 * the shares (scaler.c, train.c) with the one-process order of sums. */
/* madvise, MADV_DONTNEED, MAP_ANONYMOUS, MAP_NORESERVE, mincore */
#define _DEFAULT_SOURCE
#include "tsgs3vm_mpi.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

typedef struct {
    tsgs__held h; /* h.ctx is this */
    MPI_Comm comm;
    MPI_Datatype row_t; /* d floats */
    size_t *row0;       /* size + 1 */
    float *x;
    size_t n, d, page, npages;
    unsigned char *pin; /* per page: holds this process's share or a
                           pinned row: never let go of */
    uint32_t *ref;      /* per page: fetched rows on it not let go of */
    int *counts, *displs;
    size_t *cursor;
    double fetched_bytes; /* rows received from the others */
} held_ctx;

static int owner_of(const held_ctx *c, size_t i)
{
    int lo = 0, hi = c->h.size - 1; /* the last k with row0[k] <= i */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (c->row0[mid] <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The pages that row i's floats lie on: [*p0, *p1]. */
static void pages_of(const held_ctx *c, size_t i, size_t *p0, size_t *p1)
{
    const size_t b = i * c->d * sizeof(float);
    *p0 = b / c->page;
    *p1 = (b + c->d * sizeof(float) - 1) / c->page;
}

static int any_failed(const held_ctx *c, int failed)
{
    int any = failed;
    if (MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, c->comm) !=
        MPI_SUCCESS)
        return 1;
    return any;
}

static int fetch(void *ctx, const size_t *idx, size_t n, int pin, int failed)
{
    held_ctx *c = ctx;
    const int P = c->h.size, me = c->h.rank;
    float *send = NULL, *recv = NULL;
    size_t mine = 0;
    for (int k = 0; k < P; k++)
        c->counts[k] = 0;
    for (size_t j = 0; j < n; j++)
        c->counts[owner_of(c, idx[j])]++;
    mine = (size_t)c->counts[me];
    send = malloc(sizeof(float) * c->d * (mine ? mine : 1));
    recv = malloc(sizeof(float) * c->d * (n ? n : 1));
    failed = any_failed(c, failed || !send || !recv);
    if (failed)
        goto done;
    size_t at = 0;
    for (size_t j = 0; j < n; j++)
        if (owner_of(c, idx[j]) == me)
            memcpy(send + at++ * c->d, c->x + idx[j] * c->d,
                   sizeof(float) * c->d);
    int off = 0;
    for (int k = 0; k < P; k++) {
        c->displs[k] = off;
        off += c->counts[k];
    }
    if (MPI_Allgatherv(send, (int)mine, c->row_t, recv, c->counts, c->displs,
                       c->row_t, c->comm) != MPI_SUCCESS) {
        failed = 1;
        goto done;
    }
    c->fetched_bytes += sizeof(float) * (double)c->d * (double)(n - mine);
    for (int k = 0; k < P; k++)
        c->cursor[k] = (size_t)c->displs[k];
    for (size_t j = 0; j < n; j++) {
        const int k = owner_of(c, idx[j]);
        const float *src = recv + c->cursor[k]++ * c->d;
        if (k == me)
            continue;
        size_t p0, p1;
        pages_of(c, idx[j], &p0, &p1);
        for (size_t p = p0; p <= p1; p++) {
            if (pin)
                c->pin[p] = 1;
            else
                c->ref[p]++;
        }
        memcpy(c->x + idx[j] * c->d, src, sizeof(float) * c->d);
    }
done:
    free(send);
    free(recv);
    return failed;
}

static void release(void *ctx, const size_t *idx, size_t n)
{
    held_ctx *c = ctx;
    for (size_t j = 0; j < n; j++) {
        if (owner_of(c, idx[j]) == c->h.rank)
            continue;
        size_t p0, p1;
        pages_of(c, idx[j], &p0, &p1);
        for (size_t p = p0; p <= p1; p++) {
            if (c->ref[p] == 0)
                continue;
            if (--c->ref[p] == 0 && !c->pin[p])
                madvise((char *)c->x + p * c->page, c->page, MADV_DONTNEED);
        }
    }
}

static int pieces(void *ctx, void *v, size_t item, const size_t *first,
                  int failed)
{
    held_ctx *c = ctx;
    if ((failed = any_failed(c, failed)))
        return failed;
    MPI_Datatype t;
    if (MPI_Type_contiguous((int)item, MPI_BYTE, &t) != MPI_SUCCESS)
        return 1;
    MPI_Type_commit(&t);
    for (int k = 0; k < c->h.size; k++) {
        c->counts[k] = (int)(first[k + 1] - first[k]);
        c->displs[k] = (int)first[k];
    }
    int rc = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, c->counts,
                            c->displs, t, c->comm);
    MPI_Type_free(&t);
    return rc != MPI_SUCCESS;
}

static void held_free(const tsgs__held *h)
{
    if (!h)
        return;
    held_ctx *c = h->ctx;
    int done = 0;
    MPI_Finalized(&done);
    if (!done) {
        if (c->row_t != MPI_DATATYPE_NULL)
            MPI_Type_free(&c->row_t);
        if (c->comm != MPI_COMM_NULL)
            MPI_Comm_free(&c->comm);
    }
    free(c->row0);
    free(c->pin);
    free(c->ref);
    free(c->counts);
    free(c->displs);
    free(c->cursor);
    free(c);
}

/* The lowest failing process's error, on every process (st: this one's);
 * returns the status all return. */
static tsgs_status agree(MPI_Comm comm, int rank, int size, tsgs_status st,
                         tsgs_error *err)
{
    int who = st != TSGS_OK ? rank : size;
    MPI_Allreduce(MPI_IN_PLACE, &who, 1, MPI_INT, MPI_MIN, comm);
    if (who == size)
        return TSGS_OK;
    tsgs_error e;
    if (rank == who) {
        if (err)
            e = *err;
        else
            tsgs__fail(&e, st, NULL, 0, "rank %d failed", rank);
    }
    MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, who, comm);
    if (err)
        *err = e;
    return e.code != TSGS_OK ? e.code : TSGS_ERR_INTERNAL;
}

typedef struct {
    unsigned long long n, d, nnz, whole;
} share_shape;

/* The share's rows s into the held rows from row lo: dense rows of the
 * same width copied a MiB at a time, the pages copied from let go of as
 * it goes (s is freed next), so that the rows are not held twice; others
 * row by row at the whole's width. */
static void move_rows(held_ctx *c, const tsgs_dataset *s, size_t lo)
{
    if (tsgs__sparse(s) || s->d != c->d || s->map || s->x_borrowed) {
        for (size_t i = 0; i < s->n; i++)
            tsgs__row_dense(s, i, c->x + (lo + i) * c->d);
        return;
    }
    const size_t total = s->n * c->d * sizeof(float), step = (size_t)1 << 20;
    char *src = (char *)s->x, *dst = (char *)(c->x + lo * c->d);
    uintptr_t dropped = ((uintptr_t)src + c->page - 1) / c->page * c->page;
    for (size_t off = 0; off < total; off += step) {
        const size_t k = total - off < step ? total - off : step;
        memcpy(dst + off, src + off, k);
        const uintptr_t end = ((uintptr_t)src + off + k) / c->page * c->page;
        if (end > dropped) {
            madvise((void *)dropped, end - dropped, MADV_DONTNEED);
            dropped = end;
        }
    }
}

/* The held rows' bookkeeping for n rows x d and the dataset *ds over
 * them (its x the address range): 1 when out of memory (what was made
 * is freed by the caller: held_free, tsgs_dataset_free). */
static int held_new(held_ctx *c, int rank, int size, size_t n, size_t d,
                    tsgs_dataset **out)
{
    tsgs_dataset *ds = NULL;
    c->h.rank = rank;
    c->h.size = size;
    c->h.ctx = c;
    c->h.fetch = fetch;
    c->h.release = release;
    c->h.pieces = pieces;
    c->n = n;
    c->d = d;
    c->page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t bytes = n * d * sizeof(float);
    c->npages = bytes / c->page + 1;
    c->row0 = malloc(sizeof(size_t) * (size_t)(size + 1));
    c->pin = calloc(c->npages, 1);
    c->ref = calloc(c->npages, sizeof(uint32_t));
    c->counts = malloc(sizeof(int) * (size_t)size);
    c->displs = malloc(sizeof(int) * (size_t)size);
    c->cursor = malloc(sizeof(size_t) * (size_t)size);
    void *map = mmap(NULL, c->npages * c->page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ds = calloc(1, sizeof *ds);
    if (ds && map != MAP_FAILED) {
        ds->map = map;
        ds->map_len = c->npages * c->page;
        ds->x = c->x = map;
#ifdef MADV_NOHUGEPAGE
        /* a huge page would make a fetched row cost 2 MiB */
        madvise(map, ds->map_len, MADV_NOHUGEPAGE);
#endif
    }
    if (ds)
        ds->y = malloc(sizeof(double) * (n ? n : 1));
    *out = ds;
    return !c->row0 || !c->pin || !c->ref || !c->counts || !c->displs ||
           !c->cursor || !ds || !ds->x || !ds->y;
}

/* The shares put together (collective): the communicator and row type
 * of c, the rows' owners, every row's label into ds, this process's rows
 * s moved into ds's, their pages pinned. Returns its first row. */
static size_t held_fill(held_ctx *c, MPI_Comm comm, const share_shape *all,
                        const tsgs_dataset *s, tsgs_dataset *ds)
{
    const int rank = c->h.rank, size = c->h.size;
    MPI_Comm_dup(comm, &c->comm);
    MPI_Type_contiguous((int)c->d, MPI_FLOAT, &c->row_t);
    MPI_Type_commit(&c->row_t);
    c->row0[0] = 0;
    for (int k = 0; k < size; k++) {
        c->row0[k + 1] = c->row0[k] + all[k].n;
        c->counts[k] = (int)all[k].n;
        c->displs[k] = (int)c->row0[k];
    }
    c->h.row0 = c->row0;
    /* every row's label */
    MPI_Allgatherv(s->y, (int)s->n, MPI_DOUBLE, ds->y, c->counts,
                   c->displs, MPI_DOUBLE, comm);
    /* this process's rows, at the whole's width; their pages pinned */
    const size_t lo = c->row0[rank];
    move_rows(c, s, lo);
    if (s->n) {
        size_t p0, p1, q0, q1;
        pages_of(c, lo, &p0, &p1);
        pages_of(c, lo + s->n - 1, &q0, &q1);
        for (size_t p = p0; p <= q1; p++)
            c->pin[p] = 1;
    }
    return lo;
}

/* This process's share of the file into sh (collective: an error names
 * the file's line, counted over the parts before this one, and every
 * process returns the same status; on an error sh->ds is freed). */
static tsgs_status read_own_share(MPI_Comm comm, int rank, int size,
                                  const char *path,
                                  const tsgs_read_options *opt,
                                  tsgs__share *sh, tsgs_error *e)
{
    tsgs_status st = tsgs__dataset_read_share(path, opt, rank, size, sh, e);
    long lines = st == TSGS_OK || sh->relative ? sh->lines : 0, base = 0;
    MPI_Exscan(&lines, &base, 1, MPI_LONG, MPI_SUM, comm);
    if (rank == 0)
        base = 0;
    if (st != TSGS_OK && sh->relative)
        st = tsgs__read_error_relocate(path, base, st, e);
    if ((st = agree(comm, rank, size, st, e)) != TSGS_OK) {
        tsgs_dataset_free(sh->ds);
        sh->ds = NULL;
    }
    return st;
}

/* LIBSVM rows the one-process read keeps sparse: every process reads them
 * whole (the stochastic solvers run sparse rows whole anyway). */
static tsgs_status read_whole(MPI_Comm comm, int rank, int size,
                              const char *path, const tsgs_read_options *opt,
                              double t0, tsgs_dataset **out,
                              tsgs_mpi_read_stats *stats, tsgs_error *e)
{
    tsgs_status st = tsgs_dataset_read(path, opt, out, e);
    if (stats) {
        memset(stats, 0, sizeof *stats);
        stats->rows = st == TSGS_OK ? (*out)->n : 0;
        stats->row_hi = stats->rows;
        stats->whole = 1;
        stats->read_seconds = MPI_Wtime() - t0;
    }
    return agree(comm, rank, size, st, e);
}

/* What a read in shares reports: the rows, this process's [lo, hi) and
 * byte range, the time since t0. */
static void share_stats(tsgs_mpi_read_stats *stats, size_t n, size_t lo,
                        const tsgs__share *sh, double t0)
{
    if (!stats)
        return;
    stats->rows = n;
    stats->row_lo = lo;
    stats->row_hi = lo + sh->ds->n;
    stats->from = sh->from;
    stats->to = sh->to;
    stats->whole = sh->whole;
    stats->read_seconds = MPI_Wtime() - t0;
}

/* Every process's share shape into all[0..size) (collective) and the
 * whole file's: its rows, the widest share, LIBSVM's pairs. */
static void whole_shape(MPI_Comm comm, const tsgs__share *sh,
                        share_shape *all, int size, size_t *n, size_t *d,
                        size_t *nnz)
{
    share_shape mine = {sh->ds->n, sh->ds->d, sh->nnz, (unsigned)sh->whole};
    MPI_Allgather(&mine, 4, MPI_UNSIGNED_LONG_LONG, all, 4,
                  MPI_UNSIGNED_LONG_LONG, comm);
    for (int k = 0; k < size; k++) {
        *n += all[k].n;
        *d = all[k].d > *d ? all[k].d : *d;
        *nnz += all[k].nnz;
    }
}

tsgs_status tsgs_dataset_read_mpi(MPI_Comm comm, const char *path,
                                  const tsgs_read_options *opt,
                                  tsgs_dataset **out,
                                  tsgs_mpi_read_stats *stats,
                                  tsgs_error *err)
{
    int rank, size, inited = 0;
    MPI_Initialized(&inited);
    if (!inited || !path || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_dataset_read_mpi: %s",
                          inited ? "NULL argument" : "MPI is not initialised");
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const double t0 = MPI_Wtime();
    tsgs__share sh;
    tsgs_error e0;
    tsgs_error *e = err ? err : &e0;
    tsgs_status st = read_own_share(comm, rank, size, path, opt, &sh, e);
    if (st != TSGS_OK)
        return st;
    share_shape *all = malloc(sizeof *all * (size_t)size);
    held_ctx *c = calloc(1, sizeof *c);
    tsgs_dataset *ds = NULL;
    size_t n = 0, d = 0, nnz = 0;
    int failed = !all || !c;
    if (c) {
        c->comm = MPI_COMM_NULL;
        c->row_t = MPI_DATATYPE_NULL;
        c->h.ctx = c;
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm);
    if (failed)
        goto fail;
    whole_shape(comm, &sh, all, size, &n, &d, &nnz);
    const tsgs_data_layout layout = sh.ds->layout;
    if (!failed && layout.format == TSGS_FORMAT_LIBSVM &&
        !tsgs__keep_dense(n, d, nnz)) {
        free(all);
        free(c);
        tsgs_dataset_free(sh.ds);
        return read_whole(comm, rank, size, path, opt, t0, out, stats, e);
    }
    if (!failed)
        failed = held_new(c, rank, size, n, d, &ds);
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm);
    if (failed)
        goto fail;
    const size_t lo = held_fill(c, comm, all, sh.ds, ds);
    ds->n = ds->cap = n;
    ds->d = d;
    ds->layout = layout;
    ds->held = &c->h;
    ds->held_free = held_free;
    share_stats(stats, n, lo, &sh, t0);
    tsgs_dataset_free(sh.ds);
    free(all);
    *out = ds;
    return TSGS_OK;
fail:
    tsgs_dataset_free(sh.ds);
    free(all);
    if (ds) {
        ds->held = NULL;
        tsgs_dataset_free(ds);
    }
    if (c)
        held_free(&c->h);
    return tsgs__fail(err, TSGS_ERR_NOMEM, path, 0,
                      "out of memory putting the processes' shares "
                      "together (%zu rows x %zu features)",
                      n, d);
}

int tsgs_dataset_rows_held(const tsgs_dataset *ds, size_t *resident,
                           double *fetched_bytes)
{
    if (fetched_bytes)
        *fetched_bytes = 0.0;
    if (!ds || !ds->held) {
        if (resident)
            *resident = ds ? ds->n : 0;
        return 0;
    }
    const held_ctx *c = ds->held->ctx;
    if (fetched_bytes)
        *fetched_bytes = c->fetched_bytes;
    if (resident) { /* rows on pages that are resident now */
        size_t pages = 0;
        unsigned char *v = malloc(c->npages ? c->npages : 1);
        if (v && mincore(c->x, c->npages * c->page, v) == 0)
            for (size_t p = 0; p < c->npages; p++)
                pages += v[p] & 1;
        free(v);
        const double per = (double)c->page / (double)(c->d * sizeof(float));
        double r = (double)pages * per;
        *resident = r < (double)c->n ? (size_t)r : c->n;
    }
    return 1;
}
