/* What every result of the file-reading API must satisfy, whatever the
 * input: the properties the fuzz targets assert beyond "no crash". A
 * violation aborts, so libFuzzer keeps the input as a finding. */
#ifndef TSGS_FUZZ_CHECK_H
#define TSGS_FUZZ_CHECK_H

#include "tsgs3vm.h"

/* A failed call: the status is an error, recorded in err with a message,
 * and err names the input file (the library's rule for every error). */
void fuzz_check_failure(tsgs_status st, const tsgs_error *err,
                        const char *path);

/* A dataset the reader returned: at least one row; finite features;
 * labels finite or unlabeled; the labeled count matches the labels. */
void fuzz_check_dataset(const tsgs_dataset *ds);

/* tsgs_dataset_read(path, o) with the checks above: on failure nothing
 * written to *ds and fuzz_check_failure; on success fuzz_check_dataset.
 * Returns the status (the caller frees *ds on success). */
tsgs_status fuzz_read_checked(const char *path, const tsgs_read_options *o,
                              tsgs_dataset **ds, tsgs_error *err);

/* Two datasets with the same rows, features and labels, bit for bit. */
void fuzz_check_same_dataset(const tsgs_dataset *a, const tsgs_dataset *b);

#endif
