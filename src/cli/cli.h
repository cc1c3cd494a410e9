/* The command-line tool: shared option handling for its subcommands. The
 * tool, not the library, prints and exits. */
#ifndef TSGS_CLI_H
#define TSGS_CLI_H

#include "tsgs3vm.h"

typedef struct {
    tsgs_params params;
    tsgs_read_options read;
    long labeled;               /* --labeled N: keep N labels; 0: all */
    const char *unlabeled_file; /* --unlabeled FILE */
    const char *test_file;      /* --test FILE */
    long test_every;            /* iterations between test accuracies */
    int quiet;
    int help;
    const char *positional[4];
    int npositional;
} cli_opts;

void cli_opts_init(cli_opts *o);

/* Applies -c FILE first, then every option of argv (argv[0] is the
 * subcommand): command line > config file > environment > defaults.
 * Returns 0 on success; prints "ERROR: ..." and returns 1 otherwise. */
int cli_parse(cli_opts *o, int argc, char **argv, const char *const *allowed);

/* Reads a data file with the read options; prints errors. */
int cli_read(const cli_opts *o, const char *path, tsgs_dataset **out);

void cli_error(const tsgs_error *err);
void cli_print_param_help(const tsgs_params *p);
void cli_print_read_help(void);

int cmd_train(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_topology(int argc, char **argv);

#endif
