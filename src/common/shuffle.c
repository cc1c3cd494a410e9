/* Seeded shuffles: Fisher-Yates from the top, swapping i - 1 with a draw
 * j_i < i for i = n .. 2, each draw counter-based (a function of the seed,
 * the stream, the shuffle's key and i alone). The swaps must run in order,
 * but the draws need not: on large arrays a team draws the next chunk of
 * them while one thread applies this chunk's swaps, which ask the memory
 * for the entries they will touch a few swaps ahead. Every way gives the
 * same order.
 *
 * A sample (which entries a shuffle puts in its first k places) needs no
 * shuffle: see tsgs__seeded_sample. */
#include "common/common.h"

#include <stdlib.h>
#include <string.h>

/* j_i for the shuffle key k */
static size_t draw(const tsgs__shuffle_key *k, size_t i)
{
    return (size_t)tsgs__below(k->seed, k->stream, k->key ^ i, i);
}

/* Draws per task of draw_chunk. */
#define DRAW_PART 1024

/* j_i for i = hi, hi - 1, .., hi - len + 1 into J (team, no barrier). */
static void draw_chunk(const tsgs__shuffle_key *k, size_t hi, size_t len,
                       size_t *J)
{
    const long parts = (long)((len + DRAW_PART - 1) / DRAW_PART);
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1) nowait
#endif
    for (long b = 0; b < parts; b++) {
        const size_t q = (size_t)b * DRAW_PART;
        tsgs__below_run(k->seed, k->stream, k->key, hi - q,
                        len - q < DRAW_PART ? len - q : DRAW_PART, J + q);
    }
}

static void swap_chunk(size_t *idx, size_t hi, size_t len, const size_t *J)
{
    const size_t ahead = 16;
    for (size_t q = 0; q < len; q++) {
        if (q + ahead < len)
            __builtin_prefetch(idx + J[q + ahead], 1);
        size_t i = hi - q, j = J[q];
        size_t t = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = t;
    }
}

void tsgs__shuffle_team(size_t *idx, size_t n, const tsgs__shuffle_key *k,
                        size_t *draws)
{
    if (n < 2)
        return;
    size_t *J[2] = {draws, draws + TSGS__SHUFFLE_CHUNK};
    size_t hi = n;
    size_t len = hi - 1 < TSGS__SHUFFLE_CHUNK ? hi - 1 : TSGS__SHUFFLE_CHUNK;
    draw_chunk(k, hi, len, J[0]);
    for (int c = 0; hi > 1; c ^= 1) {
#ifdef _OPENMP
#pragma omp barrier
#pragma omp single nowait
#endif
        swap_chunk(idx, hi, len, J[c]);
        hi -= len;
        len = hi - 1 < TSGS__SHUFFLE_CHUNK ? hi - 1 : TSGS__SHUFFLE_CHUNK;
        if (hi > 1)
            draw_chunk(k, hi, len, J[c ^ 1]);
    }
#ifdef _OPENMP
#pragma omp barrier
#endif
}

void tsgs__unshuffle(size_t *idx, size_t n, const tsgs__shuffle_key *k)
{
    /* the same swaps in the opposite order: i = 2 .. n */
    for (size_t i = 2; i <= n; i++) {
        size_t j = draw(k, i);
        size_t t = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = t;
    }
}

/* A team's scratch of two chunks of draws where `steps` fill more than
 * one; else NULL (a chunk's draws or fewer: one thread, one loop). */
static size_t *team_draws(size_t steps)
{
    return steps > TSGS__SHUFFLE_CHUNK
               ? malloc(sizeof(size_t) * 2 * TSGS__SHUFFLE_CHUNK)
               : NULL;
}

void tsgs__seeded_shuffle(size_t *idx, size_t n, uint64_t seed, uint64_t tag,
                          int threads)
{
    const tsgs__shuffle_key k = {seed, TSGS__STREAM_SAFE, tag << 40};
    size_t *draws = team_draws(n);
    if (draws) {
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) if (threads > 1)
#endif
        tsgs__shuffle_team(idx, n, &k, draws);
        free(draws);
        return;
    }
    (void)threads; /* (out of memory for the draws: the same order) */
    for (size_t i = n; i > 1; i--) {
        size_t j = draw(&k, i);
        size_t t = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = t;
    }
}

/* The sample's steps i = hi - len + 1 .. hi, in that order (J[q] is the
 * draw of step hi - q): a step whose draw is in the set swaps that place
 * for place i - 1. */
static void sample_chunk(uint64_t *in, size_t hi, size_t len, const size_t *J)
{
    for (size_t q = len; q-- > 0;) {
        const size_t i = hi - q, j = J[q];
        if (in[j >> 6] >> (j & 63) & 1u) {
            in[j >> 6] &= ~((uint64_t)1 << (j & 63));
            in[(i - 1) >> 6] |= (uint64_t)1 << ((i - 1) & 63);
        }
    }
}

/* Steps k + 1 .. n of the sample (team; ends with a barrier): the team
 * draws the next chunk while one thread applies this one. */
static void sample_team(uint64_t *in, size_t n, size_t k,
                        const tsgs__shuffle_key *key, size_t *draws)
{
    size_t *J[2] = {draws, draws + TSGS__SHUFFLE_CHUNK};
    size_t lo = k + 1;
    size_t len = n + 1 - lo < TSGS__SHUFFLE_CHUNK ? n + 1 - lo
                                                  : TSGS__SHUFFLE_CHUNK;
    draw_chunk(key, lo + len - 1, len, J[0]);
    for (int c = 0; len > 0; c ^= 1) {
#ifdef _OPENMP
#pragma omp barrier
#pragma omp single nowait
#endif
        sample_chunk(in, lo + len - 1, len, J[c]);
        lo += len;
        len = lo > n                             ? 0
              : n + 1 - lo < TSGS__SHUFFLE_CHUNK ? n + 1 - lo
                                                 : TSGS__SHUFFLE_CHUNK;
        if (len > 0)
            draw_chunk(key, lo + len - 1, len, J[c ^ 1]);
    }
#ifdef _OPENMP
#pragma omp barrier
#endif
}

/* The shuffle puts into place p the entry at sigma(p) = t_n(t_{n-1}(..
 * t_2(p))), t_i the swap of i - 1 and j_i. Steps 2 .. k swap places
 * below k among themselves, so the first k places hold the entries at
 * Q = t_n(..t_{k+1}({0 .. k - 1})), followed step by step from k + 1 up:
 * place i - 1 is not in Q before step i (Q holds places below k and
 * places i' - 1 of steps i' < i), so step i changes Q only where j_i is
 * in it, replacing it with i - 1. Q is a bit set over the places; its
 * members come out in order. n draws and n bit tests in a bit set an
 * eighth of the entries' size (5M entries: 625 KB, in cache), instead
 * of n swaps in the entries' 40 MB. */
int tsgs__seeded_sample(size_t n, size_t k, uint64_t seed, uint64_t tag,
                        int threads, size_t *pos)
{
    if (k >= n) { /* every entry */
        for (size_t p = 0; p < n; p++)
            pos[p] = p;
        return 0;
    }
    const tsgs__shuffle_key key = {seed, TSGS__STREAM_SAFE, tag << 40};
    const size_t words = (n + 63) / 64;
    uint64_t *in = calloc(words, sizeof(uint64_t));
    if (!in)
        return -1;
    for (size_t p = 0; p < k; p++)
        in[p >> 6] |= (uint64_t)1 << (p & 63);
    size_t *draws = team_draws(n - k);
    if (draws) {
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) if (threads > 1)
#endif
        sample_team(in, n, k, &key, draws);
        free(draws);
    } else { /* (few steps, or no memory for the draws: the same set) */
        (void)threads;
        for (size_t i = k + 1; i <= n; i++) {
            const size_t j = draw(&key, i);
            sample_chunk(in, i, 1, &j);
        }
    }
    size_t m = 0;
    for (size_t w = 0; w < words; w++)
        for (uint64_t b = in[w]; b; b &= b - 1)
            pos[m++] = w * 64 + (size_t)__builtin_ctzll(b);
    free(in);
    return 0;
}
