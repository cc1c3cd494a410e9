/* The kernel's vector code for one vector width, included by kernel.c once
 * per width with KW (floats per vector: 16, 8 or 4) and KN(name) (the name
 * with the width's suffix) defined. Everything here is always inlined into
 * a function compiled for one x86-64 level (kernel.c's TSGS__FOR_ISAS), so
 * it runs on that level's instructions.
 *
 * Directions come in groups of TSGS__LANES (16): a group's phases,
 * coefficients and each coordinate of its directions are 16 consecutive
 * floats, handled as 16 / KW vectors. The arithmetic of a lane does not
 * depend on KW; only the order in which a row's lanes are summed does. */

typedef float KN(vf) __attribute__((vector_size(4 * KW)));
typedef int KN(vi) __attribute__((vector_size(4 * KW)));
typedef unsigned int KN(vu) __attribute__((vector_size(4 * KW)));

ALWAYS_INLINE KN(vf) KN(load)(const float *p)
{
    KN(vf) v;
    memcpy(&v, p, sizeof v);
    return v;
}

ALWAYS_INLINE KN(vf) KN(splat)(float f)
{
    return (KN(vf)){0} + f;
}

/* sin and cos: reduce by the nearest multiple of pi/2 (pi/2 in two parts:
 * q * P1 is exact for |q| < 2^16, and the second part's rounding adds
 * q * 3e-11, at most 2e-7 at |x| = 1e4, where the float phase itself is
 * uncertain by 6e-4), evaluate minimax polynomials on [-pi/4, pi/4], then
 * swap and negate by quadrant. */
ALWAYS_INLINE void KN(sincos)(KN(vf) x, KN(vf) *s, KN(vf) *c)
{
    const KN(vf) magic = KN(splat)(12582912.0f); /* 1.5 * 2^23: rounds */
    KN(vf) q = x * KN(splat)(0.636619772367581343f) + magic;
    q = q - magic;
    KN(vi) qi = __builtin_convertvector(q, KN(vi));
    KN(vf) r = x - q * KN(splat)(1.5703125f);
    r = r - q * KN(splat)(4.83826794896619e-4f);
    KN(vf) r2 = r * r;
    KN(vf) ps = r + r * r2 * (KN(splat)(-1.6666654611e-1f) +
                              r2 * (KN(splat)(8.3321608736e-3f) +
                                    r2 * KN(splat)(-1.9515295891e-4f)));
    KN(vf) pc = KN(splat)(1.0f) - KN(splat)(0.5f) * r2 +
                r2 * r2 * (KN(splat)(4.166664568298827e-2f) +
                           r2 * (KN(splat)(-1.388731625493765e-3f) +
                                 r2 * KN(splat)(2.443315711809948e-5f)));
    KN(vi) odd = (qi & 1) == 1;
    KN(vi) bs = (KN(vi))ps, bc = (KN(vi))pc;
    KN(vi) sv = (bs & ~odd) | (bc & odd);
    KN(vi) cv = (bc & ~odd) | (bs & odd);
    /* quadrant bit 1 becomes the sign bit (unsigned: no signed overflow) */
    KN(vu) qu = (KN(vu))qi;
    *s = (KN(vf))((KN(vu))sv ^ ((qu & 2u) << 30));
    *c = (KN(vf))((KN(vu))cv ^ (((qu + 1u) & 2u) << 30));
}

/* cos alone (COS features): reduce by the nearest multiple of pi, then
 * cos(x) = (-1)^q cos(r) with |r| <= pi/2 and one even polynomial: degree
 * 5 in r^2, minimax on [0, (pi/2)^2] (error 2.2e-10; coefficients from a
 * Remez exchange). pi in two parts, as above (q * 6e-11 from the second).
 * Fewer operations than sincos, which needs both polynomials and a
 * blend. */
ALWAYS_INLINE KN(vf) KN(cos)(KN(vf) x)
{
    const KN(vf) magic = KN(splat)(12582912.0f);
    KN(vf) q = x * KN(splat)(0.318309886183790672f) + magic;
    q = q - magic;
    KN(vi) qi = __builtin_convertvector(q, KN(vi));
    KN(vf) r = x - q * KN(splat)(3.140625f);
    r = r - q * KN(splat)(9.67653589793e-4f);
    KN(vf) r2 = r * r;
    KN(vf) c = KN(splat)(-2.60514952e-07f);
    c = c * r2 + KN(splat)(2.47601614e-05f);
    c = c * r2 + KN(splat)(-1.38883614e-03f);
    c = c * r2 + KN(splat)(4.16666363e-02f);
    c = c * r2 + KN(splat)(-4.99999994e-01f);
    c = c * r2 + KN(splat)(1.0f);
    return (KN(vf))((KN(vu))c ^ ((KN(vu))qi << 31));
}

/* One pass of a tile over NV consecutive vectors of directions (vector v
 * holds directions v * KW .. v * KW + KW - 1) for RB rows: their phases,
 * then their weighted features added to A[r] in the order of v, so the
 * sums do not depend on NV. Each coordinate of a row is broadcast once
 * for the NV vectors: with one vector a pass, AVX-512 loaded as many
 * broadcasts as it ran FMAs. */
ALWAYS_INLINE void KN(tile_pass)(size_t d, const float *W, const float *P,
                                 const float *cf, const float *sf,
                                 const float *const *x, KN(vf) *A, long v0,
                                 const int pair, const int RB, const int NV)
{
    const long per_group = TSGS__LANES / KW;
    const float *w[NV_MAX];
    KN(vf) ph[NV_MAX][RB_MAX];
#pragma GCC unroll 2
    for (int j = 0; j < NV; j++) {
        const long v = v0 + j;
        w[j] = W + (size_t)(v / per_group) * d * TSGS__LANES +
               (size_t)(v % per_group) * KW;
        KN(vf) p0 = KN(load)(P + v * KW);
#pragma GCC unroll 12
        for (int r = 0; r < RB; r++)
            ph[j][r] = p0;
    }
    for (size_t k = 0; k < d; k++) {
        KN(vf) wk[NV_MAX];
#pragma GCC unroll 2
        for (int j = 0; j < NV; j++)
            wk[j] = KN(load)(w[j] + k * TSGS__LANES);
#pragma GCC unroll 12
        for (int r = 0; r < RB; r++) {
            const float xr = x[r][k];
#pragma GCC unroll 2
            for (int j = 0; j < NV; j++)
                ph[j][r] += wk[j] * xr;
        }
    }
#pragma GCC unroll 2
    for (int j = 0; j < NV; j++) {
        KN(vf) cg = KN(load)(cf + (v0 + j) * KW);
        KN(vf) sg = KN(load)(sf + (v0 + j) * KW);
#pragma GCC unroll 12
        for (int r = 0; r < RB; r++) {
            if (pair) {
                KN(vf) sv, cv;
                KN(sincos)(ph[j][r], &sv, &cv);
                A[r] += cv * cg + sv * sg;
            } else {
                A[r] += KN(cos)(ph[j][r]) * cg;
            }
        }
    }
}

/* out[i] = sum over ng (<= GROUP_TILE) groups of the weighted features of
 * row i, RB rows at a time, NV vectors of directions a pass. Within the
 * tile the weighted features are summed in float, per lane, with the
 * coefficients scaled by 2^-e where 2^e bounds the largest: exact
 * rescaling, and float's range is never exceeded whatever the lazy scale;
 * a row's lanes are summed in double. */
ALWAYS_INLINE void KN(tile_body)(size_t d, const float *W, const float *P,
                                 const double *ac, const double *as, long ng,
                                 const float *X, size_t n, double *out,
                                 const int pair, const int RB, const int NV)
{
    const long nc = ng * TSGS__LANES;
    const long nvec = nc / KW;
    double amax = 0.0;
    for (long j = 0; j < nc; j++) {
        double a = fabs(ac[j]);
        if (pair && fabs(as[j]) > a)
            a = fabs(as[j]);
        if (a > amax)
            amax = a;
    }
    int e = 0;
    if (amax > 0.0)
        (void)frexp(amax, &e);
    const double down = ldexp(1.0, -e), up = ldexp(1.0, e);
    float cf[GROUP_TILE * TSGS__LANES], sf[GROUP_TILE * TSGS__LANES];
    for (long j = 0; j < nc; j++) {
        cf[j] = (float)(ac[j] * down);
        sf[j] = pair ? (float)(as[j] * down) : 0.0f;
    }
    for (size_t i = 0; i < n; i += (size_t)RB) {
        size_t nr = n - i < (size_t)RB ? n - i : (size_t)RB;
        const float *x[RB_MAX];
        for (int r = 0; r < RB; r++)
            x[r] = X + (i + ((size_t)r < nr ? (size_t)r : 0)) * d;
        KN(vf) A[RB_MAX];
        for (int r = 0; r < RB; r++)
            A[r] = (KN(vf)){0};
        long v = 0;
        for (; v + NV <= nvec; v += NV)
            KN(tile_pass)(d, W, P, cf, sf, x, A, v, pair, RB, NV);
        for (; v < nvec; v++)
            KN(tile_pass)(d, W, P, cf, sf, x, A, v, pair, RB, 1);
        for (size_t r = 0; r < nr; r++) {
            double t = 0.0;
            for (int l = 0; l < KW; l++)
                t += (double)A[r][l];
            out[i + r] = t * up;
        }
    }
}

/* Feature values of rows i0..i1-1 over ngroups groups: cosv[i][g] and,
 * when sinv is not NULL, sinv[i][g]. */
ALWAYS_INLINE void KN(features_body)(size_t d, const float *panel,
                                     const float *phase, long ngroups,
                                     const float *X, size_t i0, size_t i1,
                                     float *cosv, float *sinv)
{
    const size_t width = (size_t)ngroups * TSGS__LANES;
    for (size_t i = i0; i < i1; i++) {
        const float *x = X + i * d;
        for (long g = 0; g < ngroups; g++)
            for (int h = 0; h < TSGS__LANES; h += KW) {
                const float *w = panel + (size_t)g * d * TSGS__LANES + h;
                const size_t at = (size_t)g * TSGS__LANES + (size_t)h;
                KN(vf) p = KN(load)(phase + at);
                for (size_t k = 0; k < d; k++)
                    p += KN(load)(w + k * TSGS__LANES) * x[k];
                if (sinv) {
                    KN(vf) s, c;
                    KN(sincos)(p, &s, &c);
                    memcpy(cosv + i * width + at, &c, sizeof c);
                    memcpy(sinv + i * width + at, &s, sizeof s);
                } else {
                    KN(vf) c = KN(cos)(p);
                    memcpy(cosv + i * width + at, &c, sizeof c);
                }
            }
    }
}
