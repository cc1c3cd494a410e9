/* Timing spans for the thread-scaling benchmarks (issue #33): where a run
 * spends its time and on which thread, to see what keeps a team of 16
 * waiting. Compiled in only with -DTSGS_TRACE (make B=build-trace
 * CFLAGS="-O2 -g -DTSGS_TRACE"); otherwise every macro is empty and the
 * library is unchanged. The library only records; the tool writes the
 * spans out (cli/main.c, TSGS3VM_TRACE=FILE). */
#ifndef TSGS_TRACE_H
#define TSGS_TRACE_H

#include <stdio.h>

#ifdef TSGS_TRACE
/* Seconds on a monotonic clock. */
double tsgs__trace_now(void);
/* A span named `what` (a string literal), item `index`, from t0 to now on
 * the calling thread. */
void tsgs__trace_span(const char *what, long index, double t0);
/* Adds now - t0 to the running total named `what` (per-step parts). */
void tsgs__trace_add(const char *what, double t0);
/* Every span and total as TSV: what, index, thread, start, end (seconds
 * from the first span), then the totals. */
void tsgs__trace_write(FILE *f);
#define TSGS_TRACE_START(v) const double v = tsgs__trace_now()
#define TSGS_TRACE_SPAN(what, index, t0) tsgs__trace_span(what, index, t0)
#define TSGS_TRACE_ADD(what, t0) tsgs__trace_add(what, t0)
#else
#define TSGS_TRACE_START(v) ((void)0)
#define TSGS_TRACE_SPAN(what, index, t0) ((void)0)
#define TSGS_TRACE_ADD(what, t0) ((void)0)
#endif

#endif
