/* The first NaN or infinity of a float array in memory order: the check
 * that every reader and the trainer make on dense rows, and that the
 * scaler makes on a chunk whose column sums came out non-finite. */
#include "data/data.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Floats per block: a fixed count, so the test of a block vectorises with
 * no remainder; only a block that has a bad value is searched. */
#define SCAN_BLOCK 4096

/* Arrays below this many blocks are scanned by one thread: a team's start
 * costs more than the scan. */
#define PARALLEL_MIN_BLOCKS 16

/* Whether x[0 .. SCAN_BLOCK) holds a NaN or an infinity: the largest
 * magnitude's bits reach the all-ones exponent. */
static int block_nonfinite(const float *x)
{
    uint32_t top = 0;
    for (size_t i = 0; i < SCAN_BLOCK; i++) {
        uint32_t u;
        memcpy(&u, x + i, 4);
        u &= 0x7fffffffu;
        top = u > top ? u : top;
    }
    return top >= 0x7f800000u;
}

size_t tsgs__first_nonfinite(const float *x, size_t count, int threads)
{
    const size_t nb = count / SCAN_BLOCK;
    size_t first = count;
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) \
    reduction(min : first) if (threads > 1 && nb >= PARALLEL_MIN_BLOCKS)
#endif
    for (size_t b = 0; b <= nb; b++) {
        const size_t lo = b * SCAN_BLOCK;
        const size_t hi = b < nb ? lo + SCAN_BLOCK : count;
        if (b < nb && !block_nonfinite(x + lo))
            continue;
        for (size_t i = lo; i < hi; i++)
            if (!isfinite(x[i])) {
                first = i < first ? i : first;
                break;
            }
    }
    return first;
}
