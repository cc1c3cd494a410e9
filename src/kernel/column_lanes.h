/* One x86-64 level's vector code for columns.c, included once per level
 * with CW (doubles per vector: 8, 4 or 2), CN(name) (the name with the
 * level's suffix), CATTR (the level's target attribute, on every function
 * so that its intrinsics inline) and CMUL(a, b) (the products of the low
 * 32 bits of each 64-bit lane, as 64-bit lanes) defined.
 *
 * A lane is one direction g of the column: the Philox draw of counter
 * (block, j, k / 2, omega stream), then the Box-Muller half that
 * coordinate k takes, with a log, a cos and a sin of our own (columns.c
 * gives their errors), and a float that the check below proves equal to
 * tsgs__omega_coord's. Only the comparisons are done in integers: GCC 12
 * cannot expand vector comparisons under x86-64-v4 (an internal compiler
 * error in gimple_expand_vec_cond_expr). */

typedef double CN(vd) __attribute__((vector_size(8 * CW)));
typedef uint64_t CN(vu) __attribute__((vector_size(8 * CW)));
typedef int64_t CN(vs) __attribute__((vector_size(8 * CW)));
typedef float CN(vf) __attribute__((vector_size(4 * CW)));
typedef uint32_t CN(vw) __attribute__((vector_size(4 * CW)));

#define CV (BATCH / CW) /* vectors a batch */

CATTR static inline __attribute__((always_inline)) CN(vd)
    CN(pick)(CN(vu) mask, CN(vd) a, CN(vd) b)
{
    return (CN(vd))(((CN(vu))a & mask) | ((CN(vu))b & ~mask));
}

/* (bits + 0.5) / 2^52 for the 52-bit integers bits: tsgs__u01's value,
 * exactly (bits | 2^52's exponent is 2^52 + bits). */
CATTR static inline __attribute__((always_inline)) CN(vd)
    CN(unit_of)(CN(vu) hi, CN(vu) lo)
{
    const CN(vu) bits = ((hi << 20) ^ (lo >> 12)) & MANT52;
    return (((CN(vd))(bits | TWO52_BITS) - TWO52) + 0.5) * (1.0 / TWO52);
}

/* log(u), 0 < u < 1: u = 2^e m, m in (sqrt(1/2), sqrt(2)], f = m - 1
 * (exact), s = f / (2 + f), log m = 2 atanh s = 2 s sum_n s^2n / (2n + 1)
 * to n = 8 (|s| < 0.1716: the rest is below 2^-48 of it). */
CATTR static inline __attribute__((always_inline)) CN(vd)
    CN(log01)(CN(vd) u)
{
    const CN(vu) iu = (CN(vu))u;
    const CN(vu) mb = iu & MANT52;
    /* all ones where m > sqrt(2), from the sign of a difference */
    const CN(vu) big = ~(CN(vu))((CN(vs))(mb - (SQRT2_MANT + 1)) >> 63);
    CN(vd) m = (CN(vd))(mb | ONE_BITS);
    m = CN(pick)(big, m * 0.5, m);
    const CN(vu) eb = (iu >> 52) + (big & 1);
    const CN(vd) e = (CN(vd))(eb | TWO52_BITS) - (TWO52 + 1023.0);
    const CN(vd) f = m - 1.0, s = f / (2.0 + f), z = s * s;
    CN(vd) p = z * (1.0 / 17) + 1.0 / 15;
    p = p * z + 1.0 / 13;
    p = p * z + 1.0 / 11;
    p = p * z + 1.0 / 9;
    p = p * z + 1.0 / 7;
    p = p * z + 1.0 / 5;
    p = p * z + 1.0 / 3;
    const CN(vd) lm = 2.0 * s + 2.0 * s * (z * p);
    return e * LN2_HI + (lm + e * LN2_LO);
}

/* rad * (cos r, sin r as quadrant quad says) * sd into out as floats,
 * and into bad a nonzero word where the float is not proved. */
CATTR static inline __attribute__((always_inline)) void
    CN(finish)(CN(vu) quad, CN(vd) c, CN(vd) sn, CN(vd) rad, double sd,
               float *out, uint32_t *bad)
{
    /* quadrant 0: cos r, 1: -sin r, 2: -cos r, 3: sin r */
    CN(vd) v = CN(pick)(-(quad & 1), sn, c);
    v = (CN(vd))((CN(vu))v ^ (((quad + 1) & 2) << 62));
    const CN(vd) w = rad * v * sd;
    /* The margin: a relative 2^-40 (our errors are below 2^-44, libm's
     * and the roundings' below 2^-50), and an absolute part for r's
     * absolute error (2^-113 at most) where v is near a zero. */
    const CN(vd) aw = (CN(vd))((CN(vu))w & ~SIGN_BIT);
    const CN(vd) margin = aw * 0x1p-40 + rad * (sd * 0x1p-100);
    const CN(vf) fw = __builtin_convertvector(w, CN(vf));
    const CN(vf) lo = __builtin_convertvector(w - margin, CN(vf));
    const CN(vf) hi = __builtin_convertvector(w + margin, CN(vf));
    const CN(vw) diff = ((CN(vw))lo ^ (CN(vw))fw) | ((CN(vw))hi ^ (CN(vw))fw);
    memcpy(out, &fw, sizeof fw);
    memcpy(bad, &diff, sizeof diff);
}

/* The unit draws rad * (cos r, sin r as quad says), within 2^-44 of
 * libm's, into units; bad nonzero where |cos| or |sin| is below 2^-60
 * (r's absolute error could matter there). */
CATTR static inline __attribute__((always_inline)) void
    CN(finish_unit)(CN(vu) quad, CN(vd) c, CN(vd) sn, CN(vd) rad,
                    double *units, uint32_t *bad)
{
    CN(vd) v = CN(pick)(-(quad & 1), sn, c);
    const CN(vu) av = (CN(vu))v & ~SIGN_BIT;
    v = (CN(vd))((CN(vu))v ^ (((quad + 1) & 2) << 62));
    const CN(vd) u = rad * v;
    /* all ones where |v| < 2^-60, from the sign of a difference */
    const CN(vu) tiny = (CN(vu))((CN(vs))(av - TINY_BITS) >> 63);
    memcpy(units, &u, sizeof u);
    for (int i = 0; i < CW; i++)
        bad[i] = (uint32_t)tiny[i];
}

/* The coordinates of one vector of lanes from their draws: cos (odd 0) or
 * sin (odd 1) of the angle times the radius times sd, as floats, and in
 * *bad a nonzero word where the float is not proved; with out2 (a
 * constant after inlining), the sin ones too (odd 0: both halves of the
 * draw, coordinates 2h and 2h + 1). */
CATTR static inline __attribute__((always_inline)) void
    CN(coords)(CN(vu) x0, CN(vu) x1, CN(vu) x2, CN(vu) x3, uint64_t odd,
               double sd, float *out, uint32_t *bad, float *out2,
               uint32_t *bad2, double *units)
{
    const CN(vd) u1 = CN(unit_of)(x0, x1), u2 = CN(unit_of)(x2, x3);
    const CN(vd) t = -2.0 * CN(log01)(u1);
    CN(vd) rad;
    for (int i = 0; i < CW; i++)
        rad[i] = __builtin_sqrt(t[i]);
    /* tsgs__omega_unit's angle, the same bits: one product */
    const CN(vd) ang = (2.0 * TSGS__PI) * u2;
    /* ang = q pi/2 + r, |r| <= pi/4: q rounded by the 1.5 * 2^52 shift
     * (its low bits are q), pi/2 in three parts (q * P1 and q * P2 are
     * exact for q <= 4, ang - q * P1 exact by Sterbenz) */
    const CN(vd) qs = ang * (2.0 / TSGS__PI) + ROUND_SHIFT;
    const CN(vu) quad = (CN(vu))qs + 3 * odd; /* sin x = cos(x - pi/2) */
    const CN(vd) q = qs - ROUND_SHIFT;
    const CN(vd) r = ((ang - q * PIO2_1) - q * PIO2_2) - q * PIO2_3;
    const CN(vd) r2 = r * r;
    /* Taylor to r^14 and r^13: the rest is below 2^-45 of them */
    CN(vd) c = r2 * (1.0 / 87178291200.0) - 1.0 / 479001600.0;
    c = c * r2 + 1.0 / 3628800.0;
    c = c * r2 - 1.0 / 40320.0;
    c = c * r2 + 1.0 / 720.0;
    c = c * r2 - 1.0 / 24.0;
    c = c * r2 + 0.5;
    c = 1.0 - c * r2;
    CN(vd) sn = r2 * (1.0 / 6227020800.0) - 1.0 / 39916800.0;
    sn = sn * r2 + 1.0 / 362880.0;
    sn = sn * r2 - 1.0 / 5040.0;
    sn = sn * r2 + 1.0 / 120.0;
    sn = sn * r2 - 1.0 / 6.0;
    sn = r + r * (r2 * sn);
    if (units) {
        CN(finish_unit)(quad, c, sn, rad, units, bad);
        return;
    }
    CN(finish)(quad, c, sn, rad, sd, out, bad);
    if (out2)
        CN(finish)(quad + 3, c, sn, rad, sd, out2, bad2);
}

/* BATCH lanes: counters (c0[l], c1[l], h, stream) under seed; with
 * out2, both coordinates of the draws (odd 0). */
CATTR static inline __attribute__((always_inline)) void
    CN(lanes)(uint64_t seed, const uint32_t *c0, const uint32_t *c1,
              uint32_t h, uint64_t odd, double sd, float *out, uint32_t *bad,
              float *out2, uint32_t *bad2, double *units)
{
    CN(vu) x0[CV], x1[CV], x2[CV], x3[CV];
    for (int v = 0; v < CV; v++)
        for (int i = 0; i < CW; i++) {
            x0[v][i] = c0[v * CW + i];
            x1[v][i] = c1[v * CW + i];
            x2[v][i] = h;
            x3[v][i] = TSGS__STREAM_OMEGA;
        }
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    const CN(vu) lo32 = (CN(vu)){0} + 0xffffffffu;
    const CN(vu) m0 = (CN(vu)){0} + PHILOX_M0, m1 = (CN(vu)){0} + PHILOX_M1;
    /* the ten rounds, CV independent vectors side by side (one alone is a
     * chain of dependent multiplies) */
#pragma GCC unroll 10
    for (int round = 0; round < 10; round++) {
#pragma GCC unroll 8
        for (int v = 0; v < CV; v++) {
            const CN(vu) p0 = CMUL(x0[v], m0), p1 = CMUL(x2[v], m1);
            const CN(vu) y0 = (p1 >> 32) ^ x1[v] ^ k0;
            const CN(vu) y2 = (p0 >> 32) ^ x3[v] ^ k1;
            x1[v] = p1 & lo32;
            x3[v] = p0 & lo32;
            x0[v] = y0;
            x2[v] = y2;
        }
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
#pragma GCC unroll 8
    for (int v = 0; v < CV; v++)
        CN(coords)(x0[v], x1[v], x2[v], x3[v], odd, sd, out + v * CW,
                   bad + v * CW, out2 ? out2 + v * CW : NULL,
                   out2 ? bad2 + v * CW : NULL,
                   units ? units + v * CW : NULL);
}

CATTR static void CN(batch)(uint64_t seed, const uint32_t *c0,
                            const uint32_t *c1, uint32_t h, uint64_t odd,
                            double sd, float *out, uint32_t *bad)
{
    CN(lanes)(seed, c0, c1, h, odd, sd, out, bad, NULL, NULL, NULL);
}

CATTR static void CN(batch2)(uint64_t seed, const uint32_t *c0,
                             const uint32_t *c1, uint32_t h, double sd,
                             float *out, uint32_t *bad, float *out2,
                             uint32_t *bad2)
{
    CN(lanes)(seed, c0, c1, h, 0, sd, out, bad, out2, bad2, NULL);
}

CATTR static void CN(batch_units)(uint64_t seed, const uint32_t *c0,
                                  const uint32_t *c1, uint32_t h,
                                  uint64_t odd, double *units, uint32_t *bad)
{
    float unused[BATCH]; /* (GCC cannot see that units is not NULL) */
    CN(lanes)(seed, c0, c1, h, odd, 1.0, unused, bad, NULL, NULL, units);
}

#undef CV
