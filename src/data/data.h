/* data.h: datasets, their readers and formats, finiteness, label
 * splits, the scaler and scaled row buffers, synthetic sets, compressed
 * streams.
 * Internal (tsgs__ names), not installed; internal.h includes every
 * layer. */
#ifndef TSGS_DATA_DATA_H
#define TSGS_DATA_DATA_H

#include "common/common.h"
#include "parallel/parallel.h"

/* ---------------------------------------------------------- dataset.c */

/* The rows a process holds of a dataset that processes read in shares
 * (src/mpi/rows_mpi.c, issue #34): process k holds rows [row0[k],
 * row0[k + 1]) and every labeled row; the others' places in x are address
 * space with no memory behind it (reading them gives zeros) until fetched.
 * Every function here is collective over the processes (each calls it
 * with the same arguments, in the same order) but release. */
typedef struct tsgs__held {
    int rank, size;
    const size_t *row0; /* size + 1 */
    void *ctx;
    /* Rows idx[0 .. n) written into every process's x where it lacks
     * them; pin: kept for good, else until released. Returns the largest
     * `failed` of the processes, or 1 where the exchange failed. */
    int (*fetch)(void *ctx, const size_t *idx, size_t n, int pin,
                 int failed);
    /* Lets go of rows fetched unpinned (their memory goes back). */
    void (*release)(void *ctx, const size_t *idx, size_t n);
    /* Items [first[k], first[k + 1]) of v (item bytes each) from process
     * k into every process's v (first: size + 1); returns as fetch. */
    int (*pieces)(void *ctx, void *v, size_t item, const size_t *first,
                  int failed);
} tsgs__held;

/* ds->held's fetch of rows idx[0 .. n) unpinned, and their release; with
 * every row here, `failed` as it is and nothing. */
int tsgs__held_fetch(const tsgs_dataset *ds, const size_t *idx, size_t n,
                     int failed);
void tsgs__held_release(const tsgs_dataset *ds, const size_t *idx, size_t n);

struct tsgs_dataset {
    size_t n;   /* rows */
    size_t d;   /* features per row */
    size_t cap; /* rows allocated */
    float *x;   /* n * d, row-major; NULL when the rows are sparse */
    double *y;  /* n raw labels, NaN = unlabeled */
    int x_borrowed; /* x is the caller's (tsgs_dataset_wrap_dense): never
                       freed or written; copied before a change */
    /* A .npy used in place: x lies inside this private file mapping
     * (munmap'ed, not freed); NULL when x is malloc'ed. */
    void *map;
    size_t map_len;
    /* Sparse rows (CSR), when x is NULL: row i's non-zeros are columns
     * col[ptr[i] .. ptr[i + 1]) (0-based, ascending) with values val[..];
     * memory grows with the non-zeros, not with n * d. */
    size_t *ptr;   /* n + 1 */
    uint32_t *col;
    float *val;
    /* How the reader read it (reader.c, npy.c); zero: built in memory. */
    tsgs_data_layout layout;
    /* Read in shares by processes (src/mpi/): the rows this one holds;
     * held_free(held) at tsgs_dataset_free. NULL: every row is here. */
    const tsgs__held *held;
    void (*held_free)(const tsgs__held *held);
};

/* Whether ds's rows are stored sparse (CSR). */
static inline int tsgs__sparse(const tsgs_dataset *ds) { return !ds->x; }
/* Non-zero entries of ds (dense rows: counted). */
size_t tsgs__dataset_nnz(const tsgs_dataset *ds);
/* A dataset of n rows of dimension d that takes over CSR arrays (ptr of
 * n + 1, col and val of ptr[n]) and labels y (n); on failure they are
 * freed. */
tsgs_status tsgs__dataset_from_csr(size_t n, size_t d, size_t *ptr,
                                   uint32_t *col, float *val, double *y,
                                   tsgs_dataset **out, tsgs_error *err);
/* Row i of ds as d dense floats into out (sparse rows: zeros filled). */
void tsgs__row_dense(const tsgs_dataset *ds, size_t i, float *out);
/* Whether rows stored as dense floats (n x d) are worth it: the LIBSVM
 * reader keeps rows sparse when they are wide and mostly zeros, dense
 * otherwise (so that dense data reads and trains as it always did). */
int tsgs__keep_dense(size_t n, size_t d, size_t nnz);
/* The same by the width alone, for rows read a block at a time: the
 * share of zeros differs from block to block, the width does not (once
 * min_features sets it), and the storage decides which kernel scores a
 * row, down to the last digits of its decision value. */
int tsgs__keep_dense_width(size_t d);
/* ds's rows made dense in place, when they are sparse and n x d floats
 * take at most max_bytes; else TSGS_ERR_UNSUPPORTED naming `who` (the
 * solver or step that needs dense rows) and what to do. */
tsgs_status tsgs__dataset_densify(tsgs_dataset *ds, double max_bytes,
                                  const char *who, tsgs_error *err);

/* ----------------------------------------------------------- reader.c */

/* tsgs_dataset_read, with the smallest chunk a plain file is split into
 * for parallel parsing (the library uses 16 MiB; tests split small files
 * to check that any split reads the same dataset). */
tsgs_status tsgs__dataset_read_split(const char *path,
                                     const tsgs_read_options *opt,
                                     size_t min_chunk, tsgs_dataset **out,
                                     tsgs_error *err);

/* The longest line the text reader takes, in bytes before the '\n' (a
 * longer one is an error naming the file and line): a test hook, set
 * before reading; 0 puts back the default (256 MiB). Returns the old. */
size_t tsgs__read_line_max(size_t max);

/* One process's share of a training file read by `parts` processes
 * (issue #34, docs/mpi.md): a text file's lines after its first data row
 * split into `parts` byte ranges at line starts (part 0 also takes that
 * first row), a .npy's rows into `parts` ranges of rows [n k / parts,
 * n (k + 1) / parts). The shares, in part order, are the rows one process
 * reads (tsgs_dataset_read), no row lost or read twice. */
typedef struct {
    tsgs_dataset *ds; /* the share's rows, in file order (perhaps none),
                         its layout set; LIBSVM: stored dense or sparse by
                         the share alone, as wide as its widest index */
    size_t nnz;       /* LIBSVM: the (index, value) pairs read */
    long lines;       /* text: the lines read (part 0: from the file's
                         first; on an error, up to it) */
    int relative;     /* an error's line counts from the share's first line
                         (add the lines of the parts before it:
                         tsgs__read_error_relocate) */
    int whole;        /* the file was read whole (compressed, a pipe) and
                         rows [from, to) of it kept */
    uint64_t from, to; /* text: its byte range; .npy, whole: its rows */
} tsgs__share;

/* Part `part` of `parts` of path into *out (out->ds NULL on error). Errors
 * as tsgs_dataset_read's, their line relative where out->relative says. */
tsgs_status tsgs__dataset_read_share(const char *path,
                                     const tsgs_read_options *opt, int part,
                                     int parts, tsgs__share *out,
                                     tsgs_error *err);
/* err (status st) says "path:LINE: ..." with a line of a share: say it
 * again with line_base added. Returns st. */
tsgs_status tsgs__read_error_relocate(const char *path, long line_base,
                                      tsgs_status st, tsgs_error *err);
/* The .npy part of tsgs__dataset_read_share (npy.c). */
tsgs_status tsgs__npy_read_share(const char *path,
                                 const tsgs_read_options *opt, int part,
                                 int parts, tsgs__share *out,
                                 tsgs_error *err);

/* -------------------------------------------------------------- npy.c */

/* Whether buf starts with the .npy magic bytes. */
int tsgs__npy_magic(const void *buf, size_t len);
/* Reads a .npy features file (and its labels companion, or a label column
 * as the options say); see tsgs_dataset_read. */
tsgs_status tsgs__npy_read(const char *path, const tsgs_read_options *opt,
                           tsgs_dataset **out, tsgs_error *err);

/* Allocates an empty dataset of dimension d with room for cap rows. */
tsgs_status tsgs__dataset_new(size_t d, size_t cap, tsgs_dataset **out,
                              tsgs_error *err);

/* ----------------------------------------------------------- finite.c */

/* The position of the first NaN or infinity among x[0 .. count), or count
 * when there is none; the threads split the array when it is large. */
size_t tsgs__first_nonfinite(const float *x, size_t count, int threads);

/* ------------------------------------------------------ label_split.c */

/* The indices of y's labeled rows (not NaN) into lidx and of its
 * unlabeled rows into uidx, each in row order (either may be NULL);
 * returns the labeled rows' count. The threads split large arrays: the
 * same lists on any number. */
size_t tsgs__label_split(const double *y, size_t n, int threads, size_t *lidx,
                         size_t *uidx);
/* The rows of the unlabeled rows' ordinals ord[0..n) (ascending: the k-th
 * unlabeled row, counting from 0), in place, from the labeled rows' list
 * lidx (nl, ascending). */
void tsgs__unlabeled_rows(const size_t *lidx, size_t nl, size_t *ord,
                          size_t n);
/* The distinct labels of ds's labeled rows, ascending, into *classes
 * (malloc'd) and their number into *k (0 when no row is labeled), and
 * into *top (unless NULL) how many rows carry the largest; the scan of
 * the labels on `threads` threads. */
tsgs_status tsgs__class_values(const tsgs_dataset *ds, int threads,
                               double **classes, size_t *k, size_t *top,
                               tsgs_error *err);

/* ----------------------------------------------------------- scaler.c */

/* Feature scaling fitted on training rows: x' = (x - shift) * mul.
 * MAXABS keeps zeros zero (shift 0) and stores only the columns whose
 * multiplier is not 1, so that a sparse model's scaler grows with the
 * columns that occur, not with d. */
typedef struct {
    tsgs_scaling kind;
    size_t d;
    double *shift; /* d (ZSCORE, MINMAX) */
    double *mul;   /* d (ZSCORE, MINMAX) */
    size_t nsc;    /* MAXABS: columns scol[0 .. nsc) (ascending, 0-based) */
    uint32_t *scol;
    double *smul;  /* and their multipliers 1 / max |x| */
} tsgs__scaler;

/* The class kind's largest stretch of a z-scored feature, and the labeled
 * rows every class needs for any stretch (scaler.c). */
#define TSGS__CLASS_STRETCH_MAX 4.0
#define TSGS__CLASS_MIN_ROWS 10

/* MAXABS: the multiplier of column k (1 when it is not listed). */
double tsgs__scaler_mul(const tsgs__scaler *s, size_t k);

/* Sparse rows are fitted MAXABS whatever kind asks (other kinds would
 * make them dense), NONE excepted. */
tsgs_status tsgs__scaler_fit(const tsgs_dataset *ds, tsgs_scaling kind,
                             tsgs__scaler *out, tsgs_error *err);
/* The same on `threads` threads (dense rows: the same bits on any); with
 * zero_cols (ZSCORE and CLASS only), each dense column that is zero on at
 * least half the rows is divided by its max |x| instead (shift 0: zeros
 * stay zero), and the class stretch applies on top. */
/* The same, its passes over dense rows polling stop (NULL: none): one
 * asked TSGS__STOP_REQUIRED ago ends the fit with TSGS_ERR_STOPPED. */
tsgs_status tsgs__scaler_fit_stop(const tsgs_dataset *ds, tsgs_scaling kind,
                                  int zero_cols, int threads,
                                  tsgs__stop *stop, tsgs__scaler *out,
                                  tsgs_error *err);
/* The most bytes a dense fit of n rows x d columns with `classes` label
 * values holds at once (its column sums per chunk of rows, the class
 * stretch's per-class means, the result): what tsgs_train_memory counts. */
double tsgs__scaler_fit_bytes(size_t n, size_t d, size_t classes);
#define TSGS__ZERO_COLS_SHARE 0.5
/* A dataset held in shares (ds->held): each process fits the chunks of
 * rows that start in its share (fetching the rest of its last chunk), the
 * chunks' sums exchanged and added in chunk order, so the bits are one
 * process's; dense rows, kinds NONE, ZSCORE, MINMAX and CLASS. */
tsgs_status tsgs__scaler_fit_threads(const tsgs_dataset *ds,
                                     tsgs_scaling kind, int zero_cols,
                                     int threads, tsgs__scaler *out,
                                     tsgs_error *err);
/* Whether s maps zeros to zeros (NONE, MAXABS): sparse rows stay sparse. */
int tsgs__scaler_keeps_zeros(const tsgs__scaler *s);
void tsgs__scaler_clear(tsgs__scaler *s);
/* A copy of s that owns its arrays (the same numbers), into *out. */
tsgs_status tsgs__scaler_copy(const tsgs__scaler *s, tsgs__scaler *out,
                              tsgs_error *err);
/* Writes the scaled copy of a d-float row (padding with 0 when the row is
 * narrower than the scaler, i.e. d_row < s->d). kind NONE copies. */
void tsgs__scaler_apply(const tsgs__scaler *s, const float *row,
                        size_t d_row, float *out);
/* The stochastic solvers' kernel width when none is given: 1 / (2 total
 * variance) of ds's rows scaled by sc (a seeded stride of at most 100,000
 * rows), so a typical pair of rows has k = exp(-1). */
tsgs_status tsgs__spread_sigma(const tsgs_dataset *ds, const tsgs__scaler *sc,
                               double *sigma, tsgs_error *err);

/* ------------------------------------------------------------- rows.c */

/* Scaled rows as the kernel reads them: dense (x: n x d floats) or sparse
 * (x NULL; CSR as in tsgs_dataset). A buffer that owns its arrays (the
 * gather functions grow it) or a view into another's. */
typedef struct {
    size_t n, d;
    float *x;
    size_t *ptr;   /* n + 1 */
    uint32_t *col;
    float *val;
    size_t cap_rows, cap_nnz; /* allocated, for a buffer */
} tsgs__rows;

/* Dense rows X (n x d) as a view. */
tsgs__rows tsgs__rows_dense(const float *X, size_t n, size_t d);
/* Rows [i0, i0 + n) of R as a view. */
tsgs__rows tsgs__rows_sub(const tsgs__rows *R, size_t i0, size_t n);
/* Whether rows gathered from ds through scaler sc are sparse: ds's rows
 * are, and sc keeps zeros zero. */
int tsgs__rows_sparse_for(const tsgs_dataset *ds, const tsgs__scaler *sc);
/* An empty buffer for up to cap rows of ds's dimension gathered through
 * sc (sparse or dense as tsgs__rows_sparse_for says). -1: out of memory. */
int tsgs__rows_init(tsgs__rows *R, const tsgs_dataset *ds,
                    const tsgs__scaler *sc, size_t cap);
/* A dense buffer whatever the dataset's storage, and a sparse one. */
int tsgs__rows_init_dense(tsgs__rows *R, size_t d, size_t cap);
int tsgs__rows_init_sparse(tsgs__rows *R, size_t d, size_t cap);
void tsgs__rows_free(tsgs__rows *R);
/* R = the rows idx[0 .. n) of ds (idx NULL: rows 0 .. n - 1) scaled by
 * sc; R was set up by tsgs__rows_init with room for n rows (non-zeros are
 * grown as needed). -1: out of memory. */
int tsgs__rows_gather(tsgs__rows *R, const tsgs_dataset *ds,
                      const tsgs__scaler *sc, const size_t *idx, size_t n);
/* Dense R only: rows from .. to - 1 of such a gather (idx[from .. to)),
 * for a thread that shares the gather out itself; R->n is not written. */
void tsgs__rows_put_dense(tsgs__rows *R, const tsgs_dataset *ds,
                          const tsgs__scaler *sc, const size_t *idx,
                          size_t from, size_t to);
/* Rows of a dense dataset to ask the memory for ahead of their gather:
 * rows idx[0 .. n) of x, d floats each (n 0: none). In a team's kernel,
 * the master asks for the last `tail` of them (the ones it will gather:
 * tsgs__eval_tiles_team), the other threads for the rest. */
typedef struct {
    const float *x;
    const size_t *idx;
    size_t n, d;
    size_t tail;
} tsgs__rows_ahead;
/* Prefetches every cache line of rows [from, to) of a: their misses then
 * overlap the caller's work instead of stalling a later gather. */
void tsgs__rows_prefetch(const tsgs__rows_ahead *a, size_t from, size_t to);
/* The rows [*lo, *hi) of a that thread tid of a team of `team` asks for:
 * the master (tid 0) the last a->tail of them, each other thread w = tid -
 * 1 of the W = team - 1 its share [n w / W, n (w + 1) / W) but that tail
 * (the share it gathers); a team of one all of them. Every row falls to
 * exactly one thread. Pure. */
void tsgs__rows_ahead_share(const tsgs__rows_ahead *a, size_t team,
                            size_t tid, size_t *lo, size_t *hi);
/* The same by a team (every thread calls it); *failed (shared) is set
 * when out of memory. No barrier at the end: the rows are complete after
 * the caller's next one. */
void tsgs__rows_gather_team(tsgs__rows *R, const tsgs_dataset *ds,
                            const tsgs__scaler *sc, const size_t *idx,
                            size_t n, int *failed);
/* Copies rows idx[0 .. n) of S (idx NULL: rows 0 .. n - 1) into R (set
 * up for S's kind); -1: out of memory. */
int tsgs__rows_copy(tsgs__rows *R, const tsgs__rows *S, const size_t *idx,
                    size_t n);
/* R = a buffer of its own holding every row of S; -1: out of memory (R
 * left empty). */
int tsgs__rows_clone(tsgs__rows *R, const tsgs__rows *S);
/* Whether A and B hold the same rows bit for bit, in the same storage. */
int tsgs__rows_equal(const tsgs__rows *A, const tsgs__rows *B);
/* Squared distance between row a of A and row b of B. */
double tsgs__rows_sqdist(const tsgs__rows *A, size_t a, const tsgs__rows *B,
                         size_t b);

/* ------------------------------------------------------------ synth.c */

/* Streams of the synthetic-data generator, numbered apart from the
 * solver's so that additions there never move them. */
enum {
    TSGS__STREAM_SYNTH = 64,    /* row i of a synthetic set */
    TSGS__STREAM_SYNTH_FIT = 65 /* the seeded start of the EM fit */
};

struct tsgs_mixture {
    size_t d;
    int k;               /* components per class */
    double label[2];     /* raw labels, label[0] < label[1] */
    size_t count[2];     /* sample rows of each class */
    double fraction1;    /* count[1] / (count[0] + count[1]) */
    double *w, *cum;     /* 2 x k weights and their running sums */
    double *mu, *var, *sd; /* 2 x k x d */
    double loglik[2];    /* mean log-likelihood per row at the end */
    int iters[2];        /* EM iterations run */
};

/* v as printf's "%.18e" of (double)v writes it (UCI SUSY/HIGGS numbers),
 * without printf on the usual range; returns the characters written (at
 * most 32, no NUL). */
int tsgs__format_e18(float v, char *out);
/* v as "%.6f" of (double)v (HEPMASS numbers), the same way. */
int tsgs__format_f6(float v, char *out);

/* ---------------------------------------------------------- compress.c */

/* A file read as bytes, decompressed on the fly when its magic bytes say
 * gzip, xz, bzip2 or zstd. Corrupt or truncated data is an error, never a
 * short read. */
typedef enum {
    TSGS__COMP_NONE = 0,
    TSGS__COMP_GZIP,
    TSGS__COMP_XZ,
    TSGS__COMP_BZIP2,
    TSGS__COMP_ZSTD
} tsgs__compression;

typedef struct tsgs__istream tsgs__istream;

/* threads: decoder threads where the format allows (xz files of several
 * blocks, as xz -T writes them): 0 = tsgs__threads_resolve's count,
 * resolved only for such a file; 1 decodes on the caller's thread. */
tsgs_status tsgs__istream_open(const char *path, int threads,
                               tsgs__istream **out, tsgs_error *err);
/* Reads up to cap bytes; *got = 0 only at the end of the data. */
tsgs_status tsgs__istream_read(tsgs__istream *s, void *buf, size_t cap,
                               size_t *got, tsgs_error *err);
/* "plain", "gzip", "xz", "bzip2" or "zstd". */
const char *tsgs__istream_kind(const tsgs__istream *s);
/* The file descriptor of an uncompressed stream (its bytes are the file's,
 * so ranges of it may be read with pread), else -1. */
int tsgs__istream_plain_fd(const tsgs__istream *s);
void tsgs__istream_close(tsgs__istream *s);

#endif /* TSGS_DATA_DATA_H */
