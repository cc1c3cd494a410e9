/* Links against the shared library alone (make test runs it): the public
 * calls resolve, internal tsgs__ names are not exported, and the runtime
 * version is the header's. Usage: so_check PATH_TO_LIBTSGS3VM_SO */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "tsgs3vm.h"

int main(int argc, char **argv)
{
    int bad = 0;
    if (strcmp(tsgs_version(), TSGS_VERSION_STRING) != 0) {
        fprintf(stderr, "so_check: runtime version %s, header %s\n",
                tsgs_version(), TSGS_VERSION_STRING);
        bad = 1;
    }
    tsgs_params p = tsgs_params_default();
    tsgs_error err;
    if (tsgs_params_check(&p, &err) != TSGS_OK) {
        fprintf(stderr, "so_check: default params refused: %s\n", err.message);
        bad = 1;
    }
    /* The heap copy bindings use holds the same defaults. */
    tsgs_params *hp = tsgs_params_new();
    if (!hp || memcmp(hp, &p, sizeof p) != 0) {
        fprintf(stderr, "so_check: tsgs_params_new differs from the defaults\n");
        bad = 1;
    }
    tsgs_params_free(hp);
    if (argc > 1) {
        void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            fprintf(stderr, "so_check: dlopen %s: %s\n", argv[1], dlerror());
            return 1;
        }
        if (!dlsym(h, "tsgs_train") || !dlsym(h, "tsgs_predict_scores") ||
            !dlsym(h, "tsgs_dataset_from_csr")) {
            fprintf(stderr, "so_check: a public call is not exported\n");
            bad = 1;
        }
        if (dlsym(h, "tsgs__philox") || dlsym(h, "tsgs__warm_start")) {
            fprintf(stderr, "so_check: internal names are exported\n");
            bad = 1;
        }
        dlclose(h);
    }
    if (!bad)
        printf("so_check: libtsgs3vm %s exports the public API only\n",
               tsgs_version());
    return bad;
}
