/* Seeded shuffles: Fisher-Yates from the top, swapping i - 1 with a draw
 * j_i < i for i = n .. 2, each draw counter-based (a function of the seed,
 * the stream, the shuffle's key and i alone). The swaps must run in order,
 * but the draws need not: on large arrays a team draws the next chunk of
 * them while one thread applies this chunk's swaps, which ask the memory
 * for the entries they will touch a few swaps ahead. Every way gives the
 * same order. */
#include "internal.h"

#include <stdlib.h>

/* j_i for the shuffle key k */
static size_t draw(const tsgs__shuffle_key *k, size_t i)
{
    return (size_t)tsgs__below(k->seed, k->stream, k->key ^ i, i);
}

/* j_i for i = hi, hi - 1, .., hi - len + 1 into J (team, no barrier). */
static void draw_chunk(const tsgs__shuffle_key *k, size_t hi, size_t len,
                       size_t *J)
{
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1024) nowait
#endif
    for (size_t q = 0; q < len; q++)
        J[q] = draw(k, hi - q);
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

void tsgs__seeded_shuffle(size_t *idx, size_t n, uint64_t seed, uint64_t tag,
                          int threads)
{
    const tsgs__shuffle_key k = {seed, TSGS__STREAM_SAFE, tag << 40};
    /* a chunk's draws or fewer: one thread, one loop */
    size_t *draws = n > TSGS__SHUFFLE_CHUNK
                        ? malloc(sizeof(size_t) * 2 * TSGS__SHUFFLE_CHUNK)
                        : NULL;
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
