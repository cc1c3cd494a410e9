/* Random Fourier feature directions, regenerated from (seed, block, j).
 *
 * RBF exp(-sigma ||x - x'||^2): omega ~ N(0, 2 sigma I).
 * Laplacian exp(-sigma ||x - x'||_1): omega_k ~ Cauchy(0, sigma).
 * COS features: sqrt(2) cos(omega . x + b), b ~ U[0, 2 pi).
 * PAIR features: cos(omega . x) and sin(omega . x), whose sum of products
 * over the pair is cos(omega . (x - x')), an unbiased kernel estimate with
 * lower variance than one shifted cosine (Sutherland & Schneider, 2015).
 * Orthogonal directions (RBF, Yu et al. 2016): the global directions
 * q * m .. q * m + m - 1 (m = fs->group <= d) form group q; their iid
 * Gaussian vectors are orthonormalised in order (Gram-Schmidt) and each
 * gets the length of an independent N(0, I_d) vector (chi with d degrees
 * of freedom). Each direction is still N(0, 2 sigma I) on its own; within
 * a group they are orthogonal, which lowers the variance of the kernel
 * estimate. */
#include "kernel/kernel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The phase b of direction j of block b: U[0, 2 pi) for COS features, 0
 * for PAIR (iid or orthogonal directions alike). */
static float direction_phase(const tsgs__fspec *fs, long block, long j)
{
    if (fs->map != TSGS_FEATURES_COS)
        return 0.0f;
    tsgs__u32x4 r = tsgs__philox(fs->seed, (uint32_t)block, (uint32_t)j, 0,
                                 TSGS__STREAM_PHASE);
    return (float)(2.0 * TSGS__PI * tsgs__u01(r.v[0], r.v[1]));
}

float tsgs__direction_phase(const tsgs__fspec *fs, long block, long j)
{
    return direction_phase(fs, block, j);
}

/* Coordinates 2h and 2h + 1 of iid direction j of block b: one Philox
 * draw gives both, so that any coordinate can be made alone (sparse
 * rows) with the bits the whole direction has. */
static inline void coordinate_pair(const tsgs__fspec *fs, uint32_t b,
                                   uint32_t j, uint32_t h, double gauss_sd,
                                   double *z0, double *z1)
{
    tsgs__u32x4 r = tsgs__philox(fs->seed, b, j, h, TSGS__STREAM_OMEGA);
    if (fs->kernel == TSGS_KERNEL_RBF) {
        tsgs__normal_pair(r, z0, z1);
        *z0 *= gauss_sd;
        *z1 *= gauss_sd;
    } else {
        *z0 = fs->sigma * tan(TSGS__PI * (tsgs__u01(r.v[0], r.v[1]) - 0.5));
        *z1 = fs->sigma * tan(TSGS__PI * (tsgs__u01(r.v[2], r.v[3]) - 0.5));
    }
}

double tsgs__omega_unit(const tsgs__fspec *fs, long block, long j, size_t k)
{
    const uint32_t h = (uint32_t)(k / 2);
    tsgs__u32x4 r = tsgs__philox(fs->seed, (uint32_t)block, (uint32_t)j, h,
                                 TSGS__STREAM_OMEGA);
    const int odd = (int)(k & 1);
    if (fs->kernel == TSGS_KERNEL_RBF) {
        /* tsgs__normal_pair's expressions, the one half that is needed */
        double u1 = tsgs__u01(r.v[0], r.v[1]);
        double u2 = tsgs__u01(r.v[2], r.v[3]);
        double rad = sqrt(-2.0 * log(u1));
        double ang = 2.0 * TSGS__PI * u2;
        return odd ? rad * sin(ang) : rad * cos(ang);
    }
    double u = odd ? tsgs__u01(r.v[2], r.v[3]) : tsgs__u01(r.v[0], r.v[1]);
    return tan(TSGS__PI * (u - 0.5));
}

float tsgs__omega_scaled(const tsgs__fspec *fs, double unit)
{
    /* coordinate_pair's products, so that the coordinate is its bits */
    if (fs->kernel == TSGS_KERNEL_RBF)
        return (float)(unit * sqrt(2.0 * fs->sigma));
    return (float)(fs->sigma * unit);
}

float tsgs__omega_coord(const tsgs__fspec *fs, long block, long j, size_t k)
{
    return tsgs__omega_scaled(fs, tsgs__omega_unit(fs, block, j, k));
}

/* Direction j of block b, iid, into omega[0], omega[stride], ... (stride
 * TSGS__LANES writes a packed panel's lane in place). */
static void direction_strided(const tsgs__fspec *fs, long block, long j,
                              float *omega, size_t stride, float *phase)
{
    const uint32_t b = (uint32_t)block, jj = (uint32_t)j;
    const double gauss_sd = sqrt(2.0 * fs->sigma);
    for (size_t k = 0; k < fs->d; k += 2) {
        double z0, z1;
        coordinate_pair(fs, b, jj, (uint32_t)(k / 2), gauss_sd, &z0, &z1);
        omega[k * stride] = (float)z0;
        if (k + 1 < fs->d)
            omega[(k + 1) * stride] = (float)z1;
    }
    *phase = direction_phase(fs, block, j);
}

/* Rows projected together (orthogonal_group): a dot product is a chain
 * of dependent additions, bound by the adder's latency; the batch's rows
 * projected on the same earlier row in one pass run their chains side by
 * side. Each row's operations, and their order, are those of one row at a
 * time, so the directions keep their bits. */
#define ORTHO_BATCH 4

/* rows[b] -= <rows[b], prev> prev for the nb <= ORTHO_BATCH rows of
 * `rows` (d apart), each dot product summed in index order. */
static void project_rows(double *rows, long nb, const double *prev, size_t d)
{
    double dot[ORTHO_BATCH] = {0.0, 0.0, 0.0, 0.0};
    if (nb == ORTHO_BATCH) {
        const double *r0 = rows, *r1 = rows + d, *r2 = rows + 2 * d,
                     *r3 = rows + 3 * d;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        for (size_t k = 0; k < d; k++) {
            s0 += r0[k] * prev[k];
            s1 += r1[k] * prev[k];
            s2 += r2[k] * prev[k];
            s3 += r3[k] * prev[k];
        }
        dot[0] = s0, dot[1] = s1, dot[2] = s2, dot[3] = s3;
    } else {
        for (long b = 0; b < nb; b++)
            for (size_t k = 0; k < d; k++)
                dot[b] += rows[(size_t)b * d + k] * prev[k];
    }
    for (long b = 0; b < nb; b++) {
        double *row = rows + (size_t)b * d;
        for (size_t k = 0; k < d; k++)
            row[k] -= dot[b] * prev[k];
    }
}

/* Global direction g's iid draw into raw (d floats) and row (doubles);
 * returns its squared length. */
static double draw_row(const tsgs__fspec *fs, long g, float *raw,
                       double *row)
{
    float phase;
    direction_strided(fs, g / fs->dirs, g % fs->dirs, raw, 1, &phase);
    double len0 = 0.0;
    for (size_t k = 0; k < fs->d; k++)
        row[k] = raw[k];
    for (size_t k = 0; k < fs->d; k++)
        len0 += row[k] * row[k];
    return len0;
}

/* A projected row made a unit vector; a residual lost to rounding keeps
 * direction g's raw draw (i < m <= d Gaussian vectors are independent
 * with probability one). */
static void unit_row(const tsgs__fspec *fs, long g, double len0, float *raw,
                     double *row)
{
    const size_t d = fs->d;
    double len = 0.0;
    for (size_t k = 0; k < d; k++)
        len += row[k] * row[k];
    if (!(len > 1e-20 * len0)) {
        len = draw_row(fs, g, raw, row);
    }
    const double unit = 1.0 / sqrt(len);
    for (size_t k = 0; k < d; k++)
        row[k] *= unit;
}

/* Group q of an orthogonal spec into Q (group x d doubles): row i is
 * global direction q * group + i, with its full length, by modified
 * Gram-Schmidt against the rows before it. raw: d floats of scratch.
 * Returns 1 when stop (polled before each draw, each earlier row a batch
 * is projected on, and each length: at most ORTHO_BATCH x d work) cut it,
 * else 0. */
static int orthogonal_group(const tsgs__fspec *fs, long q, double *Q,
                            float *raw, tsgs__stop *stop, double grace)
{
    const size_t d = fs->d;
    const long m = fs->group;
    for (long i0 = 0; i0 < m; i0 += ORTHO_BATCH) {
        const long nb = m - i0 < ORTHO_BATCH ? m - i0 : ORTHO_BATCH;
        double *rows = Q + (size_t)i0 * d;
        double len0[ORTHO_BATCH];
        for (long b = 0; b < nb; b++) {
            if (tsgs__stop_due(stop, grace))
                return 1;
            len0[b] = draw_row(fs, q * m + i0 + b, raw, rows + (size_t)b * d);
        }
        for (long j = 0; j < i0; j++) {
            if (tsgs__stop_due(stop, grace))
                return 1;
            project_rows(rows, nb, Q + (size_t)j * d, d);
        }
        /* within the batch, in order: row b on the rows made before it */
        for (long b = 0; b < nb; b++) {
            double *row = rows + (size_t)b * d;
            for (long j = 0; j < b; j++)
                project_rows(row, 1, rows + (size_t)j * d, d);
            unit_row(fs, q * m + i0 + b, len0[b], raw, row);
        }
    }
    /* Rows are unit vectors now; give each its chi length (d draws each:
     * polled as the rows above, a wide group's lengths take seconds). */
    const double gauss_sd = sqrt(2.0 * fs->sigma);
    for (long i = 0; i < m; i++) {
        if (tsgs__stop_due(stop, grace))
            return 1;
        uint32_t g = (uint32_t)(q * m + i), hi = (uint32_t)((q * m + i) >> 32);
        double chi2 = 0.0;
        for (size_t k = 0; k < d; k += 2) {
            double z0, z1;
            tsgs__normal_pair(tsgs__philox(fs->seed, g, hi, (uint32_t)(k / 2),
                                           TSGS__STREAM_LENGTH),
                              &z0, &z1);
            chi2 += z0 * z0 + (k + 1 < d ? z1 * z1 : 0.0);
        }
        const double s = gauss_sd * sqrt(chi2);
        double *row = Q + (size_t)i * d;
        for (size_t k = 0; k < d; k++)
            row[k] *= s;
    }
    return 0;
}

/* Writes directions [g0, g0 + count) with a lane stride, building each
 * orthogonal group they touch once: 0, -1 out of memory, 1 cut by stop
 * (polled before each direction, or each row of a group). */
static int directions_strided(const tsgs__fspec *fs, long g0, long count,
                              float *panel, float *phase, tsgs__stop *stop,
                              double grace)
{
    const size_t d = fs->d;
    if (!fs->orthogonal) {
        for (long i = 0; i < count; i++) {
            if (tsgs__stop_due(stop, grace))
                return 1;
            long g = g0 + i;
            long grp = i / TSGS__LANES, lane = i % TSGS__LANES;
            direction_strided(fs, g / fs->dirs, g % fs->dirs,
                              panel + (size_t)grp * d * TSGS__LANES + lane,
                              TSGS__LANES, &phase[grp * TSGS__LANES + lane]);
        }
        return 0;
    }
    double *Q = malloc(sizeof(double) * (size_t)fs->group * (d ? d : 1));
    float *raw = malloc(sizeof(float) * (d ? d : 1));
    if (!Q || !raw) {
        free(Q);
        free(raw);
        return -1;
    }
    long built = -1;
    int rc = 0;
    for (long i = 0; i < count && rc == 0; i++) {
        long g = g0 + i, q = g / fs->group;
        if (q != built && (rc = orthogonal_group(fs, q, Q, raw, stop, grace)) != 0)
            break;
        if (tsgs__stop_due(stop, grace)) { /* each copy is d strided writes */
            rc = 1;
            break;
        }
        built = q;
        const double *row = Q + (size_t)(g - q * fs->group) * d;
        long grp = i / TSGS__LANES, lane = i % TSGS__LANES;
        float *out = panel + (size_t)grp * d * TSGS__LANES + lane;
        for (size_t k = 0; k < d; k++)
            out[k * TSGS__LANES] = (float)row[k];
        phase[grp * TSGS__LANES + lane] =
            direction_phase(fs, g / fs->dirs, g % fs->dirs);
    }
    free(Q);
    free(raw);
    return rc;
}

int tsgs__direction(const tsgs__fspec *fs, long block, long j, float *omega,
                    float *phase)
{
    if (!fs->orthogonal) {
        direction_strided(fs, block, j, omega, 1, phase);
        return 0;
    }
    /* One lane of a packed group, then unpacked. */
    float *panel = malloc(sizeof(float) * TSGS__LANES * (fs->d ? fs->d : 1));
    float lane_phase[TSGS__LANES] = {0.0f};
    if (!panel)
        return -1;
    int rc = directions_strided(fs, block * fs->dirs + j, 1, panel, lane_phase,
                                NULL, 0.0);
    for (size_t k = 0; rc == 0 && k < fs->d; k++)
        omega[k] = panel[k * TSGS__LANES];
    *phase = lane_phase[0];
    free(panel);
    return rc;
}

int tsgs__pack_directions(const tsgs__fspec *fs, long g0, long count,
                          float *panel, float *phase)
{
    return tsgs__pack_directions_stop(fs, g0, count, panel, phase, NULL, 0.0);
}

int tsgs__pack_directions_stop(const tsgs__fspec *fs, long g0, long count,
                               float *panel, float *phase, tsgs__stop *stop,
                               double grace)
{
    const size_t d = fs->d;
    /* Every lane below count is written in full below; only the last
     * group's unused lanes are zeroed (clearing the whole panel first
     * took seconds, unpolled, for a 1,000,000-wide input). */
    const long used = count % TSGS__LANES;
    if (used) {
        float *last = panel + (size_t)(count / TSGS__LANES) * d * TSGS__LANES;
        for (size_t k = 0; k < d; k++)
            for (long lane = used; lane < TSGS__LANES; lane++)
                last[k * TSGS__LANES + (size_t)lane] = 0.0f;
        for (long lane = used; lane < TSGS__LANES; lane++)
            phase[count - used + lane] = 0.0f;
    }
    /* Straight into the panel: no d-sized scratch (a VLA of d floats
     * overflows a thread's stack for wide data). */
    return directions_strided(fs, g0, count, panel, phase, stop, grace);
}

tsgs__fspec tsgs__fspec_of(const tsgs_params *p, size_t d)
{
    const int orthogonal =
        p->directions == TSGS_DIRECTIONS_ORTHOGONAL ||
        (p->directions == TSGS_DIRECTIONS_AUTO && p->kernel == TSGS_KERNEL_RBF);
    long group = 1;
    if (orthogonal)
        group = d < TSGS__ORF_GROUP_MAX ? (long)d : TSGS__ORF_GROUP_MAX;
    tsgs__fspec fs = {p->kernel, p->feature_map, p->sigma, d, p->seed,
                      p->block_size,
                      p->feature_map == TSGS_FEATURES_PAIR ? p->block_size / 2
                                                           : p->block_size,
                      orthogonal && group > 1, group > 1 ? group : 1};
    return fs;
}

size_t tsgs__feature_columns(const tsgs__fspec *fs, size_t ndirs)
{
    return fs->map == TSGS_FEATURES_PAIR ? 2 * ndirs : ndirs;
}

long tsgs__blocks_for(const tsgs_params *p, long features)
{
    return (features + p->block_size - 1) / p->block_size;
}

long tsgs__auto_features(const tsgs_params *p, size_t d)
{
    return p->solver == TSGS_SOLVER_SAFE && d > TSGS__WIDE_DIMENSIONS
               ? TSGS__AUTO_FEATURES_WIDE
               : TSGS__AUTO_FEATURES;
}

long tsgs__first_features(const tsgs_params *p, size_t d)
{
    return p->max_features > 0 ? p->max_features : tsgs__auto_features(p, d);
}

long tsgs__default_features(const tsgs_params *p, size_t n, size_t d)
{
    if (p->max_features > 0 || p->solver == TSGS_SOLVER_SAFE)
        return tsgs__first_features(p, d);
    long root = (long)ceil(sqrt((double)n));
    return root > TSGS__AUTO_FEATURES ? root : TSGS__AUTO_FEATURES;
}
