/* The config parser on any bytes, each "key = value" line given to
 * tsgs_params_set as the tool does; the parameters it accepts are then
 * checked as a whole. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_file.h"
#include "tsgs3vm.h"

static tsgs_status set_param(const char *key, const char *value, void *user,
                             tsgs_error *err)
{
    if (!*key || !*value)
        abort(); /* the parser promises neither is empty */
    return tsgs_params_set(user, key, value, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file_write(data, size);
    tsgs_params p = tsgs_params_default();
    tsgs_error err;
    tsgs_status st = tsgs_config_read(path, set_param, &p, &err);
    if (st != TSGS_OK) {
        fuzz_check_failure(st, &err, path);
        if (err.line < 1)
            abort(); /* a parse error names its line */
        return 0;
    }
    (void)tsgs_params_check(&p, &err);
    return 0;
}
