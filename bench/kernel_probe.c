/* The prediction kernel against a probe: the fastest simple tile we know
 * for the same sums (issue #9's reference), measured in turns in one
 * process, one thread, so that a slow spell of a shared machine hits both.
 *
 * The probe computes what tsgs__eval_sums computes for COS features
 * (out[i] = sum_g a_g cos(w_g . x_i + b_g)), from the same packed
 * directions, but with nothing the library needs beyond speed: one block
 * of RB rows sweeps every direction (no tiles, no threads, no partial sums
 * in a fixed order), a degree-5 minimax polynomial in r^2 for cos after a
 * two-term Cody-Waite reduction (exact enough for the small phases here,
 * not for |phase| up to 1e4 as the kernel's), and float sums all the way
 * to the row's total. Its best block height (8 or 12 rows) is the
 * reference.
 *
 * Usage: bench_kernel_probe [--runs N] [--isa 0|1|2]
 *   --isa: the code path of both (0 baseline, 1 AVX2, 2 AVX-512; default
 *   the widest this CPU has)
 * Prints a "# machine" block, then per d: the kernel's and the probe's
 * evaluations per second (medians of N turns of about 0.2 s each) and
 * their ratio. */
#include "bench_clock.h"
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef float pvf __attribute__((vector_size(4 * TSGS__LANES)));
typedef int pvi __attribute__((vector_size(4 * TSGS__LANES)));
typedef unsigned int pvu __attribute__((vector_size(4 * TSGS__LANES)));

#define INLINE static inline __attribute__((always_inline))

INLINE pvf pload(const float *p)
{
    pvf v;
    memcpy(&v, p, sizeof v);
    return v;
}

INLINE pvf psplat(float f)
{
    return (pvf){0} + f;
}

/* cos(x) = (-1)^q cos(x - q pi), |x - q pi| <= pi/2; cos(r) as a degree-5
 * polynomial in s = r^2, minimax on [0, (pi/2)^2] (absolute error
 * 2.2e-10, found by a Remez exchange for this file). */
INLINE pvf probe_cos(pvf x)
{
    const pvf magic = psplat(12582912.0f);
    pvf q = x * psplat(0.318309886183790672f) + magic;
    q = q - magic;
    pvi qi = __builtin_convertvector(q, pvi);
    pvf r = x - q * psplat(3.140625f);
    r = r - q * psplat(9.67653589793e-4f);
    pvf s = r * r;
    pvf c = psplat(-2.60514952e-07f);
    c = c * s + psplat(2.47601614e-05f);
    c = c * s + psplat(-1.38883614e-03f);
    c = c * s + psplat(4.16666363e-02f);
    c = c * s + psplat(-4.99999994e-01f);
    c = c * s + psplat(1.0f);
    return (pvf)((pvu)c ^ ((pvu)qi << 31));
}

/* RB rows at a time over every group of 16 directions; af: the
 * coefficients as floats. */
INLINE void probe_body(size_t d, const float *W, const float *P,
                       const float *af, long ng, const float *X, size_t n,
                       double *out, const int RB)
{
    for (size_t i = 0; i < n; i += (size_t)RB) {
        const float *x[12];
        for (int r = 0; r < RB; r++)
            x[r] = X + (i + (i + (size_t)r < n ? (size_t)r : 0)) * d;
        pvf acc[12];
        for (int r = 0; r < RB; r++)
            acc[r] = (pvf){0};
        for (long g = 0; g < ng; g++) {
            const float *w = W + (size_t)g * d * TSGS__LANES;
            pvf ph[12];
            pvf p0 = pload(P + g * TSGS__LANES);
            for (int r = 0; r < RB; r++)
                ph[r] = p0;
            for (size_t k = 0; k < d; k++) {
                pvf wk = pload(w + k * TSGS__LANES);
                for (int r = 0; r < RB; r++)
                    ph[r] += wk * x[r][k];
            }
            pvf a = pload(af + g * TSGS__LANES);
            for (int r = 0; r < RB; r++)
                acc[r] += probe_cos(ph[r]) * a;
        }
        for (int r = 0; r < RB && i + (size_t)r < n; r++) {
            double t = 0.0;
            for (int l = 0; l < TSGS__LANES; l++)
                t += acc[r][l];
            out[i + (size_t)r] = t;
        }
    }
}

/* The widest vector unit the kernel uses on this machine, so that the
 * two are compared on the same instructions. */
#define DEFINE_PROBE(suffix, target)                                       \
    target static void probe8##suffix(size_t d, const float *W,            \
                                      const float *P, const float *af,     \
                                      long ng, const float *X, size_t n,   \
                                      double *out)                         \
    {                                                                      \
        probe_body(d, W, P, af, ng, X, n, out, 8);                         \
    }                                                                      \
    target static void probe12##suffix(size_t d, const float *W,           \
                                       const float *P, const float *af,    \
                                       long ng, const float *X, size_t n,  \
                                       double *out)                        \
    {                                                                      \
        probe_body(d, W, P, af, ng, X, n, out, 12);                        \
    }
TSGS__FOR_ISAS(DEFINE_PROBE)

typedef void (*probe_fn)(size_t, const float *, const float *, const float *,
                         long, const float *, size_t, double *);

static probe_fn probe_for(tsgs__isa isa, int rb)
{
#if TSGS__HAVE_ISA_PATHS
    if (isa == TSGS__ISA_AVX512)
        return rb == 8 ? probe8_avx512 : probe12_avx512;
    if (isa == TSGS__ISA_AVX2)
        return rb == 8 ? probe8_avx2 : probe12_avx2;
#else
    (void)isa;
#endif
    return rb == 8 ? probe8_base : probe12_base;
}

/* Evaluations per second of one turn of about 0.2 s. */
typedef struct {
    const tsgs__fview *v;
    probe_fn probe; /* NULL: the kernel */
    const float *af;
    const float *X;
    size_t rows;
    double *out;
} turn_t;

static double turn(const turn_t *t)
{
    const long ng = (t->v->ndirs + TSGS__LANES - 1) / TSGS__LANES;
    double start = now_s();
    int reps = 0;
    do {
        if (t->probe)
            t->probe(t->v->fs->d, t->v->panel, t->v->phase, t->af, ng, t->X,
                     t->rows, t->out);
        else
            tsgs__eval_sums(t->v, t->X, t->rows, 1, t->out, NULL);
        reps++;
    } while (now_s() - start < 0.2);
    return (double)reps * (double)t->rows * (double)t->v->ndirs /
           (now_s() - start);
}

int main(int argc, char **argv)
{
    int runs = 7;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--runs") == 0)
            runs = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--isa") == 0 &&
                 tsgs__isa_force(atoi(argv[i + 1])) != 0) {
            fprintf(stderr, "--isa %s: not on this CPU\n", argv[i + 1]);
            return 2;
        }
    }
    if (runs < 1)
        runs = 1;
    const tsgs__isa isa = tsgs__isa_now();
    printf("# isa\t%s\n", tsgs__isa_name(isa));
    printf("d\tkernel_evals_per_s\tprobe8_evals_per_s\tprobe12_evals_per_s\t"
           "kernel_over_best_probe\tmax_abs_difference\n");
    static const size_t dims[] = {18, 28};
    const size_t rows = 4096;
    const long ndirs = 2048;
    for (int di = 0; di < 2; di++) {
        const size_t d = dims[di];
        tsgs__fspec fs = {TSGS_KERNEL_RBF, TSGS_FEATURES_COS, 1.0 / (double)d,
                          d, 1, 16, 16, 0, 1};
        float *panel = malloc(sizeof(float) * (size_t)ndirs * d);
        float *phase = malloc(sizeof(float) * (size_t)ndirs);
        double *ac = malloc(sizeof(double) * (size_t)ndirs);
        float *af = malloc(sizeof(float) * (size_t)ndirs);
        float *X = malloc(sizeof(float) * rows * d);
        double *out = malloc(sizeof(double) * rows);
        double *ref = malloc(sizeof(double) * rows);
        double *rate = malloc(sizeof(double) * 3 * (size_t)runs);
        if (!panel || !phase || !ac || !af || !X || !out || !ref || !rate)
            return 1;
        tsgs__pack_directions(&fs, 0, ndirs, panel, phase);
        for (long g = 0; g < ndirs; g++) {
            ac[g] = 1e-3 * (double)(g % 7 + 1);
            af[g] = (float)ac[g];
        }
        for (size_t i = 0; i < rows * d; i++)
            X[i] = (float)((double)(i * 2654435761u % 1000) / 500.0 - 1.0);
        tsgs__fview v = {&fs, ndirs, panel, phase, ac, NULL};
        /* the same sums, to the probe's precision */
        tsgs__eval_sums(&v, X, rows, 1, ref, NULL);
        probe_for(isa, 12)(d, panel, phase, af, ndirs / TSGS__LANES, X, rows,
                           out);
        double diff = 0.0;
        for (size_t i = 0; i < rows; i++)
            diff = fmax(diff, fabs(out[i] - ref[i]));
        turn_t turns[3] = {{&v, NULL, af, X, rows, out},
                           {&v, probe_for(isa, 8), af, X, rows, out},
                           {&v, probe_for(isa, 12), af, X, rows, out}};
        for (int r = 0; r < runs; r++)
            for (int k = 0; k < 3; k++)
                rate[k * runs + r] = turn(&turns[k]);
        double med[3];
        for (int k = 0; k < 3; k++) {
            qsort(rate + k * runs, (size_t)runs, sizeof *rate, cmp_double);
            med[k] = rate[k * runs + runs / 2];
        }
        double best_probe = med[1] > med[2] ? med[1] : med[2];
        printf("%zu\t%.4g\t%.4g\t%.4g\t%.3f\t%.2g\n", d, med[0], med[1],
               med[2], med[0] / best_probe, diff);
        fflush(stdout);
        free(panel);
        free(phase);
        free(ac);
        free(af);
        free(X);
        free(out);
        free(ref);
        free(rate);
    }
    return 0;
}
