/* Timing spans for the thread-scaling benchmarks (trace.h): a fixed
 * buffer filled without locks (one atomic counter), so recording costs
 * little beside the work it times; spans past its end are dropped and
 * counted. */
#include "common/trace.h"

#include "common/common.h"

#ifdef TSGS_TRACE
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define MAX_SPANS (1 << 16)
#define MAX_TOTALS 32

typedef struct {
    const char *what;
    long index;
    int thread;
    double t0, t1;
} span;

static span spans[MAX_SPANS];
static long nspans, dropped;
static struct {
    const char *what;
    double s;
    long n;
} totals[MAX_TOTALS];

double tsgs__trace_now(void) { return tsgs__now_s(); }

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

void tsgs__trace_span(const char *what, long index, double t0)
{
    const double t1 = tsgs__trace_now();
    long at;
#pragma omp atomic capture
    at = nspans++;
    if (at >= MAX_SPANS) {
#pragma omp atomic update
        dropped++;
        return;
    }
    spans[at] = (span){what, index, thread_id(), t0, t1};
}

void tsgs__trace_add(const char *what, double t0)
{
    const double dt = tsgs__trace_now() - t0;
#pragma omp critical(tsgs_trace_totals)
    for (int i = 0; i < MAX_TOTALS; i++)
        if (!totals[i].what || strcmp(totals[i].what, what) == 0) {
            totals[i].what = what;
            totals[i].s += dt;
            totals[i].n++;
            break;
        }
}

void tsgs__trace_write(FILE *f)
{
    long n = nspans < MAX_SPANS ? nspans : MAX_SPANS;
    double base = n ? spans[0].t0 : 0.0;
    for (long i = 0; i < n; i++)
        if (spans[i].t0 < base)
            base = spans[i].t0;
    fprintf(f, "# span\twhat\tindex\tthread\tstart_s\tend_s\n");
    for (long i = 0; i < n; i++)
        fprintf(f, "span\t%s\t%ld\t%d\t%.6f\t%.6f\n", spans[i].what,
                spans[i].index, spans[i].thread, spans[i].t0 - base,
                spans[i].t1 - base);
    fprintf(f, "# total\twhat\tcount\tseconds\n");
    for (int i = 0; i < MAX_TOTALS && totals[i].what; i++)
        fprintf(f, "total\t%s\t%ld\t%.6f\n", totals[i].what, totals[i].n,
                totals[i].s);
    if (dropped)
        fprintf(f, "# dropped\t%ld\n", dropped);
}
#else
typedef int tsgs__trace_unused; /* ISO C: a translation unit declares something */
#endif
