/* The data reader on LIBSVM / SVMlight text: any bytes read as a LIBSVM
 * file, with SVMlight's transductive label 0 meaning unlabeled. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_check.h"
#include "fuzz_file.h"
#include "tsgs3vm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file_write(data, size);
    tsgs_read_options o = tsgs_read_options_default();
    o.format = TSGS_FORMAT_LIBSVM;
    o.has_unlabeled_label = 1;
    o.unlabeled_label = 0.0;
    tsgs_dataset *ds;
    tsgs_error err;
    if (fuzz_read_checked(path, &o, &ds, &err) == TSGS_OK)
        tsgs_dataset_free(ds);
    return 0;
}
