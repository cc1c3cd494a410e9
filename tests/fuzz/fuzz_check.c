/* Invariants of the reader's, model loader's and config parser's results. */
#include "fuzz_check.h"

#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_check: %s\n", what);
    abort();
}

void fuzz_check_failure(tsgs_status st, const tsgs_error *err,
                        const char *path)
{
    if (st == TSGS_OK)
        fail("fuzz_check_failure called on success");
    if (err->code != st)
        fail("error code differs from the status returned");
    if (memchr(err->message, '\0', sizeof err->message) == NULL ||
        err->message[0] == '\0')
        fail("error message empty or not terminated");
    if (strcmp(err->file, path) != 0) {
        fprintf(stderr, "fuzz_check: error names file \"%s\", not \"%s\": %s\n",
                err->file, path, err->message);
        abort();
    }
}

tsgs_status fuzz_read_checked(const char *path, const tsgs_read_options *o,
                              tsgs_dataset **ds, tsgs_error *err)
{
    *ds = NULL;
    tsgs_status st = tsgs_dataset_read(path, o, ds, err);
    if (st != TSGS_OK) {
        if (*ds)
            fail("output written on failure");
        fuzz_check_failure(st, err, path);
    } else {
        fuzz_check_dataset(*ds);
    }
    return st;
}

void fuzz_check_dataset(const tsgs_dataset *ds)
{
    size_t n = tsgs_dataset_rows(ds), d = tsgs_dataset_features(ds);
    size_t labeled = 0;
    if (n == 0)
        fail("a dataset without rows was returned as a success");
    if (tsgs__sparse(ds)) { /* CSR: columns ascending below d, finite */
        if (ds->ptr[0] != 0 || ds->ptr[n] != tsgs_dataset_nonzeros(ds))
            fail("sparse row pointers do not span the non-zeros");
        for (size_t i = 0; i < n; i++) {
            if (ds->ptr[i + 1] < ds->ptr[i])
                fail("sparse row pointers decrease");
            for (size_t j = ds->ptr[i]; j < ds->ptr[i + 1]; j++) {
                if (ds->col[j] >= d ||
                    (j > ds->ptr[i] && ds->col[j] <= ds->col[j - 1]))
                    fail("sparse columns out of range or not ascending");
                if (!isfinite(ds->val[j]))
                    fail("a feature value is not finite");
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        const float *x = tsgs_dataset_row(ds, i);
        if (!x != !!tsgs__sparse(ds))
            fail("tsgs_dataset_row is NULL exactly for sparse rows");
        for (size_t j = 0; x && j < d; j++)
            if (!isfinite(x[j]))
                fail("a feature value is not finite");
        double y = tsgs_dataset_label(ds, i);
        if (tsgs_is_unlabeled(y))
            continue;
        if (!isfinite(y))
            fail("a label is infinite");
        labeled++;
    }
    if (labeled != tsgs_dataset_labeled_count(ds))
        fail("tsgs_dataset_labeled_count differs from the labels");
}

void fuzz_check_same_dataset(const tsgs_dataset *a, const tsgs_dataset *b)
{
    size_t n = tsgs_dataset_rows(a), d = tsgs_dataset_features(a);
    if (tsgs_dataset_rows(b) != n || tsgs_dataset_features(b) != d)
        fail("datasets differ in shape");
    /* the same rows are stored the same way (the choice depends on them) */
    if (tsgs__sparse(a) != tsgs__sparse(b))
        fail("datasets differ in storage");
    if (tsgs__sparse(a) &&
        (memcmp(a->ptr, b->ptr, sizeof(size_t) * (n + 1)) != 0 ||
         memcmp(a->col, b->col, sizeof(uint32_t) * a->ptr[n]) != 0 ||
         memcmp(a->val, b->val, sizeof(float) * a->ptr[n]) != 0))
        fail("datasets differ in a sparse row");
    for (size_t i = 0; i < n; i++) {
        double ya = tsgs_dataset_label(a, i), yb = tsgs_dataset_label(b, i);
        if (tsgs_is_unlabeled(ya) != tsgs_is_unlabeled(yb) ||
            (!tsgs_is_unlabeled(ya) && memcmp(&ya, &yb, sizeof ya) != 0))
            fail("datasets differ in a label");
        if (d && !tsgs__sparse(a) &&
            memcmp(tsgs_dataset_row(a, i), tsgs_dataset_row(b, i),
                   d * sizeof(float)) != 0)
            fail("datasets differ in a row");
    }
}
