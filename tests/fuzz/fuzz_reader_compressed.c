/* The data reader on whole files as they come, the format and the
 * compression (gzip, xz, bzip2 or none) detected from the bytes: mutated
 * archives from the seed corpus reach the decompressors' error paths. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_check.h"
#include "fuzz_file.h"
#include "tsgs3vm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file_write(data, size);
    tsgs_dataset *ds;
    tsgs_error err;
    if (fuzz_read_checked(path, NULL, &ds, &err) == TSGS_OK)
        tsgs_dataset_free(ds);
    return 0;
}
