/* Synthetic data shaped like a real sample: a Gaussian mixture with K
 * components and diagonal covariances fitted by EM to each class of a
 * dataset, and rows drawn from it with the counter RNG, so that row i is a
 * pure function of (seed, i). Files are written chunk by chunk in the
 * layouts of UCI's SUSY.csv, HEPMASS's all_train.csv, or LIBSVM; the rows
 * are never all held in memory. */
#include "data/data.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EM_MAX_ITER 500
#define EM_TOL 1e-9           /* relative change of the log-likelihood */
#define VAR_FLOOR_REL 1e-6    /* variances stay above this * class variance */
#define VAR_FLOOR_ABS 1e-12
#define ROWS_PER_COMPONENT 5  /* a class needs at least K * this many rows */
#define SLOT_ROWS 4096        /* rows one thread formats per chunk */
#define VALUE_MAX 64          /* bytes one formatted value may take */

/* -------------------------------------------------------------- fitting */

typedef struct {
    const double *x; /* n x d, the rows of one class */
    size_t n, d;
    int k;
    double *w, *mu, *var; /* k, k x d, k x d */
} em_problem;

static double sq(double v) { return v * v; }

/* Uniform in (0, 1) for draw j of the fit of class c. */
static double fit_u01(uint64_t seed, int c, uint64_t j)
{
    tsgs__u32x4 r = tsgs__philox(seed, (uint32_t)j, (uint32_t)(j >> 32),
                                 (uint32_t)c, TSGS__STREAM_SYNTH_FIT);
    return tsgs__u01(r.v[0], r.v[1]);
}

/* k-means++ seeding on standardized rows: the first mean uniformly, each
 * next one with probability proportional to its squared distance to the
 * nearest mean chosen so far. */
static void em_init(em_problem *P, const double *cvar, uint64_t seed, int c,
                    double *dist)
{
    const size_t n = P->n, d = P->d;
    uint64_t draw = 0;
    size_t pick = (size_t)(fit_u01(seed, c, draw++) * (double)n);
    if (pick >= n)
        pick = n - 1;
    for (int j = 0; j < P->k; j++) {
        memcpy(P->mu + (size_t)j * d, P->x + pick * d, sizeof(double) * d);
        double total = 0.0;
        for (size_t i = 0; i < n; i++) {
            double s = 0.0;
            for (size_t f = 0; f < d; f++)
                s += sq(P->x[i * d + f] - P->mu[(size_t)j * d + f]) / cvar[f];
            if (j == 0 || s < dist[i])
                dist[i] = s;
            total += dist[i];
        }
        if (j + 1 == P->k)
            break;
        double u = fit_u01(seed, c, draw++) * total, acc = 0.0;
        pick = n - 1;
        for (size_t i = 0; i < n; i++) {
            acc += dist[i];
            if (acc >= u && dist[i] > 0.0) {
                pick = i;
                break;
            }
        }
    }
    for (int j = 0; j < P->k; j++) {
        P->w[j] = 1.0 / P->k;
        memcpy(P->var + (size_t)j * d, cvar, sizeof(double) * d);
    }
}

/* log N(x | mu, diag(var)) + log w for each component; returns the log of
 * their sum and leaves the responsibilities in r. */
static double em_responsibilities(const em_problem *P, const double *x,
                                  const double *lconst, double *r)
{
    const size_t d = P->d;
    double best = -INFINITY;
    for (int j = 0; j < P->k; j++) {
        const double *mu = P->mu + (size_t)j * d, *var = P->var + (size_t)j * d;
        double s = 0.0;
        for (size_t f = 0; f < d; f++)
            s += sq(x[f] - mu[f]) / var[f];
        r[j] = lconst[j] - 0.5 * s;
        if (r[j] > best)
            best = r[j];
    }
    double sum = 0.0;
    for (int j = 0; j < P->k; j++) {
        r[j] = exp(r[j] - best);
        sum += r[j];
    }
    for (int j = 0; j < P->k; j++)
        r[j] /= sum;
    return best + log(sum);
}

/* EM from the seeded start; returns the mean log-likelihood per row. */
static double em_run(em_problem *P, const double *cvar, uint64_t seed, int c,
                     double *resp, double *lconst, int *iters)
{
    const size_t n = P->n, d = P->d;
    const int k = P->k;
    em_init(P, cvar, seed, c, resp); /* resp (n * k >= n) as scratch */
    double prev = -INFINITY, ll = -INFINITY;
    int it = 0;
    for (; it < EM_MAX_ITER; it++) {
        for (int j = 0; j < k; j++) {
            double s = 0.0;
            for (size_t f = 0; f < d; f++)
                s += log(2.0 * TSGS__PI * P->var[(size_t)j * d + f]);
            lconst[j] = log(P->w[j]) - 0.5 * s;
        }
        ll = 0.0;
        for (size_t i = 0; i < n; i++)
            ll += em_responsibilities(P, P->x + i * d, lconst,
                                      resp + i * (size_t)k);
        ll /= (double)n;
        if (it > 0 && fabs(ll - prev) <= EM_TOL * fabs(ll))
            break;
        prev = ll;
        /* M step: weights, means, then variances about the new means. */
        for (int j = 0; j < k; j++) {
            double nk = 0.0;
            double *mu = P->mu + (size_t)j * d, *var = P->var + (size_t)j * d;
            for (size_t f = 0; f < d; f++)
                mu[f] = var[f] = 0.0;
            for (size_t i = 0; i < n; i++) {
                double r = resp[i * (size_t)k + j];
                nk += r;
                for (size_t f = 0; f < d; f++)
                    mu[f] += r * P->x[i * d + f];
            }
            if (nk < 1e-9 * (double)n) {
                /* An empty component: restart it on a seeded row. */
                size_t i = (size_t)(fit_u01(seed, c, 1000003u + (uint64_t)it *
                                                         (uint64_t)k + (uint64_t)j) *
                                    (double)n);
                if (i >= n)
                    i = n - 1;
                memcpy(mu, P->x + i * d, sizeof(double) * d);
                memcpy(var, cvar, sizeof(double) * d);
                P->w[j] = 1.0 / (double)n;
                continue;
            }
            for (size_t f = 0; f < d; f++)
                mu[f] /= nk;
            for (size_t i = 0; i < n; i++) {
                double r = resp[i * (size_t)k + j];
                for (size_t f = 0; f < d; f++)
                    var[f] += r * sq(P->x[i * d + f] - mu[f]);
            }
            for (size_t f = 0; f < d; f++) {
                double floor = VAR_FLOOR_REL * cvar[f] + VAR_FLOOR_ABS;
                var[f] /= nk;
                if (!(var[f] >= floor))
                    var[f] = floor;
            }
            P->w[j] = nk / (double)n;
        }
        double wsum = 0.0;
        for (int j = 0; j < k; j++)
            wsum += P->w[j];
        for (int j = 0; j < k; j++)
            P->w[j] /= wsum;
    }
    *iters = it;
    return ll;
}

/* The two classes of ds's labeled rows (the distinct label values,
 * ascending) into lab and their rows into cnt: each with enough rows for
 * k components, and every value finite. */
static tsgs_status two_classes(const tsgs_dataset *ds, int k, double *lab,
                               size_t *cnt, tsgs_error *err)
{
    const size_t n = ds->n, d = ds->d;
    int nlab = 0;
    for (size_t i = 0; i < n; i++) {
        double y = ds->y[i];
        if (tsgs_is_unlabeled(y))
            continue;
        int c = -1;
        for (int t = 0; t < nlab; t++)
            if (lab[t] == y)
                c = t;
        if (c < 0) {
            if (nlab == 2)
                return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                                  "more than two label values (%g, %g, "
                                  "%g): a mixture is fitted per class of a "
                                  "binary problem",
                                  lab[0], lab[1], y);
            lab[nlab] = y;
            c = nlab++;
        }
        cnt[c]++;
    }
    if (nlab < 2)
        return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                          "the data has %s: a mixture is fitted per class "
                          "of a binary problem",
                          nlab ? "one label value only" : "no labeled rows");
    if (lab[0] > lab[1]) {
        double t = lab[0];
        lab[0] = lab[1];
        lab[1] = t;
        size_t u = cnt[0];
        cnt[0] = cnt[1];
        cnt[1] = u;
    }
    for (int c = 0; c < 2; c++)
        if (cnt[c] < (size_t)k * ROWS_PER_COMPONENT)
            return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                              "class %g has %zu rows: too few for %d "
                              "components (at least %d rows each)",
                              lab[c], cnt[c], k, ROWS_PER_COMPONENT);
    for (size_t i = 0; i < n * d; i++)
        if (!isfinite(ds->x[i]))
            return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                              "row %zu: a value is NaN or infinite",
                              i / d + 1);
    return TSGS_OK;
}

/* Class `label`'s rows of ds into x (nc x d, returned) and each feature's
 * variance over them into cvar (VAR_FLOOR_ABS where it is 0). */
static size_t class_rows(const tsgs_dataset *ds, double label, double *x,
                         double *cvar)
{
    const size_t n = ds->n, d = ds->d;
    size_t nc = 0;
    for (size_t i = 0; i < n; i++) {
        if (ds->y[i] != label) /* NaN (unlabeled) never equals */
            continue;
        for (size_t f = 0; f < d; f++)
            x[nc * d + f] = ds->x[i * d + f];
        nc++;
    }
    for (size_t f = 0; f < d; f++) {
        double mean = 0.0, v = 0.0;
        for (size_t i = 0; i < nc; i++)
            mean += x[i * d + f];
        mean /= (double)nc;
        for (size_t i = 0; i < nc; i++)
            v += sq(x[i * d + f] - mean);
        v /= (double)nc;
        cvar[f] = v > 0.0 ? v : VAR_FLOOR_ABS;
    }
    return nc;
}

tsgs_status tsgs_mixture_fit(const tsgs_dataset *ds, int k, uint64_t seed,
                             tsgs_mixture **out, tsgs_error *err)
{
    if (!ds || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_mixture_fit: NULL argument");
    if (k < 1 || k > TSGS_MIXTURE_MAX_COMPONENTS)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "components: %d is out of range (1 .. %d)", k,
                          TSGS_MIXTURE_MAX_COMPONENTS);
    const size_t d = ds->d;
    double lab[2] = {0.0, 0.0};
    size_t cnt[2] = {0, 0};
    tsgs_status st = two_classes(ds, k, lab, cnt, err);
    if (st != TSGS_OK)
        return st;
    tsgs_mixture *m = calloc(1, sizeof *m);
    size_t nmax = cnt[0] > cnt[1] ? cnt[0] : cnt[1];
    double *x = malloc(sizeof(double) * nmax * d);
    double *resp = malloc(sizeof(double) * nmax * (size_t)k);
    double *lconst = malloc(sizeof(double) * (size_t)k);
    double *cvar = malloc(sizeof(double) * d);
    if (!m || !x || !resp || !lconst || !cvar)
        goto nomem;
    m->d = d;
    m->k = k;
    m->w = malloc(sizeof(double) * 2 * (size_t)k);
    m->cum = malloc(sizeof(double) * 2 * (size_t)k);
    m->mu = malloc(sizeof(double) * 2 * (size_t)k * d);
    m->var = malloc(sizeof(double) * 2 * (size_t)k * d);
    m->sd = malloc(sizeof(double) * 2 * (size_t)k * d);
    if (!m->w || !m->cum || !m->mu || !m->var || !m->sd)
        goto nomem;
    for (int c = 0; c < 2; c++) {
        m->label[c] = lab[c];
        m->count[c] = cnt[c];
        const size_t nc = class_rows(ds, lab[c], x, cvar);
        em_problem P = {x, nc, d, k, m->w + (size_t)c * k,
                        m->mu + (size_t)c * k * d, m->var + (size_t)c * k * d};
        m->loglik[c] = em_run(&P, cvar, seed, c, resp, lconst, &m->iters[c]);
        double acc = 0.0;
        for (int j = 0; j < k; j++) {
            acc += P.w[j];
            m->cum[(size_t)c * k + j] = acc;
        }
        m->cum[(size_t)c * k + k - 1] = 1.0;
    }
    for (size_t t = 0; t < 2 * (size_t)k * d; t++)
        m->sd[t] = sqrt(m->var[t]);
    m->fraction1 = (double)cnt[1] / (double)(cnt[0] + cnt[1]);
    *out = m;
    m = NULL;
    goto done;
nomem:
    st = TSGS__NOMEM(err);
done:
    tsgs_mixture_free(m);
    free(x);
    free(resp);
    free(lconst);
    free(cvar);
    return st;
}

void tsgs_mixture_free(tsgs_mixture *m)
{
    if (!m)
        return;
    free(m->w);
    free(m->cum);
    free(m->mu);
    free(m->var);
    free(m->sd);
    free(m);
}

size_t tsgs_mixture_features(const tsgs_mixture *m) { return m->d; }

double tsgs_mixture_class_label(const tsgs_mixture *m, int c)
{
    return m->label[c ? 1 : 0];
}

double tsgs_mixture_class_fraction(const tsgs_mixture *m, int c)
{
    return (double)m->count[c ? 1 : 0] /
           (double)(m->count[0] + m->count[1]);
}

/* ------------------------------------------------------------- sampling */

int tsgs_mixture_row(const tsgs_mixture *m, uint64_t seed, uint64_t i,
                     float *x)
{
    const uint32_t lo = (uint32_t)i, hi = (uint32_t)(i >> 32);
    tsgs__u32x4 r = tsgs__philox(seed, lo, hi, 0, TSGS__STREAM_SYNTH);
    int c = tsgs__u01(r.v[0], r.v[1]) < m->fraction1;
    double u = tsgs__u01(r.v[2], r.v[3]);
    const double *cum = m->cum + (size_t)c * m->k;
    int j = 0;
    while (j + 1 < m->k && u >= cum[j])
        j++;
    size_t base = ((size_t)c * m->k + (size_t)j) * m->d;
    const double *mu = m->mu + base, *sd = m->sd + base;
    for (size_t f = 0; f < m->d; f += 2) {
        double z0, z1;
        tsgs__normal_pair(tsgs__philox(seed, lo, hi, 1 + (uint32_t)(f / 2),
                                       TSGS__STREAM_SYNTH),
                          &z0, &z1);
        x[f] = (float)(mu[f] + sd[f] * z0);
        if (f + 1 < m->d)
            x[f + 1] = (float)(mu[f + 1] + sd[f + 1] * z1);
    }
    return c;
}

/* -------------------------------------------------------------- writing */

/* Decimal digits of v < 10^19 into 19 chars at p (leading zeros kept). */
static void digits19(uint64_t v, char *p)
{
    for (int t = 18; t >= 0; t--) {
        p[t] = (char)('0' + v % 10);
        v /= 10;
    }
}

/* "d.ddd...e+XX" from 19 significant digits and the decimal exponent. */
static int put_e18(const char *sig, int e10, char *out)
{
    char *s = out;
    *s++ = sig[0];
    *s++ = '.';
    memcpy(s, sig + 1, 18);
    s += 18;
    *s++ = 'e';
    *s++ = e10 < 0 ? '-' : '+';
    int ae = e10 < 0 ? -e10 : e10;
    if (ae >= 100)
        *s++ = (char)('0' + ae / 100);
    *s++ = (char)('0' + ae / 10 % 10);
    *s++ = (char)('0' + ae % 10);
    return (int)(s - out);
}

/* sig (19 digits) plus one in its last place, when up; a carry out of
 * the first (9.99..9 to 10.0..0) makes it 1.00..0 and raises *e10. */
static void round_sig(char *sig, int up, int *e10)
{
    for (int t = 18; up && t >= 0; t--) {
        if (sig[t] == '9') {
            sig[t] = '0';
        } else {
            sig[t]++;
            up = 0;
        }
    }
    if (up) {
        sig[0] = '1';
        (*e10)++;
    }
}

/* The usual case: |v| = I + F / 2^sh (mant = I 2^sh + F) with
 * F < 2^sh <= 2^60, so the fraction's digits come from F *= 10 exactly in
 * 64 bits, and what is left after 19 digits compares exactly with one
 * half. 19 significant digits into sig; returns the decimal exponent. */
static int binary_fraction_digits(uint64_t mant, int sh, char *sig)
{
    const uint64_t mask = (UINT64_C(1) << sh) - 1;
    uint64_t ip = mant >> sh, fp = mant & mask;
    int nd = 0, e10;
    if (ip) {
        char tmp[20];
        int ni = 0;
        for (; ip; ip /= 10)
            tmp[ni++] = (char)('0' + ip % 10);
        for (int t = ni - 1; t >= 0; t--)
            sig[nd++] = tmp[t];
        e10 = ni - 1;
    } else {
        e10 = -1;
        for (fp *= 10; !(fp >> sh); fp *= 10)
            e10--;
        sig[nd++] = (char)('0' + (fp >> sh));
        fp &= mask;
    }
    for (; nd < 19; nd++) {
        fp *= 10;
        sig[nd] = (char)('0' + (fp >> sh));
        fp &= mask;
    }
    const uint64_t half = UINT64_C(1) << (sh - 1);
    round_sig(sig, fp > half || (fp == half && ((sig[18] - '0') & 1)), &e10);
    return e10;
}

/* |v| = N * 10^-k exactly, N < 2^128: 19 significant digits into sig,
 * rounded half to even; returns the decimal exponent. */
static int exact_digits(unsigned __int128 N, int k, char *sig)
{
    const uint64_t P19 = UINT64_C(10000000000000000000);
    char dg[57];
    uint64_t c = (uint64_t)(N % P19);
    N /= P19;
    uint64_t b = (uint64_t)(N % P19);
    uint64_t a = (uint64_t)(N / P19);
    digits19(a, dg);
    digits19(b, dg + 19);
    digits19(c, dg + 38);
    int lead = 0;
    while (dg[lead] == '0')
        lead++;
    int nd = 57 - lead;
    int e10 = nd - 1 - k;
    if (nd <= 19) {
        memcpy(sig, dg + lead, (size_t)nd);
        memset(sig + nd, '0', (size_t)(19 - nd));
        return e10;
    }
    memcpy(sig, dg + lead, 19);
    const char *rest = dg + lead + 19;
    int nrest = nd - 19, up;
    if (rest[0] != '5') {
        up = rest[0] > '5';
    } else {
        up = 0;
        for (int t = 1; t < nrest && !up; t++)
            up = rest[t] != '0';
        if (!up) /* an exact tie: to even */
            up = (sig[18] - '0') & 1;
    }
    round_sig(sig, up, &e10);
    return e10;
}

int tsgs__format_e18(float v, char *out)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint32_t frac = bits & 0x7fffffu, bexp = (bits >> 23) & 0xffu;
    if (bexp == 0xff) /* not produced here; as printf says it */
        return sprintf(out, "%.18e", (double)v);
    uint64_t mant = bexp ? frac | 0x800000u : frac;
    int e2 = bexp ? (int)bexp - 150 : -149;
    char *s = out;
    if (bits >> 31)
        *s++ = '-';
    if (mant == 0) {
        memcpy(s, "0.000000000000000000e+00", 24);
        return (int)(s - out) + 24;
    }
    while (!(mant & 1)) {
        mant >>= 1;
        e2++;
    }
    char sig[20];
    if (e2 < 0 && e2 >= -60) {
        const int e10 = binary_fraction_digits(mant, -e2, sig);
        return (int)(s - out) + put_e18(sig, e10, s);
    }
    unsigned __int128 N = mant;
    int k = 0;
    if (e2 >= 0) {
        if (e2 > 104)
            return sprintf(out, "%.18e", (double)v);
        N <<= e2;
    } else {
        if (-e2 > 44)
            return sprintf(out, "%.18e", (double)v);
        for (k = 0; k < -e2; k++)
            N *= 5;
    }
    const int e10 = exact_digits(N, k, sig);
    return (int)(s - out) + put_e18(sig, e10, s);
}

tsgs_status tsgs_layout_from_name(const char *name, tsgs_layout *out,
                                  tsgs_error *err)
{
    static const char *const names[] = {"susy", "hepmass", "libsvm"};
    for (int t = 0; name && t < 3; t++)
        if (strcmp(name, names[t]) == 0) {
            *out = (tsgs_layout)t;
            return TSGS_OK;
        }
    return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                      "layout \"%s\": expected susy, hepmass or libsvm",
                      name ? name : "(null)");
}

/* Features each layout requires (0: any). */
static size_t layout_features(tsgs_layout layout)
{
    return layout == TSGS_LAYOUT_SUSY ? 18
           : layout == TSGS_LAYOUT_HEPMASS ? 28 : 0;
}

int tsgs__format_f6(float v, char *out)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint32_t frac = bits & 0x7fffffu, bexp = (bits >> 23) & 0xffu;
    uint64_t mant = bexp ? frac | 0x800000u : frac;
    int e2 = bexp ? (int)bexp - 150 : -149;
    if (bexp == 0xff || e2 > 39)
        return sprintf(out, "%.6f", (double)v);
    char *s = out;
    if (bits >> 31)
        *s++ = '-';
    uint64_t ip = 0;
    char fd[6] = {'0', '0', '0', '0', '0', '0'};
    if (e2 >= 0) {
        ip = mant << e2;
    } else if (e2 >= -60) {
        /* as in tsgs__format_e18: exact fraction digits, exact rounding */
        const int sh = -e2;
        const uint64_t mask = (UINT64_C(1) << sh) - 1;
        uint64_t fp = mant & mask;
        ip = mant >> sh;
        for (int t = 0; t < 6; t++) {
            fp *= 10;
            fd[t] = (char)('0' + (fp >> sh));
            fp &= mask;
        }
        const uint64_t half = UINT64_C(1) << (sh - 1);
        int up = fp > half || (fp == half && ((fd[5] - '0') & 1));
        for (int t = 5; up && t >= 0; t--) {
            if (fd[t] == '9') {
                fd[t] = '0';
            } else {
                fd[t]++;
                up = 0;
            }
        }
        ip += (uint64_t)up;
    } /* else below 2^-37: 0.000000 */
    char tmp[24];
    int ni = 0;
    do {
        tmp[ni++] = (char)('0' + ip % 10);
        ip /= 10;
    } while (ip);
    while (ni)
        *s++ = tmp[--ni];
    *s++ = '.';
    memcpy(s, fd, 6);
    s += 6;
    return (int)(s - out);
}

/* Row i as one text line at p; returns the bytes written. */
static size_t format_row(const tsgs_mixture *m, uint64_t seed, uint64_t i,
                         tsgs_layout layout, float *x, char *p)
{
    int c = tsgs_mixture_row(m, seed, i, x);
    char *s = p;
    const size_t d = m->d;
    switch (layout) {
    case TSGS_LAYOUT_SUSY:
        s += tsgs__format_e18(c ? 1.0f : 0.0f, s);
        for (size_t f = 0; f < d; f++) {
            *s++ = ',';
            s += tsgs__format_e18(x[f], s);
        }
        break;
    case TSGS_LAYOUT_HEPMASS:
        *s++ = c ? '1' : '0';
        for (size_t f = 0; f < d; f++) {
            *s++ = ',';
            s += tsgs__format_f6(x[f], s);
        }
        break;
    default: /* LIBSVM: the sample's own label values */
        s += snprintf(s, VALUE_MAX, "%.17g", m->label[c]);
        for (size_t f = 0; f < d; f++)
            if (x[f] != 0.0f)
                s += snprintf(s, VALUE_MAX, " %zu:%.9g", f + 1, (double)x[f]);
        break;
    }
    *s++ = '\n';
    return (size_t)(s - p);
}

tsgs_status tsgs_synth_write(const tsgs_mixture *m, uint64_t seed,
                             uint64_t first, uint64_t count,
                             tsgs_layout layout, int header, int threads,
                             FILE *f, tsgs_error *err)
{
    if (!m || !f)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_synth_write: NULL argument");
    if ((unsigned)layout > TSGS_LAYOUT_LIBSVM)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "layout: unknown value %d", (int)layout);
    size_t need = layout_features(layout);
    if (need && m->d != need)
        return tsgs__fail(err, TSGS_ERR_DIM, NULL, 0,
                          "the %s layout has %zu features; the mixture has "
                          "%zu",
                          layout == TSGS_LAYOUT_SUSY ? "SUSY" : "HEPMASS",
                          need, m->d);
    if (count > UINT64_MAX - first)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "rows %llu + %llu overflow",
                          (unsigned long long)first,
                          (unsigned long long)count);
    if (header && layout == TSGS_LAYOUT_HEPMASS) {
        fputs("# label", f);
        for (size_t k = 0; k + 1 < m->d; k++)
            fprintf(f, ",f%zu", k);
        fputs(",mass\n", f);
    }
    int nt = tsgs__threads_resolve(threads);
    const size_t row_max = (m->d + 2) * VALUE_MAX;
    char **buf = calloc((size_t)nt, sizeof *buf);
    size_t *len = calloc((size_t)nt, sizeof *len);
    float *x = malloc(sizeof(float) * (size_t)nt * (m->d + 1));
    tsgs_status st = TSGS_OK;
    if (!buf || !len || !x)
        goto nomem;
    for (int t = 0; t < nt; t++)
        if (!(buf[t] = malloc(row_max * SLOT_ROWS)))
            goto nomem;
    const uint64_t chunk = (uint64_t)nt * SLOT_ROWS;
    for (uint64_t c0 = 0; c0 < count; c0 += chunk) {
        uint64_t cn = count - c0 < chunk ? count - c0 : chunk;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static, 1)
#endif
        for (int t = 0; t < nt; t++) {
            uint64_t a = (uint64_t)t * SLOT_ROWS;
            uint64_t b = a + SLOT_ROWS < cn ? a + SLOT_ROWS : cn;
            size_t l = 0;
            for (uint64_t r = a; r < b; r++)
                l += format_row(m, seed, first + c0 + r, layout,
                                x + (size_t)t * (m->d + 1), buf[t] + l);
            len[t] = a < cn ? l : 0;
        }
        for (int t = 0; t < nt; t++)
            if (len[t] && fwrite(buf[t], 1, len[t], f) != len[t]) {
                st = tsgs__fail(err, TSGS_ERR_IO, NULL, 0,
                                "writing synthetic rows failed");
                goto done;
            }
    }
    if (fflush(f) != 0 || ferror(f))
        st = tsgs__fail(err, TSGS_ERR_IO, NULL, 0,
                        "writing synthetic rows failed");
    goto done;
nomem:
    st = TSGS__NOMEM(err);
done:
    if (buf)
        for (int t = 0; t < nt; t++)
            free(buf[t]);
    free(buf);
    free(len);
    free(x);
    return st;
}

tsgs_status tsgs_synth_write_file(const tsgs_mixture *m, uint64_t seed,
                                  uint64_t rows, tsgs_layout layout,
                                  int threads, const char *path,
                                  tsgs_error *err)
{
    if (!path)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_synth_write_file: NULL path");
    /* A pipe or a device (or a link to one) is written into, and never
     * removed: only a regular file of partial rows is. */
    struct stat sb;
    int special = stat(path, &sb) == 0 && !S_ISREG(sb.st_mode);
    FILE *f = fopen(path, "wb");
    if (!f)
        return tsgs__fail(err, TSGS_ERR_IO, path, 0,
                          "cannot open for writing");
    tsgs_status st =
        tsgs_synth_write(m, seed, 0, rows, layout, 1, threads, f, err);
    if (fclose(f) != 0 && st == TSGS_OK)
        st = tsgs__fail(err, TSGS_ERR_IO, path, 0, "writing failed");
    if (st != TSGS_OK) {
        if (err && err->code == TSGS_ERR_IO && !err->file[0])
            tsgs__fail(err, TSGS_ERR_IO, path, 0, "writing failed");
        if (!special)
            remove(path);
    }
    return st;
}
