/* kernel.h: random-feature directions and the kernels that evaluate
 * them over dense and sparse rows.
 * Internal (tsgs__ names), not installed; internal.h includes every
 * layer. */
#ifndef TSGS_KERNEL_KERNEL_H
#define TSGS_KERNEL_KERNEL_H

#include "data/data.h"
#include "kernel/isa.h"

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
/* Coordinate k of iid directions [g, g + n) (global index g = block *
 * dirs + j) into out[0 .. n): tsgs__omega_coord's bits, made in vectors
 * (columns.c; several times faster for RBF). */
void tsgs__omega_column(const tsgs__fspec *fs, uint32_t k, long g, long n,
                        float *out);
/* Coordinates 2h (even) and 2h + 1 (odd) together: the two halves of the
 * same draws, for about the price of one. */
void tsgs__omega_column_pair(const tsgs__fspec *fs, uint32_t h, long g,
                             long n, float *even, float *odd);
/* tsgs__omega_unit of directions [g, g + n) at column k into out, within
 * 2^-44 of its value (RBF; Laplacian: its value): one draw for a grid of
 * sigmas, each float then proved by tsgs__omega_scaled_proved. */
void tsgs__omega_column_units(const tsgs__fspec *fs, uint32_t k, long g,
                              long n, double *out);
/* tsgs__omega_coord(fs, direction g, column k) from such a unit and f =
 * sqrt(2 sigma) (RBF) or sigma (Laplacian): unit * f, proved to round to
 * that float (see columns.c), else made again. */
float tsgs__omega_scaled_proved(const tsgs__fspec *fs, double unit, double f,
                                long g, uint32_t k);
/* Tests only: on (nonzero), the three above make each coordinate by
 * tsgs__omega_coord (tsgs__omega_unit), the path they replace; off (0)
 * again. Not
 * thread-safe: call it while nothing runs. */
void tsgs__omega_column_one_by_one(int on);
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
/* What the tiles do with rows whose sums are complete (cached directions
 * only): the thread that writes the last group tile of a row tile adds
 * its rows' tiles into out (the fixed order of tsgs__combine_tiles) and
 * calls fn(ctx, i0, i1) for them, so that per-row work after the kernel
 * runs on the team, inside the kernel, instead of after its barrier.
 * count: one int per row tile (n / 12 + 1 of them), zero before the call
 * and left zero after it. */
typedef struct {
    void (*fn)(void *ctx, size_t i0, size_t i1);
    void *ctx;
    int *count;
} tsgs__rows_done;

/* Returns 1 when done (not NULL) was called for every row, with out
 * combined; 0 when not (regenerated directions, no rows or no
 * directions): the caller then combines (the same answer on every thread
 * of the team). */
int tsgs__eval_tiles_team(const tsgs__fview *v, const float *X, size_t n,
                          double *part, tsgs__kernel_ws *ws, double *out,
                          int *failed, const tsgs__rows_ahead *ahead,
                          const tsgs__rows_done *done);
void tsgs__combine_tiles(long ndirs, const double *part, size_t n,
                         double *out);
/* tsgs__eval_features of rows i0 .. i1 - 1 on the calling thread alone
 * (inside a team's region: one thread's task); each row's features are
 * the same bits whoever makes them. */
void tsgs__eval_features_rows(size_t d, const float *panel,
                              const float *phase, long ngroups,
                              const float *X, size_t i0, size_t i1,
                              float *cosv, float *sinv);
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
/* The same for the columns that two rows of ds or more share: what one
 * pass over the rows (prediction) reuses. A column of one row is made by
 * the task that meets it, in its scratch, not written to the cache and
 * read back (three quarters of a text file's columns: the cache and its
 * page faults were 115 MB, not 30). *out = NULL when none is shared. */
tsgs_status tsgs__colcache_new_shared(const tsgs_dataset *ds, long max_dirs,
                                      double bytes, tsgs__colcache **out,
                                      tsgs_error *err);
/* The same for the columns of sparse rows R (NULL for dense rows). */
tsgs_status tsgs__colcache_for_rows(const tsgs__rows *R, long max_dirs,
                                    double bytes, tsgs__colcache **out,
                                    tsgs_error *err);
/* Generates directions [filled, ndirs) of fs for every cached column
 * (ndirs <= stride), on `threads` threads. */
void tsgs__colcache_fill(tsgs__colcache *cc, const tsgs__fspec *fs,
                         long ndirs, int threads);
/* The same on the calling thread, stop polled every 1,024 columns (a
 * block of 8 directions over 10^6 columns is half a second): 1 when it
 * was due at grace, cc->filled then as it was (the columns made since are
 * not read), else 0. The same values as tsgs__colcache_fill. */
int tsgs__colcache_fill_polled(tsgs__colcache *cc, const tsgs__fspec *fs,
                               long ndirs, tsgs__stop *stop, double grace);
/* The same in steps of about `work` draws, stop polled between them (a
 * row of 800,000 columns x 1,024 directions is 15 s of draws):
 * TSGS_ERR_STOPPED once one was asked `grace` seconds ago. The same
 * values as one call. cc NULL: nothing. */
tsgs_status tsgs__colcache_fill_stop(tsgs__colcache *cc,
                                     const tsgs__fspec *fs, long ndirs,
                                     int threads, double work,
                                     tsgs__stop *stop, double grace,
                                     tsgs_error *err);
/* The draws (tsgs__omega_unit, or within 2^-44 of them:
 * tsgs__omega_column_units) of directions [0, ndirs) of fs at cc's
 * columns, laid out as cc->W (ndirs <= cc->stride): *out, malloc'ed. */
tsgs_status tsgs__colcache_units(const tsgs__colcache *cc,
                                 const tsgs__fspec *fs, long ndirs,
                                 int threads, double **out, tsgs_error *err);
/* A cache of cc's columns holding directions [0, ndirs) of fs made from
 * those draws (fs's sigma may differ from the one cc was made for): the
 * bits tsgs__colcache_fill makes (tsgs__omega_scaled_proved). */
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
 * (v->ndirs, R->n) doubles). Returns once out is complete. stop (NULL:
 * none) polled as tsgs__sparse_features polls it, at once
 * (TSGS__STOP_OPTIONAL): *failed = 2 when it cut the sums (1: out of
 * memory), read after the barrier. */
void tsgs__sparse_sums_team(const tsgs__fview *v, const tsgs__colcache *cc,
                            const tsgs__rows *R, double *part, double *out,
                            tsgs__stop *stop, int *failed);
/* Features of sparse rows on directions [g0, g0 + count) of fs:
 * cosv[i * width + j] (and sinv, when not NULL) for j < count rounded up
 * to whole TSGS__LANES groups (lanes past count as a zero direction
 * gives). Team version: no barrier at the end; stop (NULL: none) polled
 * at once as in tsgs__sparse_sums_team (*failed = 2: cut, the features
 * incomplete). */
void tsgs__sparse_features_team(const tsgs__fspec *fs,
                                const tsgs__colcache *cc, long g0,
                                long count, const tsgs__rows *R,
                                size_t width, float *cosv, float *sinv,
                                tsgs__stop *stop, int *failed);
/* The same by its own team, stop (NULL: none) polled as the tasks make
 * their columns' directions: TSGS_ERR_STOPPED once it is due at grace
 * (tsgs__stop_due), the features then incomplete. */
tsgs_status tsgs__sparse_features(const tsgs__fspec *fs,
                                  const tsgs__colcache *cc, long g0,
                                  long count, const tsgs__rows *R,
                                  size_t width, int threads, float *cosv,
                                  float *sinv, tsgs__stop *stop,
                                  double grace, tsgs_error *err);
/* Whether tsgs__sparse_feature_rows takes sparse rows R for ndirs
 * directions on `threads` threads: each row's columns strictly ascending
 * and a chunk of directions' phases of every row within a thread's
 * scratch (some 8 MB). */
int tsgs__sparse_feature_rows_fit(const tsgs__rows *R, long ndirs,
                                  int threads);
/* The feature rows of sparse rows R (tsgs__sparse_feature_rows_fit) on
 * directions [0, ndirs) of fs, scaled by k, into out (D apart; with pair,
 * the sin half from column ndirs on): the bits tsgs__sparse_features
 * gives, scaled, with no column cache. Each column's directions are made
 * once per chunk of directions and added to the phases of the rows that
 * hold it, the chunks shared by the threads. The stop is polled every
 * 1,024 columns: TSGS_ERR_STOPPED once due at grace. */
tsgs_status tsgs__sparse_feature_rows(const tsgs__fspec *fs, long ndirs,
                                      const tsgs__rows *R, int threads,
                                      float k, size_t D, int pair,
                                      tsgs__stop *stop, double grace,
                                      float *out, tsgs_error *err);
/* tsgs__eval_sums of rows R whatever their storage. */
tsgs_status tsgs__rows_eval_sums(const tsgs__fview *v,
                                 const tsgs__colcache *cc,
                                 const tsgs__rows *R, int threads,
                                 double *out, tsgs_error *err);
/* The same by a team; stop (NULL: none) as tsgs__sparse_sums_team's, for
 * sparse rows only. */
void tsgs__rows_eval_sums_team(const tsgs__fview *v,
                               const tsgs__colcache *cc, const tsgs__rows *R,
                               double *part, tsgs__kernel_ws *ws, double *out,
                               tsgs__stop *stop, int *failed);
/* The sparse kernel's direction chunk: a sum over directions adds each
 * chunk's partial sum in turn (featcache.c follows the same order). */
#define TSGS__SPARSE_DIR_CHUNK 256
/* Bytes at most of the column cache that features of a set of sparse
 * rows (the grid's, the safe solver's) make for themselves. */
#define TSGS__SPARSE_ROWS_CACHE (16.0 * 1048576.0)

#endif /* TSGS_KERNEL_KERNEL_H */
