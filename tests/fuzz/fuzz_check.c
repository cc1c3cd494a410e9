/* Invariants of the reader's, model loader's and config parser's results. */
#include "fuzz_check.h"

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
    for (size_t i = 0; i < n; i++) {
        const float *x = tsgs_dataset_row(ds, i);
        for (size_t j = 0; j < d; j++)
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
    for (size_t i = 0; i < n; i++) {
        double ya = tsgs_dataset_label(a, i), yb = tsgs_dataset_label(b, i);
        if (tsgs_is_unlabeled(ya) != tsgs_is_unlabeled(yb) ||
            (!tsgs_is_unlabeled(ya) && memcmp(&ya, &yb, sizeof ya) != 0))
            fail("datasets differ in a label");
        if (d && memcmp(tsgs_dataset_row(a, i), tsgs_dataset_row(b, i),
                        d * sizeof(float)) != 0)
            fail("datasets differ in a row");
    }
}
