/* The collectives of one tsg step over MPI (docs/mpi.md, issue #34),
 * timed alone, for the scaling model (bench/scripts/mpi_scaling.py).
 * A step with the rows read in shares makes four (src/mpi/):
 *
 *   1. MPI_Allreduce of one int (MPI_MAX): any rank failed (rows_mpi.c
 *      any_failed, before the mini-batch's rows are fetched);
 *   2. MPI_Allgatherv of the mini-batch's rows, each rank sending the rows
 *      of it that it holds (a datatype of d floats; B_u rows in all);
 *   3. MPI_Allreduce of one int (train_mpi.c gather: the failure flag);
 *   4. MPI_Allgatherv, in place, of the B_u decision values (doubles),
 *      rank k's share rows [B_u k / N, B_u (k + 1) / N).
 *
 * Kinds measured (one line each, per size):
 *   allreduce_int   1 (and 3) alone;
 *   allgatherv      4's pattern (doubles in place, shares as the step
 *                   cuts them) for a total of S bytes, S from 8 B to
 *                   --max-bytes: the per-call latency and per-byte cost;
 *   step            1-4 in a row, as a step makes them, for B_u rows of d
 *                   features (the rows' owners taken as an even split:
 *                   random rows of evenly cut shares).
 * Each repetition starts after an MPI_Barrier; its time is the slowest
 * rank's (an MPI_Allreduce after the clock stops); per size: warm-up
 * repetitions, then REPS, and the minimum, 10th percentile, median and
 * 90th percentile in microseconds, one tab-separated line per size.
 * Usage (mpirun -np N):
 *   mpi_collectives [--reps R] [--max-bytes B] [--batch B_U] [--dims D]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* counts and displacements of n items cut as tsgs__split_range cuts them */
static void shares(int size, long n, int *counts, int *displs)
{
    for (int k = 0; k < size; k++) {
        const long lo = n * k / size, hi = n * (k + 1) / size;
        counts[k] = (int)(hi - lo);
        displs[k] = (int)lo;
    }
}

typedef struct {
    MPI_Comm comm;
    int rank, size;
    int *counts, *displs, *rcounts, *rdispls;
    double *values;   /* the gathered doubles */
    float *rows_send, *rows_recv;
    MPI_Datatype row_t;
    long n;           /* doubles (allgatherv) or rows (step) */
} bench_ctx;

enum { KIND_ALLREDUCE, KIND_ALLGATHERV, KIND_STEP };

static void run_once(bench_ctx *c, int kind)
{
    int flag = 0;
    switch (kind) {
    case KIND_ALLREDUCE:
        MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_MAX, c->comm);
        break;
    case KIND_ALLGATHERV:
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c->values,
                       c->counts, c->displs, MPI_DOUBLE, c->comm);
        break;
    case KIND_STEP:
        MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_MAX, c->comm);
        MPI_Allgatherv(c->rows_send, c->rcounts[c->rank], c->row_t,
                       c->rows_recv, c->rcounts, c->rdispls, c->row_t,
                       c->comm);
        MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_MAX, c->comm);
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c->values,
                       c->counts, c->displs, MPI_DOUBLE, c->comm);
        break;
    }
}

/* reps timed repetitions (after warm-up ones); the slowest rank's time of
 * each, sorted, in t (on every rank) */
static void time_kind(bench_ctx *c, int kind, int reps, double *t)
{
    const int warm = reps / 10 + 5;
    for (int i = 0; i < warm + reps; i++) {
        MPI_Barrier(c->comm);
        const double t0 = MPI_Wtime();
        run_once(c, kind);
        double dt = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, c->comm);
        if (i >= warm)
            t[i - warm] = dt;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
}

static void report(const bench_ctx *c, const char *kind, long bytes,
                   const double *t, int reps)
{
    if (c->rank != 0)
        return;
    printf("%d\t%s\t%ld\t%d\t%.3f\t%.3f\t%.3f\t%.3f\n", c->size, kind, bytes,
           reps, 1e6 * t[0], 1e6 * t[reps / 10], 1e6 * t[reps / 2],
           1e6 * t[(9 * reps) / 10]);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int reps = 2000, batch = 256, dims = 18;
    long max_bytes = 4L << 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--max-bytes"))
            max_bytes = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--batch"))
            batch = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--dims"))
            dims = atoi(argv[i + 1]);
    }
    if (reps < 10 || batch < 1 || dims < 1 || max_bytes < 8) {
        fprintf(stderr, "mpi_collectives: bad arguments\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    bench_ctx c = {MPI_COMM_WORLD, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                   MPI_DATATYPE_NULL, 0};
    MPI_Comm_rank(c.comm, &c.rank);
    MPI_Comm_size(c.comm, &c.size);
    const long max_n = max_bytes / 8 > batch ? max_bytes / 8 : batch;
    c.counts = malloc(sizeof(int) * (size_t)c.size);
    c.displs = malloc(sizeof(int) * (size_t)c.size);
    c.rcounts = malloc(sizeof(int) * (size_t)c.size);
    c.rdispls = malloc(sizeof(int) * (size_t)c.size);
    c.values = calloc((size_t)max_n, sizeof(double));
    c.rows_send = calloc((size_t)batch * (size_t)dims, sizeof(float));
    c.rows_recv = calloc((size_t)batch * (size_t)dims, sizeof(float));
    double *t = malloc(sizeof(double) * (size_t)reps);
    if (!c.counts || !c.displs || !c.rcounts || !c.rdispls || !c.values ||
        !c.rows_send || !c.rows_recv || !t) {
        fprintf(stderr, "mpi_collectives: out of memory\n");
        MPI_Abort(c.comm, 1);
    }
    MPI_Type_contiguous(dims, MPI_FLOAT, &c.row_t);
    MPI_Type_commit(&c.row_t);
    if (c.rank == 0)
        printf("ranks\tkind\tbytes\treps\tmin_us\tp10_us\tmedian_us\tp90_us\n");

    time_kind(&c, KIND_ALLREDUCE, reps, t);
    report(&c, "allreduce_int", 4, t, reps);

    for (long bytes = 8; bytes <= max_bytes; bytes *= 4) {
        c.n = bytes / 8;
        shares(c.size, c.n, c.counts, c.displs);
        /* fewer repetitions of the large ones: ~0.5 GB moved at most */
        long r = (512L << 20) / bytes;
        const int rr = r < reps ? (r < 20 ? 20 : (int)r) : reps;
        time_kind(&c, KIND_ALLGATHERV, rr, t);
        report(&c, "allgatherv", bytes, t, rr);
    }

    c.n = batch;
    shares(c.size, batch, c.counts, c.displs);
    shares(c.size, batch, c.rcounts, c.rdispls);
    time_kind(&c, KIND_STEP, reps, t);
    report(&c, "step", (long)batch * (long)dims * 4 + 8L * batch + 8, t,
           reps);

    MPI_Type_free(&c.row_t);
    free(c.counts);
    free(c.displs);
    free(c.rcounts);
    free(c.rdispls);
    free(c.values);
    free(c.rows_send);
    free(c.rows_recv);
    free(t);
    MPI_Finalize();
    return 0;
}
