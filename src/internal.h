/*
 * Internal declarations shared across the library's files (tsgs__ names).
 * Not installed.
 */
#ifndef TSGS_INTERNAL_H
#define TSGS_INTERNAL_H

#include "tsgs3vm.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ error.c */

/* Fills err (if not NULL): code, input file/line (file may be NULL, line 0)
 * and a message prefixed "file:line: " when they are given. Returns code. */
tsgs_status tsgs__fail(tsgs_error *err, tsgs_status code, const char *file,
                       long line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#define TSGS__NOMEM(err) \
    tsgs__fail((err), TSGS_ERR_NOMEM, NULL, 0, "out of memory (%s:%d)", \
               __FILE__, __LINE__)

/* Leaves err as it is when it already holds an error. */
void tsgs__error_clear(tsgs_error *err);

/* ---------------------------------------------------------- dataset.c */

struct tsgs_dataset {
    size_t n;   /* rows */
    size_t d;   /* features per row */
    size_t cap; /* rows allocated */
    float *x;   /* n * d, row-major */
    double *y;  /* n raw labels, NaN = unlabeled */
};

/* Allocates an empty dataset of dimension d with room for cap rows. */
tsgs_status tsgs__dataset_new(size_t d, size_t cap, tsgs_dataset **out,
                              tsgs_error *err);

/* ----------------------------------------------------------- scaler.c */

/* Feature scaling fitted on training rows: x' = (x - shift) * mul. */
typedef struct {
    tsgs_scaling kind;
    size_t d;
    double *shift; /* d */
    double *mul;   /* d */
} tsgs__scaler;

tsgs_status tsgs__scaler_fit(const tsgs_dataset *ds, tsgs_scaling kind,
                             tsgs__scaler *out, tsgs_error *err);
void tsgs__scaler_clear(tsgs__scaler *s);
/* Writes the scaled copy of a d-float row (padding with 0 when the row is
 * narrower than the scaler, i.e. d_row < s->d). kind NONE copies. */
void tsgs__scaler_apply(const tsgs__scaler *s, const float *row,
                        size_t d_row, float *out);

/* --------------------------------------------------------- affinity.c */

/* Number of threads to run: `requested` if > 0, else OMP_NUM_THREADS if it
 * is set, else one per core of the machine. */
int tsgs__threads_resolve(int requested);

/* Binds the threads of an OpenMP team of `threads` threads according to
 * policy (AUTO: NONE when OMP_PROC_BIND is set, else COMPACT). Where binding
 * is unsupported, calls warn(message, user) and carries on. */
void tsgs__bind_threads(int threads, tsgs_bind policy,
                        void (*warn)(const char *, void *), void *user);

#endif /* TSGS_INTERNAL_H */
