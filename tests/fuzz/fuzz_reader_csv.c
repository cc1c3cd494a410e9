/* The data reader on CSV text. The first byte chooses the CSV options
 * (label column, skipped leading columns, header), the rest is the file. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_check.h"
#include "fuzz_file.h"
#include "tsgs3vm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const int label_columns[4] = {1, -1, 0, 2};
    unsigned opts = data[0];
    tsgs_read_options o = tsgs_read_options_default();
    o.format = TSGS_FORMAT_CSV;
    o.label_column = label_columns[opts & 3];
    o.skip_columns = (opts >> 2) & 1;
    o.header = (int)((opts >> 3) % 3) - 1; /* detect, none, one */
    o.has_unlabeled_label = (opts >> 5) & 1;
    o.unlabeled_label = -1.0;
    const char *path = fuzz_file_write(data + 1, size - 1);
    tsgs_dataset *ds;
    tsgs_error err;
    if (fuzz_read_checked(path, &o, &ds, &err) == TSGS_OK)
        tsgs_dataset_free(ds);
    return 0;
}
