/* tsgs3vm: the command-line tool. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "tsgs3vm %s: semi-supervised kernel SVM by triply stochastic "
            "gradients\n\n"
            "Usage:\n"
            "  tsgs3vm train [options] TRAIN_FILE MODEL_FILE\n"
            "  tsgs3vm predict [options] MODEL_FILE TEST_FILE [OUTPUT_FILE]\n"
            "  tsgs3vm cv [options] --grid KEY=VALUES ... TRAIN_FILE\n"
            "  tsgs3vm synth [options] SAMPLE_FILE OUTPUT_FILE  (synthetic data)\n"
            "  tsgs3vm convert [options] IN OUT.npy  (read once, map later)\n"
            "  tsgs3vm topology [options]\n\n"
            "Each command takes --help.\n",
            TSGS_VERSION_STRING);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 1;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "train") == 0)
        return cmd_train(argc - 1, argv + 1);
    if (strcmp(cmd, "predict") == 0)
        return cmd_predict(argc - 1, argv + 1);
    if (strcmp(cmd, "topology") == 0)
        return cmd_topology(argc - 1, argv + 1);
    if (strcmp(cmd, "cv") == 0)
        return cmd_cv(argc - 1, argv + 1);
    if (strcmp(cmd, "synth") == 0)
        return cmd_synth(argc - 1, argv + 1);
    if (strcmp(cmd, "convert") == 0)
        return cmd_convert(argc - 1, argv + 1);
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("tsgs3vm %s\n", TSGS_VERSION_STRING);
        return 0;
    }
    fprintf(stderr, "ERROR: unknown command \"%s\"\n", cmd);
    usage(stderr);
    return 1;
}
