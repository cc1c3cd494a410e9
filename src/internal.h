/*
 * Internal declarations shared across the library's files (tsgs__ names).
 * Not installed.
 */
#ifndef TSGS_INTERNAL_H
#define TSGS_INTERNAL_H

#include "kernel/isa.h"
#include "tsgs3vm.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ error.c */

/* Fills err (if not NULL): code, input file/line (file may be NULL, line 0)
 * and a message prefixed "file:line: " when they are given. Returns code. */
tsgs_status tsgs__fail(tsgs_error *err, tsgs_status code, const char *file,
                       long line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#define TSGS__NOMEM(err) \
    tsgs__fail((err), TSGS_ERR_NOMEM, NULL, 0, "out of memory (%s:%d)", \
               __FILE__, __LINE__)

/* Leaves err as it is when it already holds an error. */
void tsgs__error_clear(tsgs_error *err);

/* ------------------------------------------------------------- stop.c */

/* A training run's view of its caller's request to stop
 * (tsgs_train_hooks.should_stop), for its long loops on any thread. */
typedef struct tsgs__stop {
    int (*ask)(void *user); /* NULL: never asked */
    void *user;
    atomic_llong asked_ns;  /* monotonic time the hook first asked; 0 */
    atomic_llong next_ns;   /* no poll of the hook before this */
    atomic_flag busy;       /* a thread is in the hook */
} tsgs__stop;

/* The hook is polled at most this often (seconds). */
#define TSGS__STOP_POLL_S 0.01
/* A stop ends optional work (a search, the semi-supervised paths) at
 * once, and the work a usable model needs (the scaler, the feature rows,
 * the supervised fit) this long after it was asked: beyond that the run
 * returns TSGS_ERR_STOPPED without a model. */
#define TSGS__STOP_OPTIONAL 0.0
#define TSGS__STOP_REQUIRED 0.5

/* From h's should_stop (h may be NULL: never). */
void tsgs__stop_init(tsgs__stop *s, const tsgs_train_hooks *h);
/* Whether the work should end: the caller asked to stop at least grace
 * seconds ago (TSGS__STOP_OPTIONAL or _REQUIRED). Polls the hook when
 * due; safe from any thread; s NULL: never. */
int tsgs__stop_due(tsgs__stop *s, double grace);
/* TSGS_ERR_STOPPED, its message naming the work `during` which it came. */
tsgs_status tsgs__stopped(tsgs_error *err, const char *during);

/* ---------------------------------------------------------- dataset.c */

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

/* ---------------------------------------------------------- shuffle.c */

/* The draws of a seeded shuffle: j_i = tsgs__below(seed, stream, key ^ i,
 * i) swaps entries i - 1 and j_i, for i = n .. 2. */
typedef struct {
    uint64_t seed;
    uint32_t stream;
    uint64_t key;
} tsgs__shuffle_key;

/* Draws per chunk of a team's shuffle (its scratch holds two chunks). */
#define TSGS__SHUFFLE_CHUNK 65536

/* Shuffles idx[0..n) by k (team: every thread of it calls it with the same
 * arguments; ends with a barrier). draws: 2 TSGS__SHUFFLE_CHUNK entries,
 * shared. The same order on any number of threads. */
void tsgs__shuffle_team(size_t *idx, size_t n, const tsgs__shuffle_key *k,
                        size_t *draws);
/* A seeded shuffle of idx[0..n) (tag: which shuffle of the run; the safe
 * solver's stream), on up to `threads` threads when n is large: the same
 * order on any number. */
void tsgs__seeded_shuffle(size_t *idx, size_t n, uint64_t seed, uint64_t tag,
                          int threads);
/* The places whose entries tsgs__seeded_shuffle (of n entries, the same
 * seed and tag) puts in its first k places, ascending, into pos (min(k,
 * n) of them), in O(n) draws but without the shuffle's swaps; the same
 * on any number of threads. 0, or -1 when out of memory. */
int tsgs__seeded_sample(size_t n, size_t k, uint64_t seed, uint64_t tag,
                        int threads, size_t *pos);

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
tsgs_status tsgs__scaler_fit_threads(const tsgs_dataset *ds,
                                     tsgs_scaling kind, int zero_cols,
                                     int threads, tsgs__scaler *out,
                                     tsgs_error *err);
/* Whether s maps zeros to zeros (NONE, MAXABS): sparse rows stay sparse. */
int tsgs__scaler_keeps_zeros(const tsgs__scaler *s);
void tsgs__scaler_clear(tsgs__scaler *s);
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

/* --------------------------------------------------------- affinity.c */

/* Number of threads to run: `requested` if > 0, else OMP_NUM_THREADS if it
 * is set, else one per core of the machine (during a large training with
 * the count left to the library: one per free core, tsgs__set_auto_team). */
int tsgs__threads_resolve(int requested);
/* Seconds on a monotonic clock (common/clock.c): the library's one clock. */
double tsgs__now_s(void);
/* OMP_NUM_THREADS's count (its first level), or 0 where it sets none. */
int tsgs__env_threads(void);
/* Cores busy with other processes (cpu_load.c). Per-CPU busy and total
 * ticks of a /proc/stat text into busy[c], total[c] for c < n; the CPU
 * lines read, or -1 for a malformed one. */
int tsgs__cpu_ticks_parse(const char *text, unsigned long long *busy,
                          unsigned long long *total, int n);
/* CPUs (of the n first, those allowed[c] where allowed is not NULL) that
 * other work kept at least half busy between two /proc/stat texts; -1
 * where either cannot be read. */
int tsgs__busy_cpus_between(const char *before, const char *after, int n,
                            const unsigned char *allowed);
/* The same over the next 50 ms, on the CPUs this process may use. */
int tsgs__busy_cpus(void);
/* The team for `cores` cores of which `busy` are busy: the free ones, at
 * least 1. */
int tsgs__free_team(int cores, int busy);
/* What tsgs__threads_resolve(0) gives without OMP_NUM_THREADS while a
 * training that measured the load runs (0: one per core). */
void tsgs__set_auto_team(int team);
int tsgs__auto_team(void);

/* Whether AUTO pins `threads` threads on a machine with `cores` usable
 * cores: only a run that fills them all (one thread on one core of many
 * is left to the OS, so that runs side by side do not share core 0). */
int tsgs__auto_pins(int threads, int cores);

/* What tsgs__bind_threads changed, to be put back. */
typedef struct tsgs__binding tsgs__binding;

/* Binds the threads of an OpenMP team of `threads` threads according to
 * policy (AUTO: NONE when OMP_PROC_BIND or OMP_PLACES is set, else COMPACT
 * when tsgs__auto_pins, else NONE). Where binding is unsupported, calls
 * warn(message, user) and carries on. Returns each thread's binding from
 * before (NULL when nothing was bound) for tsgs__restore_binding: the
 * library leaves its caller's threads as it found them. */
tsgs__binding *tsgs__bind_threads(int threads, tsgs_bind policy,
                                  void (*warn)(const char *, void *),
                                  void *user);
/* Puts the team's threads back where they were bound before; frees b. */
void tsgs__restore_binding(tsgs__binding *b);
/* Frees b and leaves the threads bound (tsgs_bind_threads: asked for). */
void tsgs__keep_binding(tsgs__binding *b);


/* ------------------------------------------------------- core: rng.c */

#define TSGS__PI 3.14159265358979323846
#define TSGS__LANES 16 /* directions per packed group in the kernel */

typedef struct { uint32_t v[4]; } tsgs__u32x4;

/* Random streams: the 4th counter word, so that no two uses collide. */
enum {
    TSGS__STREAM_OMEGA = 1, /* feature directions */
    TSGS__STREAM_PHASE,     /* feature phases b */
    TSGS__STREAM_LABELED,   /* labeled mini-batches */
    TSGS__STREAM_EPOCH,     /* unlabeled shuffles, one per pass */
    TSGS__STREAM_REUSE,     /* which old block a budgeted step updates */
    TSGS__STREAM_CV,        /* cross-validation folds */
    TSGS__STREAM_CHECK,     /* the checking rule's candidate blocks */
    TSGS__STREAM_BS3VM,     /* bs3vm: rows, edges and RNP neighbours */
    TSGS__STREAM_DUAL,      /* dual coordinate descent's visiting order */
    TSGS__STREAM_SAFE,      /* safe solver: samples and selection folds */
    TSGS__STREAM_LENGTH     /* orthogonal directions' chi lengths */
};

tsgs__u32x4 tsgs__philox(uint64_t seed, uint32_t c0, uint32_t c1, uint32_t c2,
                         uint32_t c3);
/* Uniform in (0, 1) from 64 random bits. */
double tsgs__u01(uint32_t hi, uint32_t lo);
/* Two independent standard normals (Box-Muller). */
void tsgs__normal_pair(tsgs__u32x4 r, double *z0, double *z1);
/* Uniform integer in [0, n) from (seed, stream, counter). */
uint64_t tsgs__below(uint64_t seed, uint32_t stream, uint64_t counter,
                     uint64_t n);
/* out[q] = tsgs__below(seed, stream, key ^ i, i) for i = hi - q, q = 0 ..
 * len - 1 (hi >= len): a seeded shuffle's draws, several at a time. */
void tsgs__below_run(uint64_t seed, uint32_t stream, uint64_t key,
                     size_t hi, size_t len, size_t *out);

/* z % i without a division, for a divisor used many times: m =
 * tsgs__mod_magic(i) = floor((2^64 - 1) / i) makes floor(z m / 2^64) the
 * quotient or one less, so one correction gives the exact remainder. */
static inline uint64_t tsgs__mod_magic(uint64_t i)
{
    return UINT64_MAX / i;
}

static inline uint64_t tsgs__mod_fast(uint64_t z, uint64_t i, uint64_t m)
{
    uint64_t q = (uint64_t)(((unsigned __int128)z * m) >> 64);
    uint64_t r = z - q * i;
    return r >= i ? r - i : r;
}

/* ----------------------------------------------------------- params.c */

/* The key a parameter's other name stands for ("c": "cost", "gamma":
 * "sigma"); any other key as it is. */
const char *tsgs__param_alias(const char *key);

/* ----------------------------------------------------- class_weight.c */

/* The "class-weight" key's text: "LABEL:W,..." or "none" into p (nothing
 * changed on error, which names the entry). */
tsgs_status tsgs__class_weights_parse(tsgs_params *p, const char *text,
                                      tsgs_error *err);
/* p's class weights as that text (shortest numbers that read back). */
void tsgs__class_weights_format(const tsgs_params *p, char *buf, size_t size);
/* Their count, labels and weights checked (tsgs_params_check). */
tsgs_status tsgs__class_weights_check(const tsgs_params *p, tsgs_error *err);
/* The weight of class `label` in p: 1 when it is not listed. */
double tsgs__class_weight_of(const tsgs_params *p, double label);

/* tsgs_params.balance: -1 auto, 0 off, and: */
#define TSGS__BALANCE_HOLD 1    /* hold the unlabeled class ratio (safe: the
                                   mean output; stochastic: a quantile) */
#define TSGS__BALANCE_CENTRED 2 /* stochastic: centred unlabeled weights */

/* --------------------------------------------------- core: features.c */

/* What a random feature block is: every direction of block b is a pure
 * function of (seed, b, j). */
typedef struct {
    tsgs_kernel kernel;
    tsgs_feature_map map;
    double sigma;
    size_t d;
    uint64_t seed;
    long block_size; /* features per block, r */
    long dirs;       /* directions per block: r (COS) or r / 2 (PAIR) */
    int orthogonal;  /* RBF only: directions orthogonal in groups */
    long group;      /* directions per orthogonal group (global index
                        g / group), min(d, TSGS__ORF_GROUP_MAX); 1 if iid */
} tsgs__fspec;

/* The widest orthogonal group: generating a group costs group^2 * d / 2,
 * so on wide rows the groups stop at this many directions. */
#define TSGS__ORF_GROUP_MAX 128

/* Features when max-features is -1: the safe solver's, and the stochastic
 * solvers' at least (they take ceil(sqrt(n)) when more): the kernel's
 * approximation needs this many on small sets (fewer lost accuracy on the
 * labeled fit). The safe solver takes twice as many on rows of more than
 * TSGS__WIDE_DIMENSIONS features: there distances concentrate, the kernel
 * values that tell the classes apart differ by little, and the estimate's
 * noise (about 1 / sqrt(features)) hides more of them
 * (docs/default-solver.md, "The default": with balanced classes w8a and COIL-20 gained 1.1 and 1.3
 * points at 2048 features, nothing more at 4096). The stochastic solvers
 * keep 1024 there: on COIL-20 TSG took three times as long at 2048 and was
 * no more accurate. */
#define TSGS__AUTO_FEATURES 1024
#define TSGS__AUTO_FEATURES_WIDE 2048
#define TSGS__WIDE_DIMENSIONS 64
/* The automatic feature count of p's solver on d-dimensional rows. */
long tsgs__auto_features(const tsgs_params *p, size_t d);
/* The features the grid and the start work on, on d-dimensional rows:
 * max-features, or with none (0, -1) tsgs__auto_features(p, d). */
long tsgs__first_features(const tsgs_params *p, size_t d);
/* The feature budget of a run on n rows of d features when max-features
 * is -1 or set (not 0, no budget). */
long tsgs__default_features(const tsgs_params *p, size_t n, size_t d);

/* The feature blocks that params p describe on d-dimensional rows. */
tsgs__fspec tsgs__fspec_of(const tsgs_params *p, size_t d);
/* Features that ndirs directions give: 2 each (cos and sin) for PAIR, 1
 * for COS. */
size_t tsgs__feature_columns(const tsgs__fspec *fs, size_t ndirs);
/* Whole blocks of p's block size that hold `features` features (rounded
 * up). */
long tsgs__blocks_for(const tsgs_params *p, long features);
/* Direction j of block b: omega (d floats) and its phase. 0, or -1 when
 * out of memory (an orthogonal group needs group x d doubles). */
int tsgs__direction(const tsgs__fspec *fs, long block, long j, float *omega,
                    float *phase);
/* Coordinate k of iid direction j of block b alone (sparse rows): the
 * value tsgs__direction gives there. */
float tsgs__omega_coord(const tsgs__fspec *fs, long block, long j, size_t k);
/* The same in two parts: the draw, which does not depend on sigma, and
 * the coordinate it gives under fs's sigma (bits equal to
 * tsgs__omega_coord): one draw serves a grid of sigmas. */
double tsgs__omega_unit(const tsgs__fspec *fs, long block, long j, size_t k);
float tsgs__omega_scaled(const tsgs__fspec *fs, double unit);
/* The phase of direction j of block b (0 for PAIR). */
float tsgs__direction_phase(const tsgs__fspec *fs, long block, long j);
/* Directions [g0, g0 + count) (global index g = block * dirs + j), packed
 * in groups of TSGS__LANES: panel[grp][k][lane], phase[grp * LANES + lane];
 * lanes past `count` are zero. 0, or -1 when out of memory. */
int tsgs__pack_directions(const tsgs__fspec *fs, long g0, long count,
                          float *panel, float *phase);
/* The same, polling stop before each direction (and each row of an
 * orthogonal group: d-wide ones take seconds): 1 when a stop asked grace
 * seconds ago cut it. */
int tsgs__pack_directions_stop(const tsgs__fspec *fs, long g0, long count,
                               float *panel, float *phase, tsgs__stop *stop,
                               double grace);

/* ----------------------------------------------------- core: kernel.c */

/* A set of directions to evaluate and the coefficients that weigh them. */
typedef struct {
    const tsgs__fspec *fs;
    long ndirs;            /* directions 0 .. ndirs - 1 */
    const float *panel;    /* packed omega of all of them, or NULL:
                              regenerate tile by tile */
    const float *phase;
    const double *ac;      /* cos coefficients, ceil(ndirs / LANES) * LANES */
    const double *as;      /* sin coefficients (PAIR), else NULL */
} tsgs__fview;

/* out[i] = sum_g ac[g] cos(w_g . x_i + b_g) + as[g] sin(w_g . x_i) over the
 * rows X (n x d floats), in tiles of rows x directions spread over threads;
 * partial sums are combined in a fixed order, so the result does not depend
 * on the thread count. */
tsgs_status tsgs__eval_sums(const tsgs__fview *v, const float *X, size_t n,
                            int threads, double *out, tsgs_error *err);

/* Feature values of rows X for `ngroups` packed groups: cosv[i][g] and,
 * when sinv is not NULL, sinv[i][g] (n x ngroups * LANES floats). */
void tsgs__eval_features(size_t d, const float *panel, const float *phase,
                         long ngroups, const float *X, size_t n, int threads,
                         float *cosv, float *sinv);


/* tsgs__eval_sums and tsgs__eval_features for a team that is already
 * running (a solver's one
 * parallel region around its steps): every thread of the team calls them
 * with the same arguments and they share the work through orphaned
 * worksharing loops; outside a parallel region one thread does it all.
 * The sums are the same bits as tsgs__eval_sums' on any team.
 * part: tsgs__sums_scratch(ndirs, n) doubles shared by the team (NULL when
 * that is 0); ws: the calling thread's scratch, needed when v has no
 * panel; *failed (shared) is set when directions could not be generated
 * (out of memory). Returns once out is complete on every thread. */
typedef struct {
    float *W, *P; /* one group tile of regenerated directions */
} tsgs__kernel_ws;
int tsgs__kernel_ws_init(tsgs__kernel_ws *ws, size_t d);
/* Bytes tsgs__kernel_ws_init allocates for d features. */
double tsgs__kernel_ws_bytes(size_t d);
void tsgs__kernel_ws_free(tsgs__kernel_ws *ws);
size_t tsgs__sums_scratch(long ndirs, size_t n);
void tsgs__eval_sums_team(const tsgs__fview *v, const float *X, size_t n,
                          double *part, tsgs__kernel_ws *ws, double *out,
                          int *failed);
/* tsgs__eval_sums_team in two halves, for a team that combines the tiles
 * in a serial section of its own: the tiles (into part, or straight into
 * out when there is one group tile; ends with a barrier), then their sums
 * per row in the same fixed order, on one thread (out zero when ndirs is
 * 0). The tiles prefetch the rows of `ahead` (NULL: none), a share with
 * each task, so that their misses overlap the arithmetic. */
void tsgs__eval_tiles_team(const tsgs__fview *v, const float *X, size_t n,
                           double *part, tsgs__kernel_ws *ws, double *out,
                           int *failed, const tsgs__rows_ahead *ahead);
void tsgs__combine_tiles(long ndirs, const double *part, size_t n,
                         double *out);
/* Returns without a barrier: the caller puts one before reading cosv. */
void tsgs__eval_features_team(size_t d, const float *panel,
                              const float *phase, long ngroups,
                              const float *X, size_t n, float *cosv,
                              float *sinv);

/* cos and sin of TSGS__LANES floats at a time, as the kernel computes
 * them (exposed for tests). */
void tsgs__sincos_f(const float *x, size_t n, float *s, float *c);
/* cos alone, as the kernel computes it for COS features. */
void tsgs__cos_f(const float *x, size_t n, float *c);

/* ---------------------------------------------- core: kernel_sparse.c */

/* The random features of sparse rows, from their non-zeros: w . x is a
 * sum over the row's columns, and omega's coordinate k of direction g is
 * made alone (tsgs__omega_coord), so iid directions only (orthogonal
 * groups need whole d-vectors). The values are the dense kernel's for the
 * same row within float rounding (the sums' order differs). */

/* Directions kept for a fixed set of columns (the most frequent ones of
 * the training rows, as many as a memory budget holds): column cols[s]'s
 * directions [0, filled) at W + s * stride. Others are regenerated. */
typedef struct tsgs__colcache {
    size_t ncols;
    uint32_t *cols;  /* ascending */
    long stride;     /* directions room per column */
    long filled;     /* directions [0, filled) are in W */
    float *W;
    uint32_t *hslot; /* column -> slot table (UINT32_MAX: empty) */
    uint32_t hmask;  /* its size - 1 */
    unsigned char *made; /* tsgs__colcache_all: column s's directions are
                            in W (NULL: every column's are) */
} tsgs__colcache;

/* A cache for the columns of ds's rows, most frequent first, for up to
 * max_dirs directions each, within `bytes`; *out = NULL when not one
 * column fits (or ds is dense). */
tsgs_status tsgs__colcache_new(const tsgs_dataset *ds, long max_dirs,
                               double bytes, tsgs__colcache **out,
                               tsgs_error *err);
/* Generates directions [filled, ndirs) of fs for every cached column
 * (ndirs <= stride), on `threads` threads. */
/* The same for the columns of sparse rows R (NULL for dense rows). */
tsgs_status tsgs__colcache_for_rows(const tsgs__rows *R, long max_dirs,
                                    double bytes, tsgs__colcache **out,
                                    tsgs_error *err);
void tsgs__colcache_fill(tsgs__colcache *cc, const tsgs__fspec *fs,
                         long ndirs, int threads);
/* The draws (tsgs__omega_unit) of directions [0, ndirs) of fs at cc's
 * columns, laid out as cc->W (ndirs <= cc->stride): *out, malloc'ed. */
tsgs_status tsgs__colcache_units(const tsgs__colcache *cc,
                                 const tsgs__fspec *fs, long ndirs,
                                 int threads, double **out, tsgs_error *err);
/* A cache of cc's columns holding directions [0, ndirs) of fs made from
 * those draws (fs's sigma may differ from the one cc was made for). */
tsgs_status tsgs__colcache_scaled(const tsgs__colcache *cc,
                                  const double *units, const tsgs__fspec *fs,
                                  long ndirs, tsgs__colcache **out,
                                  tsgs_error *err);
void tsgs__colcache_free(tsgs__colcache *cc);
/* A cache with a slot for each of columns [0, d), directions [0, ndirs)
 * (of the fs given tsgs__colcache_make_for), made column by column as
 * rows need them
 * (tsgs__colcache_make_for); *out = NULL when d columns do not fit in
 * `bytes`. Its W is allocated untouched: only the columns made take
 * memory. */
tsgs_status tsgs__colcache_all(size_t d, long ndirs, double bytes,
                               tsgs__colcache **out,
                               tsgs_error *err);
/* Makes the directions of the columns of sparse rows ds not yet made,
 * on `threads` threads. A reader of the cache may only use columns made
 * before it started: a caller serialises this with every other call on
 * the same cache, and then reads only its own rows' columns. */
tsgs_status tsgs__colcache_make_for(tsgs__colcache *cc, const tsgs__fspec *fs,
                                    const tsgs_dataset *ds, int threads,
                                    tsgs_error *err);

/* tsgs__eval_sums of sparse rows R (R->x NULL): out[i] = sum_g ac[g]
 * cos(w_g . x_i + b_g) + as[g] sin(w_g . x_i), g < v->ndirs (v->panel is
 * not used); cc may be NULL. Fixed summation order: the same on any
 * thread count. */
tsgs_status tsgs__sparse_sums(const tsgs__fview *v, const tsgs__colcache *cc,
                              const tsgs__rows *R, int threads, double *out,
                              tsgs_error *err);
/* The same by a team (as tsgs__eval_sums_team; part: tsgs__sums_scratch
 * (v->ndirs, R->n) doubles). Returns once out is complete. */
void tsgs__sparse_sums_team(const tsgs__fview *v, const tsgs__colcache *cc,
                            const tsgs__rows *R, double *part, double *out,
                            int *failed);
/* Features of sparse rows on directions [g0, g0 + count) of fs:
 * cosv[i * width + j] (and sinv, when not NULL) for j < count rounded up
 * to whole TSGS__LANES groups (lanes past count as a zero direction
 * gives). Team version: no barrier at the end. */
void tsgs__sparse_features_team(const tsgs__fspec *fs,
                                const tsgs__colcache *cc, long g0,
                                long count, const tsgs__rows *R,
                                size_t width, float *cosv, float *sinv,
                                int *failed);
tsgs_status tsgs__sparse_features(const tsgs__fspec *fs,
                                  const tsgs__colcache *cc, long g0,
                                  long count, const tsgs__rows *R,
                                  size_t width, int threads, float *cosv,
                                  float *sinv, tsgs_error *err);
/* tsgs__eval_sums of rows R whatever their storage. */
tsgs_status tsgs__rows_eval_sums(const tsgs__fview *v,
                                 const tsgs__colcache *cc,
                                 const tsgs__rows *R, int threads,
                                 double *out, tsgs_error *err);
void tsgs__rows_eval_sums_team(const tsgs__fview *v,
                               const tsgs__colcache *cc, const tsgs__rows *R,
                               double *part, tsgs__kernel_ws *ws, double *out,
                               int *failed);
/* The sparse kernel's direction chunk: a sum over directions adds each
 * chunk's partial sum in turn (featcache.c follows the same order). */
#define TSGS__SPARSE_DIR_CHUNK 256
/* Bytes at most of the column cache that features of a set of sparse
 * rows (the grid's, the safe solver's) make for themselves. */
#define TSGS__SPARSE_ROWS_CACHE (16.0 * 1048576.0)

/* -------------------------------------------------- core: featcache.c */

/* Features of a fixed set of sparse rows (a run's unlabeled rows) on the
 * directions made so far, kept across steps: row i's cos on direction g at
 * cv[i * stride + g] (sin: sv, PAIR features), for g < filled. */
typedef struct tsgs__featcache {
    size_t n;           /* rows */
    long cap;           /* directions it can hold */
    long stride;        /* floats per row (cap, padded) */
    long filled;        /* directions [0, filled) computed */
    float *cv, *sv;     /* sv NULL for COS features */
    uint32_t *slot;     /* dataset row -> its row here; UINT32_MAX: none */
    tsgs__rows R;       /* the rows, scaled: new directions are made on them */
} tsgs__featcache;

/* Bytes of a cache of n rows for max_dirs directions. */
double tsgs__featcache_bytes(size_t n, long max_dirs, int pair);
/* A cache of ds's rows rows[0 .. n) scaled by sc, for up to max_dirs
 * directions; *out = NULL (and TSGS_OK) when it needs more than `bytes`
 * or the rows are not sparse. */
tsgs_status tsgs__featcache_new(const tsgs_dataset *ds,
                                const tsgs__scaler *sc, const size_t *rows,
                                size_t n, long max_dirs, int pair,
                                double bytes, tsgs__featcache **out,
                                tsgs_error *err);
void tsgs__featcache_free(tsgs__featcache *fc);
/* Team: the features of directions [filled, ndirs) of fs (ndirs <= cap),
 * through the column cache cc (may be NULL); ends with a barrier. */
void tsgs__featcache_fill_team(tsgs__featcache *fc, const tsgs__fspec *fs,
                               const tsgs__colcache *cc, long ndirs,
                               int *failed);
/* Team, no barrier: out[i] = tsgs__sparse_sums' value for dataset row
 * rows[i] (cached, v->ndirs <= filled), in the same order. */
void tsgs__featcache_sums_team(const tsgs__featcache *fc,
                               const tsgs__fview *v, const size_t *rows,
                               size_t n, double *out);
/* Team, no barrier: cached features of directions [g0, g0 + count) of
 * dataset rows rows[0 .. n) into cosv / sinv (sinv may be NULL), rows
 * width apart. */
void tsgs__featcache_block_team(const tsgs__featcache *fc,
                                const size_t *rows, size_t n, long g0,
                                long count, size_t width, float *cosv,
                                float *sinv);

/* ------------------------------------------------------- core: loss.c */

/* Subgradient of the hinge max(0, 1 - y r) with respect to r. */
double tsgs__hinge_grad(double r, double y);
double tsgs__hinge(double r, double y);
/* Unlabeled loss u(r) and its derivative u'(r). */
double tsgs__uloss(tsgs_uloss kind, double ramp_s, double r);
double tsgs__uloss_grad(tsgs_uloss kind, double ramp_s, double r);
/* out[i] = weight * u'(g[i] + bias) for a batch of n decision values. */
void tsgs__uloss_grads(tsgs_uloss kind, double ramp_s, const double *g,
                       double bias, double weight, size_t n, double *out);

/* --------------------------------------------------- core: schedule.c */

/* Step size gamma_t (t = 1 .. T). */
double tsgs__step_size(const tsgs_params *p, long t, long T);
/* Factor in [0, 1] applied to C* at iteration t: ramps linearly from 0 over
 * the first p->anneal * T iterations. */
double tsgs__anneal_factor(const tsgs_params *p, long t, long T);

/* -------------------------------------------------------- core: model.c */

struct tsgs_model {
    tsgs_params params; /* as trained, with derived values resolved */
    tsgs__fspec fs;
    size_t d;
    long nblocks;       /* random feature blocks in the model */
    long cap_blocks;    /* blocks allocated */
    double *ac, *as;    /* coefficients, (cap_blocks * dirs rounded up) */
    double scale;       /* lazy global decay: f = scale * norm * sum + bias */
    double norm;        /* sqrt(2) for COS features, 1 for PAIR */
    double bias;
    double label_pos, label_neg; /* raw labels of the two classes */
    tsgs__scaler scaler;
    /* omega cache (not saved): packed directions [0, cached_dirs) */
    float *panel, *phase;
    long cached_dirs, cap_cached_dirs;
    int cache_enabled;
    /* sparse training rows: directions of their most frequent columns
     * (not saved; NULL otherwise), kept up to the model's directions */
    struct tsgs__colcache *cc;
    /* sparse rows predicted: a slot for every column, each made when
     * rows first use it (under model.c's lock) and kept for every later
     * call, so that a file scored in blocks makes a column once;
     * pcc_tried: made or found not to fit (pcc NULL) */
    struct tsgs__colcache *pcc;
    int pcc_tried;
    struct tsgs__bs3vm *bs3vm; /* bs3vm: its support vectors, else NULL */
    char note[320];     /* what training chose, in words (not saved) */
    /* The training file's layout (tsgs_train copies the dataset's; saved
     * as the data-* lines); a one-vs-rest model's is the top model's. */
    tsgs_data_layout layout;
    /* Platt scaling (probability.c): P(+1 | f) = 1 / (1 + exp(A f + B)) */
    int has_prob;
    double prob_a, prob_b;
    /* One-vs-rest over nclass > 2 classes (multiclass.c): ovr[k] is the
     * binary model of classes[k] (+1) against the rest (-1); then only d,
     * params and note are used here. 0 / NULL for a binary model. */
    int nclass;
    double *classes;    /* ascending */
    tsgs_model **ovr;
};

/* An empty model for d inputs with room for cap_blocks blocks. */
tsgs_status tsgs__model_new(const tsgs_params *p, size_t d, long cap_blocks,
                            tsgs_model **out, tsgs_error *err);
/* Bytes of the packed direction cache of `blocks` blocks of fs (which a
 * model keeps when they fit its cache-mb). */
double tsgs__model_cache_bytes(const tsgs__fspec *fs, long blocks);
/* Bytes a random-feature model of these counts certainly takes to load
 * and predict one row on one thread (memory.c): a lower bound, so that a
 * model refused for it could never have been used. */
double tsgs__model_bytes(const tsgs_params *p, size_t d, long blocks);
/* The parts of tsgs_memory_available (memlimit.c), their files given
 * (tests): the tightest of the cgroup limits (v2 and v1, from the paths in
 * `self`, as /proc/self/cgroup, under `root`, as /sys/fs/cgroup, up to the
 * root) less their usage; RLIMIT_AS less the address space `statm` (as
 * /proc/self/statm) shows mapped; MemAvailable of `meminfo`. INFINITY
 * where there is no limit. */
double tsgs__cgroup_headroom(const char *root, const char *self);
double tsgs__rlimit_headroom(const char *statm);
double tsgs__meminfo_available(const char *meminfo);
/* tsgs_model_load with the memory the model may commit the process to
 * given (bytes) in place of the process's own limit (tests, fuzzing). */
tsgs_status tsgs__model_load_within(const char *path, double max_bytes,
                                    tsgs_model **out, tsgs_error *err);
/* Makes room for one more block (zero coefficients) and returns its index. */
tsgs_status tsgs__model_add_block(tsgs_model *m, tsgs_error *err);
/* Extends the omega cache to every direction in the model, when enabled. */
tsgs_status tsgs__model_cache_sync(tsgs_model *m, tsgs_error *err);
/* Directions in the model, rounded up to whole groups. */
long tsgs__model_dirs(const tsgs_model *m);
/* The view the kernel evaluates. */
/* m's first `blocks` blocks (added as needed) take the weights w of a
 * linear model on the feature rows tsgs__feature_rows builds over their
 * directions (PAIR: the cos then the sin columns), and b its bias: the
 * scale folded to 1, the direction cache synced. */
tsgs_status tsgs__model_set_weights(tsgs_model *m, long blocks,
                                    const double *w, double b,
                                    tsgs_error *err);
/* Block b's directions packed as tsgs__pack_directions packs them: copied
 * from the cache when it holds them, else regenerated. 0, or -1 when out
 * of memory. */
int tsgs__model_block_directions(const tsgs_model *m, long b, float *panel,
                                 float *phase);
tsgs__fview tsgs__model_view(const tsgs_model *m);
/* The view of the model's first nblocks blocks only (a solver predicting
 * with the blocks before the one it has just added); it uses the cache
 * when that holds them. */
tsgs__fview tsgs__model_view_blocks(const tsgs_model *m, long nblocks);
/* Folds the lazy scale into the coefficients. */
void tsgs__model_fold_scale(tsgs_model *m);
/* Decision values of rows X already scaled (n x d). */
tsgs_status tsgs__model_decision(const tsgs_model *m, const float *X,
                                 size_t n, int threads, double *out,
                                 tsgs_error *err);
/* The same for scaled rows of any storage; cc: a column cache for sparse
 * rows (NULL: m's own, if any). */
/* tsgs_predict of a binary model whose kept column cache (tsgs_model's
 * pcc) may take at most cache_bytes: a one-vs-rest model's classes share
 * its budget. */
tsgs_status tsgs__predict_within(const tsgs_model *m, const tsgs_dataset *ds,
                                 int threads, double cache_bytes,
                                 double *decision, tsgs_error *err);
tsgs_status tsgs__model_decision_rows(const tsgs_model *m,
                                      const struct tsgs__colcache *cc,
                                      const tsgs__rows *R, int threads,
                                      double *out, tsgs_error *err);

/* -------------------------------------------------------------- order.c */

/* The k-th smallest of v[0..n) (0-based, n > 0), reordering v:
 * quickselect, O(n) on average. */
double tsgs__select_kth(double *v, size_t n, size_t k);

/* -------------------------------------------------------- core: train.c */

typedef struct {
    int explicit_decay; /* decay every coefficient each step (reference) */
    double scale_floor; /* fold the lazy scale in when it falls below */
    int labeled_cache;  /* -1: by cost; 0: predict the labeled batch; 1:
                           cache the labeled sums */
    struct tsgs__ovr_share *ovr; /* one-vs-rest: what its classes share
                                    (model_select.h); NULL: binary data */
    int zero_cols;      /* scale auto: columns zero on half the rows or
                           more scaled by max |x| (tsgs__scaler_fit_threads) */
    size_t ovr_class;   /* one-vs-rest: the class being trained (0 makes
                           what the others share) */
    int rows_checked;   /* the caller checked these rows finite (one-vs-
                           rest's classes: the rows tsgs_train checked) */
    const double *row_w; /* each row's class weight, multiplying C (rows
                            of the data tsgs_train was given, which every
                            view keeps; tsgs__cost_row_weights); NULL: 1 */
} tsgs__train_opts;

/* ------------------------------------------------------------ cost.c */

/* The user's C (per labeled row, or c-total) as the solvers take it: the
 * weight of the mean hinge loss over the nl labeled rows (C x nl), in
 * q->c; q->c_total cleared. */
void tsgs__cost_to_solver(tsgs_params *q, size_t nl);
/* A model trained on nl labeled rows from the solver's params back to the
 * user's unit (per-row C; `given`: the params tsgs_train was called
 * with), its one-vs-rest classes too. m NULL: nothing. */
void tsgs__cost_to_user(tsgs_model *m, const tsgs_params *given, size_t nl);
/* Each row's class weight (p's class_weights; 1 for unlabeled rows and
 * unlisted classes) into *out (n, malloc'd), or *out = NULL when every
 * labeled row's is 1. */
tsgs_status tsgs__cost_row_weights(const tsgs_dataset *ds,
                                   const tsgs_params *p, double **out,
                                   tsgs_error *err);

/* tsgs_train with the stochastic solvers' test switches; params in the
 * solvers' unit (c: the weight of the mean hinge loss, C x n_l), as
 * tsgs__cost_to_solver makes them. */
tsgs_status tsgs__train_ex(const tsgs_dataset *ds, const tsgs_params *params,
                           const tsgs_train_hooks *hooks,
                           const tsgs__train_opts *opt, tsgs_model **out,
                           int *stopped_early, tsgs_error *err);

/* ------------------------------------------------- solvers/sgd_step.c */

/* The checking rule's step (CDSG): the largest eta <= gamma with
 * 2 |beta + eta g|^2 + 2 eta^2 V <= |beta|^2 + gamma^2 |g|^2, given
 * |beta|^2, beta.g, |g|^2 and V; <= 0 when no positive step passes. */
double tsgs__checked_step(double beta2, double beta_g, double g2, double V,
                          double gamma);

/* ------------------------------------------------------ bs3vm_model.c */

/* The BS3VM model (Le et al., UAI 2016): f(x) = sum_i alpha_i k(sv_i, x)
 * over support vectors kept as scaled rows; the kernel and sigma are the
 * model's parameters. */
typedef struct tsgs__bs3vm {
    size_t d, n_sv, cap;
    tsgs_kernel kernel;
    double sigma;
    float *x;      /* n_sv x d scaled rows */
    double *alpha; /* n_sv */
} tsgs__bs3vm;

/* An empty expansion for d-float rows with room for cap vectors. */
tsgs_status tsgs__bs3vm_new(size_t d, size_t cap, tsgs_kernel kernel,
                            double sigma, tsgs__bs3vm **out, tsgs_error *err);
/* Room for cap vectors (never shrinks). */
tsgs_status tsgs__bs3vm_reserve(tsgs__bs3vm *b, size_t cap, tsgs_error *err);
void tsgs__bs3vm_free(tsgs__bs3vm *b);
/* f of n rows X already scaled, rows spread over `threads` threads; each
 * row's sum runs in support-vector order whatever the thread count. */
void tsgs__bs3vm_decision(const tsgs__bs3vm *b, const float *X, size_t n,
                          int threads, double *out);
/* The kernel k(a, b) of two d-float rows, and their squared distance. */
double tsgs__bs3vm_kernel(tsgs_kernel kernel, double sigma, const float *a,
                          const float *b, size_t d);
double tsgs__bs3vm_sqdist(const float *a, const float *b, size_t d);
/* Model file section: "support-vectors N", N lines "alpha x_1 ... x_d",
 * "end". Reading continues f after the header (whose last line, number
 * *line, announced n_sv) and is strict: errors name path and line. */
void tsgs__bs3vm_write(FILE *f, const tsgs__bs3vm *b);
/* The largest magnitude a model file's coefficients (times its lazy
 * scale: read_coefficients), support-vector
 * weights, bias, lazy-scale, sigma, scaler values and Platt parameters
 * may have (model_io.c, bs3vm_model.c). A trained model stays far below
 * it (a scaler's shift is a float's size, its multiplier at most 1 / the
 * least float, about 1e45); up to it, a decision value (scale times at
 * most 2^60 coefficients times features of magnitude <= 1, plus the
 * bias) stays finite in double, where a coefficient of 1e308 gave inf. */
#define TSGS__MODEL_VALUE_MAX 1e100
/* Bytes a bs3vm model of n_sv support vectors over d features takes to
 * load and predict one (dense) row. */
double tsgs__bs3vm_bytes(long n_sv, size_t d);
tsgs_status tsgs__bs3vm_read(FILE *f, const char *path, long *line,
                             long n_sv, size_t d, tsgs_kernel kernel,
                             double sigma, tsgs__bs3vm **out,
                             tsgs_error *err);

/* --------------------------------------------------- core: multiclass.c */

/* The distinct labels of ds's labeled rows, ascending, into *classes
 * (malloc'd) and their number into *k (0 when no row is labeled), and
 * into *top (unless NULL) how many rows carry the largest; the scan of
 * the labels on `threads` threads. */
tsgs_status tsgs__class_values(const tsgs_dataset *ds, int threads,
                               double **classes, size_t *k, size_t *top,
                               tsgs_error *err);
/* ds's rows with a copy of its labels, to change: a view that borrows the
 * rows (free it with tsgs__view_free, never tsgs_dataset_free). */
tsgs_status tsgs__label_view(const tsgs_dataset *ds, tsgs_dataset **out,
                             tsgs_error *err);
/* The same with labels +1 for `positive`, -1 for the other labeled rows,
 * unlabeled ones kept. */
tsgs_status tsgs__ovr_view(const tsgs_dataset *ds, double positive,
                           tsgs_dataset **out, tsgs_error *err);
void tsgs__view_free(tsgs_dataset *view);
/* How many of one-vs-rest's k classes train at once on `threads` threads
 * with `solver`: after the first, the safe solver's classes side by side,
 * one thread each, when there are at least as many of them as threads
 * (its per-class memory is bounded by the unlabeled sample); otherwise,
 * and for the stochastic solvers (whose caches grow with the rows), one. */
size_t tsgs__ovr_at_once(size_t k, int threads, tsgs_solver solver);
/* A one-vs-rest model that takes over the k binary models subs (subs[i]
 * for classes[i]; both arrays copied, the models owned from here). */
tsgs_status tsgs__model_ovr(tsgs_model **subs, const double *classes,
                            size_t k, tsgs_model **out, tsgs_error *err);
/* Accuracy of m on ds's labeled rows, any number of classes; -1 on
 * failure (err set). */
double tsgs__accuracy_on(const tsgs_model *m, const tsgs_dataset *ds,
                         int threads, tsgs_error *err);

/* -------------------------------------------------- core: probability.c */

/* Platt's sigmoid fitted to decision values f[0..n) of rows of classes
 * y (+1 / -1): P(+1 | f) = 1 / (1 + exp(A f + B)). */
void tsgs__platt_fit(const double *f, const double *y, size_t n, double *a,
                     double *b);
double tsgs__platt_prob(double a, double b, double f);

/* --------------------------------------------------- core: warm_start.c */

/* The exact SVM (per-row hinge weight c_lib, LIBSVM's C; times wl[i],
 * the class weights, unless NULL) on the labeled rows XL (nl x d, scaled)
 * with classes yl, over the first `blocks` blocks
 * of m's random features: m gets those blocks, their coefficients (scale
 * folded to 1) and the bias. stop (NULL: none) polled as
 * tsgs__feature_rows and the dual fit poll it. */
tsgs_status tsgs__warm_start(tsgs_model *m, long blocks,
                             const tsgs__rows *XL, const double *yl,
                             const double *wl, size_t nl, double c_lib,
                             uint64_t seed, int threads, tsgs__stop *stop,
                             tsgs_error *err);

/* ---------------------------------------------------- solvers/bs3vm.c */

/* Projection coefficients of the NNP / RNP step: solves K c = kr for the
 * k x k kernel matrix K of the chosen vectors (overwritten by its Cholesky
 * factor) and kr[j] = k(x_j, x_r); c = kr on return. Returns 0, or -1 when
 * K is not positive definite (the caller then falls back to removal). */
int tsgs__bs3vm_project(double *K, double *kr, size_t k);
/* Budget maintenance (section 3.3) on the support vectors j of b with
 * lab[j] == portion: r = the one of smallest |alpha|; NNP / RNP add
 * alpha_r * c to k others (its nearest, or drawn from counter *rc of the
 * seed's bs3vm stream), c the projection of Phi(sv_r) on their span,
 * listed in sc->nb[0 .. *used); REMOVE (or a failed projection) changes
 * nothing (*used = 0). Returns r, which the caller then removes. sc holds
 * k entries (K: k * k). */
typedef struct {
    size_t *nb;
    double *nd, *K, *kr;
} tsgs__bs3vm_scratch;
size_t tsgs__bs3vm_maintain(tsgs__bs3vm *b, const unsigned char *lab,
                            int portion, tsgs_budget_rule rule, size_t k,
                            uint64_t seed, uint64_t *rc,
                            tsgs__bs3vm_scratch *sc, size_t *used);

/* ------------------------------------------- affinity.c: memory placement */

/* The NUMA nodes (logical indexes) that the threads of a plan run near, each
 * once, in order of first use. Writes at most max of them to nodes (which
 * may be NULL) and returns how many there are. Pure. */
int tsgs__placement_nodes(const tsgs_placement *pl, int *nodes, int max);

/* The NUMA nodes (OS indexes, in order of first use) that
 * tsgs__place_interleaved spreads a shared array over when `threads`
 * threads (> 0) run under `policy` (AUTO resolved as tsgs_bind_resolve
 * does) on topology t: the nodes the plan's threads sit near. Writes at
 * most max of them and returns how many there are; 0 when there is nothing
 * to interleave (one node used, NONE). Pure. */
int tsgs__interleave_nodes(const tsgs_topology *t, int threads,
                           tsgs_bind policy, int *os_nodes, int max);

/* The NUMA node (OS index) local to all of the n PUs os_pus (OS indexes),
 * or -1 when they span several nodes or none: the node tsgs__alloc_local
 * uses for a thread bound to them. Pure. */
int tsgs__node_near(const tsgs_topology *t, const int *os_pus, int n);

/* Interleaves the pages of a large shared array [addr, addr + len) over the
 * NUMA nodes that `threads` threads placed by `policy` use (AUTO resolved
 * as tsgs__bind_threads does); for the caller's memory, only when the
 * caller asked for a binding (COMPACT or SCATTER). Best effort and silent:
 * nothing happens on one NUMA node, under NONE, or where memory binding is
 * unsupported. The nodes: tsgs__interleave_nodes on this machine. */
void tsgs__place_interleaved(void *addr, size_t len, int threads,
                             tsgs_bind policy);

/* A 64-byte aligned buffer of len bytes on the NUMA node of the calling
 * thread's binding (plain aligned memory when the thread is not bound
 * within one node, or binding is unsupported); NULL when out of memory.
 * Free with tsgs__free_local (same len). */
void *tsgs__alloc_local(size_t len);
void tsgs__free_local(void *p, size_t len);

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

#endif /* TSGS_INTERNAL_H */
