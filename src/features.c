/* Random Fourier feature directions, regenerated from (seed, block, j).
 *
 * RBF exp(-sigma ||x - x'||^2): omega ~ N(0, 2 sigma I).
 * Laplacian exp(-sigma ||x - x'||_1): omega_k ~ Cauchy(0, sigma).
 * COS features: sqrt(2) cos(omega . x + b), b ~ U[0, 2 pi).
 * PAIR features: cos(omega . x) and sin(omega . x), whose sum of products
 * over the pair is cos(omega . (x - x')), an unbiased kernel estimate with
 * lower variance than one shifted cosine (Sutherland & Schneider, 2015). */
#include "internal.h"

#include <math.h>
#include <string.h>

/* Direction j of block b into omega[0], omega[stride], ... (stride
 * TSGS__LANES writes a packed panel's lane in place). */
static void direction_strided(const tsgs__fspec *fs, long block, long j,
                              float *omega, size_t stride, float *phase)
{
    const uint32_t b = (uint32_t)block, jj = (uint32_t)j;
    const double gauss_sd = sqrt(2.0 * fs->sigma);
    for (size_t k = 0; k < fs->d; k += 2) {
        tsgs__u32x4 r = tsgs__philox(fs->seed, b, jj, (uint32_t)(k / 2),
                                     TSGS__STREAM_OMEGA);
        double z0, z1;
        if (fs->kernel == TSGS_KERNEL_RBF) {
            tsgs__normal_pair(r, &z0, &z1);
            z0 *= gauss_sd;
            z1 *= gauss_sd;
        } else {
            z0 = fs->sigma * tan(TSGS__PI * (tsgs__u01(r.v[0], r.v[1]) - 0.5));
            z1 = fs->sigma * tan(TSGS__PI * (tsgs__u01(r.v[2], r.v[3]) - 0.5));
        }
        omega[k * stride] = (float)z0;
        if (k + 1 < fs->d)
            omega[(k + 1) * stride] = (float)z1;
    }
    if (fs->map == TSGS_FEATURES_COS) {
        tsgs__u32x4 r = tsgs__philox(fs->seed, b, jj, 0, TSGS__STREAM_PHASE);
        *phase = (float)(2.0 * TSGS__PI * tsgs__u01(r.v[0], r.v[1]));
    } else {
        *phase = 0.0f;
    }
}

void tsgs__direction(const tsgs__fspec *fs, long block, long j, float *omega,
                     float *phase)
{
    direction_strided(fs, block, j, omega, 1, phase);
}

void tsgs__pack_directions(const tsgs__fspec *fs, long g0, long count,
                           float *panel, float *phase)
{
    const size_t d = fs->d;
    const long ngroups = (count + TSGS__LANES - 1) / TSGS__LANES;
    memset(panel, 0, sizeof(float) * (size_t)ngroups * d * TSGS__LANES);
    memset(phase, 0, sizeof(float) * (size_t)ngroups * TSGS__LANES);
    /* Straight into the panel: no d-sized scratch (a VLA of d floats
     * overflows a thread's stack for wide data). */
    for (long i = 0; i < count; i++) {
        long g = g0 + i;
        long grp = i / TSGS__LANES, lane = i % TSGS__LANES;
        direction_strided(fs, g / fs->dirs, g % fs->dirs,
                          panel + (size_t)grp * d * TSGS__LANES + lane,
                          TSGS__LANES, &phase[grp * TSGS__LANES + lane]);
    }
}

tsgs__fspec tsgs__fspec_of(const tsgs_params *p, size_t d)
{
    tsgs__fspec fs = {p->kernel, p->feature_map, p->sigma, d, p->seed,
                      p->block_size,
                      p->feature_map == TSGS_FEATURES_PAIR ? p->block_size / 2
                                                           : p->block_size};
    return fs;
}
