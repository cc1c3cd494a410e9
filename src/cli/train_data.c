/* The training rows of train and cv: the training file, --unlabeled
 * FILE's rows and --labeled N, read and applied the same way for both. */
#include "cli.h"

int cli_read_training(const cli_opts *o, const char *path, int shares,
                      tsgs_dataset **out)
{
    tsgs_dataset *train = NULL, *extra = NULL;
    tsgs_error err;
    const int in_shares = shares ? cli_world_read(o, path, &train) : -1;
    if (in_shares > 0 || (in_shares < 0 && cli_read(o, path, &train)) ||
        cli_check_labels(o, path, train))
        goto fail;
    if (o->unlabeled_file) {
        if (cli_read(o, o->unlabeled_file, &extra))
            goto fail;
        if (tsgs_dataset_append_unlabeled(train, extra, &err)) {
            cli_error(&err);
            goto fail;
        }
        tsgs_dataset_free(extra);
        extra = NULL;
    }
    if (o->labeled > 0 &&
        tsgs_dataset_keep_labels(train, (size_t)o->labeled, o->params.seed,
                                 &err)) {
        cli_error(&err);
        goto fail;
    }
    *out = train;
    return 0;
fail:
    tsgs_dataset_free(extra);
    tsgs_dataset_free(train);
    return 1;
}
