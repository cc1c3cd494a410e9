/* Counter-based random numbers (Philox4x32-10, Salmon et al. SC'11): any
 * value is a pure function of (seed, counter), so any thread can regenerate
 * any random feature or mini-batch in any order. */
#include "internal.h"

#include <math.h>

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

tsgs__u32x4 tsgs__philox(uint64_t seed, uint32_t c0, uint32_t c1, uint32_t c2,
                         uint32_t c3)
{
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    uint32_t x0 = c0, x1 = c1, x2 = c2, x3 = c3;
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)PHILOX_M0 * x0;
        uint64_t p1 = (uint64_t)PHILOX_M1 * x2;
        uint32_t y0 = (uint32_t)(p1 >> 32) ^ x1 ^ k0;
        uint32_t y1 = (uint32_t)p1;
        uint32_t y2 = (uint32_t)(p0 >> 32) ^ x3 ^ k1;
        uint32_t y3 = (uint32_t)p0;
        x0 = y0; x1 = y1; x2 = y2; x3 = y3;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
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

uint64_t tsgs__below(uint64_t seed, uint32_t stream, uint64_t counter,
                     uint64_t n)
{
    /* Multiply-shift on 64 random bits: bias below 2^-32 for n < 2^32. */
    tsgs__u32x4 r = tsgs__philox(seed, (uint32_t)counter,
                                 (uint32_t)(counter >> 32), stream, 0x5eed);
    uint64_t x = ((uint64_t)r.v[0] << 32) | r.v[1];
    return (uint64_t)(((unsigned __int128)x * n) >> 64);
}
