/* Counter-based random numbers (Philox4x32-10, Salmon et al. SC'11): any
 * value is a pure function of (seed, counter), so any thread can regenerate
 * any random feature or mini-batch in any order. */
#include "common/common.h"

#include <math.h>

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

/* The ten rounds on `lanes` states side by side, lane l's words in
 * x0[l] .. x3[l]: a round of one lane depends on its last round only, so
 * the lanes' chains of multiplies overlap. */
static inline void philox_lanes(uint64_t seed, int lanes, uint32_t *x0,
                                uint32_t *x1, uint32_t *x2, uint32_t *x3)
{
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int round = 0; round < 10; round++) {
        for (int l = 0; l < lanes; l++) {
            const uint64_t p0 = (uint64_t)PHILOX_M0 * x0[l];
            const uint64_t p1 = (uint64_t)PHILOX_M1 * x2[l];
            const uint32_t y0 = (uint32_t)(p1 >> 32) ^ x1[l] ^ k0;
            const uint32_t y2 = (uint32_t)(p0 >> 32) ^ x3[l] ^ k1;
            x1[l] = (uint32_t)p1;
            x3[l] = (uint32_t)p0;
            x0[l] = y0;
            x2[l] = y2;
        }
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
}

tsgs__u32x4 tsgs__philox(uint64_t seed, uint32_t c0, uint32_t c1, uint32_t c2,
                         uint32_t c3)
{
    uint32_t x0 = c0, x1 = c1, x2 = c2, x3 = c3;
    philox_lanes(seed, 1, &x0, &x1, &x2, &x3);
    tsgs__u32x4 out = {{x0, x1, x2, x3}};
    return out;
}

double tsgs__u01(uint32_t hi, uint32_t lo)
{
    /* 52 random bits, offset by half a step: strictly inside (0, 1) and
     * exact in a double, so log() and tan() never see 0 or the poles. */
    uint64_t bits = ((uint64_t)hi << 20) ^ (uint64_t)(lo >> 12);
    bits &= (UINT64_C(1) << 52) - 1;
    return ((double)bits + 0.5) * (1.0 / 4503599627370496.0);
}

void tsgs__normal_pair(tsgs__u32x4 r, double *z0, double *z1)
{
    double u1 = tsgs__u01(r.v[0], r.v[1]);
    double u2 = tsgs__u01(r.v[2], r.v[3]);
    double rad = sqrt(-2.0 * log(u1));
    double ang = 2.0 * TSGS__PI * u2;
    *z0 = rad * cos(ang);
    *z1 = rad * sin(ang);
}

/* Multiply-shift on 64 random bits (r0, r1): bias below 2^-32 for
 * n < 2^32. */
static inline uint64_t below_of(uint32_t r0, uint32_t r1, uint64_t n)
{
    const uint64_t x = ((uint64_t)r0 << 32) | r1;
    return (uint64_t)(((unsigned __int128)x * n) >> 64);
}

uint64_t tsgs__below(uint64_t seed, uint32_t stream, uint64_t counter,
                     uint64_t n)
{
    tsgs__u32x4 r = tsgs__philox(seed, (uint32_t)counter,
                                 (uint32_t)(counter >> 32), stream, 0x5eed);
    return below_of(r.v[0], r.v[1], n);
}

/* Draws side by side in tsgs__below_run: a draw's ten rounds are one
 * chain of dependent multiplies (17-18 ns alone on the 2-vCPU EPYC). */
#define BELOW_LANES 4

void tsgs__below_run(uint64_t seed, uint32_t stream, uint64_t key,
                     size_t hi, size_t len, size_t *out)
{
    size_t q = 0;
    for (; q + BELOW_LANES <= len; q += BELOW_LANES) {
        uint32_t x0[BELOW_LANES], x1[BELOW_LANES], x2[BELOW_LANES],
            x3[BELOW_LANES];
        for (int l = 0; l < BELOW_LANES; l++) {
            const uint64_t c = key ^ (uint64_t)(hi - q - (size_t)l);
            x0[l] = (uint32_t)c;
            x1[l] = (uint32_t)(c >> 32);
            x2[l] = stream;
            x3[l] = 0x5eed;
        }
        philox_lanes(seed, BELOW_LANES, x0, x1, x2, x3);
        for (int l = 0; l < BELOW_LANES; l++)
            out[q + (size_t)l] =
                (size_t)below_of(x0[l], x1[l], hi - q - (size_t)l);
    }
    for (; q < len; q++)
        out[q] = (size_t)tsgs__below(seed, stream, key ^ (uint64_t)(hi - q),
                                     hi - q);
}
