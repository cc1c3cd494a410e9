/* common.h: the library's base: errors, stop requests, the seeded
 * random streams, orders and shuffles.
 * Internal (tsgs__ names), not installed; internal.h includes every
 * layer. */
#ifndef TSGS_COMMON_COMMON_H
#define TSGS_COMMON_COMMON_H

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

/* A run's view of its caller's request to stop (tsgs_train_hooks'
 * should_stop, tsgs_read_options'), for its long loops on any thread. */
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
/* From a hook and its argument (ask may be NULL: never). */
void tsgs__stop_init_fn(tsgs__stop *s, int (*ask)(void *), void *user);
/* Whether the work should end: the caller asked to stop at least grace
 * seconds ago (TSGS__STOP_OPTIONAL or _REQUIRED). Polls the hook when
 * due; safe from any thread; s NULL: never. */
int tsgs__stop_due(tsgs__stop *s, double grace);
/* TSGS_ERR_STOPPED, its message naming the work `during` which it came. */
tsgs_status tsgs__stopped(tsgs_error *err, const char *during);

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

/* -------------------------------------------------------------- order.c */

/* The k-th smallest of v[0..n) (0-based, n > 0), reordering v:
 * quickselect, O(n) on average. */
double tsgs__select_kth(double *v, size_t n, size_t k);

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
/* Undoes tsgs__shuffle_team(idx, n, k): idx back in the order it had
 * before (one thread, O(n) draws; a stopped run's pass order). */
void tsgs__unshuffle(size_t *idx, size_t n, const tsgs__shuffle_key *k);
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

/* Seconds on a monotonic clock (clock.c): the library's one clock. */
double tsgs__now_s(void);
/* The same clock in nanoseconds. */
long long tsgs__now_ns(void);

#endif /* TSGS_COMMON_COMMON_H */
