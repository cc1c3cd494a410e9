/* The command-line tool: shared option handling for its subcommands. The
 * tool, not the library, prints and exits. */
#ifndef TSGS_CLI_H
#define TSGS_CLI_H

#include <signal.h>
#include <stdio.h>

#include "tsgs3vm.h"

/* --max-time's default: a run whose directions alone are estimated to
 * take longer (a CSV of 1,000,000 columns: about 7 minutes on two cores,
 * whatever its rows) is refused unless asked for. */
#define CLI_MAX_TIME_DEFAULT 300

typedef struct {
    tsgs_params params;
    tsgs_read_options read;
    long labeled;               /* --labeled N: keep N labels; 0: all */
    char *unlabeled_file;       /* --unlabeled FILE (owned) */
    char *test_file;            /* --test FILE (owned) */
    char *checkpoint_file;      /* --checkpoint FILE (owned) */
    char *resume_file;          /* --resume FILE (owned) */
    double checkpoint_every;    /* --checkpoint-every SECONDS (60) */
    long checkpoint_steps;      /* --checkpoint-steps N (0: by time) */
    long test_every;            /* iterations between test accuracies */
    char *topology_xml;         /* topology --xml FILE (owned) */
    char *topology_synthetic;   /* topology --synthetic DESCRIPTION (owned) */
    const char *legacy_c_file;  /* a config file whose "c" (C x labeled
                                   rows: c-total) was read; argv's */
    int cv_folds;               /* train -v K: svm-train's CV; 0: none */
    int libsvm_gamma;           /* -g given: gamma on the user's features */
    int scale_given;            /* --scale (or the config's scale) given */
    int probability_out;        /* predict -b 1: write probabilities */
    int decision_values;        /* predict --decision-values: write them */
    double max_memory;          /* --max-memory bytes; -1 auto; 0 none */
    double max_time;            /* --max-time seconds of the estimate
                                   (tsgs_train_seconds); 0 none */
    unsigned read_given;        /* CLI_GAVE_ bits: data options the user
                                   gave (command line or config file) */
    int quiet;
    int help;
    const char *positional[4];
    int npositional;
} cli_opts;

/* Data options a model's layout may fill, as bits of cli_opts.read_given
 * when the user gave them. */
enum {
    CLI_GAVE_LABEL_COLUMN = 1,
    CLI_GAVE_SKIP_COLUMNS = 2,
    CLI_GAVE_UNLABELED_LABEL = 4
};

void cli_opts_init(cli_opts *o);
/* Frees the strings the options own (file names from argv or --config). */
void cli_opts_free(cli_opts *o);

/* Applies --config FILE first, then every option of argv (argv[0] is the
 * subcommand): command line > config file > environment > defaults.
 * Returns 0 on success; prints "ERROR: ..." and returns 1 otherwise. */
int cli_parse(cli_opts *o, int argc, char **argv, const char *const *allowed);

/* The training file's labels before any work (label_check.c): a label
 * column holding a feature (more distinct values than classes could be)
 * is refused with the fix in the message; -1 / 0 / +1 without
 * --unlabeled-label gets a warning naming SVMlight's convention, and a
 * class weight (-wi) for a label no labeled row has a warning. Returns
 * 0, or 1 after printing "ERROR: ...". */
int cli_check_labels(const cli_opts *o, const char *path,
                     const tsgs_dataset *ds);

/* The number of folds of --folds K or -v K (flag names it in the error):
 * 2..1000. Returns 0, or 1 after printing "ERROR: ...". */
int cli_parse_folds(const char *flag, const char *value, int *folds);

/* path, or for "-" standard input (output 0) / standard output (1). */
const char *cli_path(const char *path, int output);

/* The read options of o, its --threads included, and the stop that
 * cli_catch_stops keeps. */
tsgs_read_options cli_read_options(const cli_opts *o);

/* SIGINT and SIGTERM (stop_signal.c). With exit_now, the handler writes
 * it to stderr and ends the process with 128 + the signal; with NULL it
 * sets cli_stop_signal, which cli_should_stop (a library stop hook)
 * reports. A second signal ends the process. Called again, it changes
 * the mode. */
extern volatile sig_atomic_t cli_stop_signal;
void cli_catch_stops(const char *exit_now);

/* The MPI job the tool may be part of (world.c, docs/mpi.md): joined by
 * cli_world_begin when a launcher (mpirun) started the tool and the build
 * has MPI; otherwise one process, rank 0 of 1. cli_world_end returns rc,
 * after ending the whole job when rc is not 0 on a job of several
 * processes (the caller printed why). cli_world_train: tsgs_train, over
 * the job when there is one (tsgs_train_mpi). */
void cli_world_begin(int *argc, char ***argv);
int cli_world_end(int rc);
int cli_world_rank(void);
int cli_world_size(void);
tsgs_status cli_world_train(const tsgs_dataset *ds, const tsgs_params *p,
                            const tsgs_train_hooks *hooks,
                            const tsgs_checkpoint *ck, tsgs_model **out,
                            int *stopped, tsgs_error *err);
int cli_should_stop(void *user);

/* Reads a data file ("-": standard input) with the read options; prints
 * errors. */
int cli_read(const cli_opts *o, const char *path, tsgs_dataset **out);

void cli_error(const tsgs_error *err);

/* The rows train and cv fit (train_data.c): path's, its labels checked
 * (cli_check_labels), then --unlabeled FILE's rows appended, unlabeled,
 * and the labels of --labeled N rows kept (the rest hidden, by --seed).
 * Returns 0, or 1 after printing an error (*out untouched). */
int cli_read_training(const cli_opts *o, const char *path, int shares,
                      tsgs_dataset **out);
/* shares (train): in an MPI job, each process reads its share of path
 * (cli_world_read), where the training carries it. */
/* The training file read in shares over the MPI job (world.c, docs/mpi.md:
 * tsgs_dataset_read_mpi) when the tool is in one and o's training carries
 * it (solver tsg on two classes, no --unlabeled FILE, a file, scale auto,
 * zscore, minmax or none, no probabilities; TSGS3VM_MPI_READ=whole: never).
 * Returns 0, 1 after printing an error, or -1: read it as one process. */
int cli_world_read(const cli_opts *o, const char *path, tsgs_dataset **out);

/* Prints an error and returns 1 when training ds (read from path) with p
 * needs more memory (tsgs_train_memory's estimate) than --max-memory
 * allows; auto: what the process can still allocate
 * (tsgs_memory_available: RLIMIT_AS, cgroup, available memory). */
int cli_check_memory(const cli_opts *o, const char *path,
                     const tsgs_dataset *ds, const tsgs_params *p);
/* --max-time: 1 (an error printed) when the training of ds (read from
 * path) with p is estimated (tsgs_train_seconds) to take longer than
 * --max-time seconds; 0 when it may start. */
int cli_check_time(const cli_opts *o, const char *path,
                   const tsgs_dataset *ds, const tsgs_params *p);
/* Prints a training error on ds (read from path): an out-of-memory one
 * or a data one without a file named with path (and, out of memory, ds's
 * shape and what the process can still allocate), others as they are. */
void cli_training_error(const char *path, const tsgs_dataset *ds,
                        const tsgs_error *err);
/* Prints an error and returns 1 when ds's rows are sparse and as dense
 * floats (a .npy has no sparse form) take more than --max-memory allows
 * (auto: what the process can still allocate). */
int cli_check_dense_size(const cli_opts *o, const char *path,
                         const tsgs_dataset *ds);
/* The model's recorded layout (its training file's: tsgs_model_layout)
 * in o's read options the user did not give, for reading path: the label
 * and skipped columns when path is of the training file's kind (a CSV,
 * or a .npy: a converted file has other columns), the unlabeled label.
 * The format and the header stay detected, as they were. `what` gets the
 * options taken in words, for a note after a read error ("" when none
 * was). */
void cli_apply_layout(cli_opts *o, const tsgs_data_layout *model,
                      const char *path, char *what, size_t size);
/* A CSV or .npy file (ds: a block of it) whose rows hold fewer features
 * than the model's d_model (they would be padded with zeros): prints an
 * error naming the file, both widths and the options to check, and
 * returns 1; 0 otherwise (LIBSVM rows may stop short: they are sparse).
 * model: the model's layout, for the message. */
int cli_check_narrow(const char *path, const tsgs_dataset *ds,
                     size_t d_model, const tsgs_data_layout *model);
/* A test file with more features than the model: drops the extra ones
 * with a warning naming the file and the count (LIBSVM ignores feature
 * indices a model never saw). Returns nonzero on error (printed). */
int cli_drop_unseen(const char *path, tsgs_dataset *ds, size_t d_model);
/* Its warning: d features in the file, `dropped` nonzero values beyond
 * the model's d_model. */
void cli_warn_unseen(const char *path, size_t d_model, size_t d,
                     size_t dropped);

/* Counts the labeled rows of ds (*n_labeled), those whose label is none
 * of the model's classes (*n_foreign, e.g. 0/1 against -1/+1), and returns
 * how many of them the scores (n x tsgs_model_score_columns) get right. */
size_t cli_count_correct(const tsgs_model *m, const tsgs_dataset *ds,
                         const double *scores, size_t *n_labeled,
                         size_t *n_foreign);

/* Prints the accuracy line "<what> = XX.XX% (k/n)" on `to`, after a
 * warning on stderr (unless quiet) when labels are not the model's; what
 * "Accuracy" (predict's) is svm-predict's line to the byte,
 * "Accuracy = %g% (k/n) (classification)". */
void cli_print_accuracy(FILE *to, const char *what, const char *path,
                        const tsgs_model *m, const tsgs_dataset *ds,
                        const double *scores, int quiet);

/* The counts behind an accuracy line, summed block by block: labeled
 * rows, those the scores get right, those whose label is none of the
 * model's. */
typedef struct {
    size_t labeled, right, foreign;
} cli_tally;
void cli_tally_add(cli_tally *t, const tsgs_model *m, const tsgs_dataset *ds,
                   const double *scores);
/* cli_print_accuracy's line (and warning) from counts. */
void cli_print_tally(FILE *to, const char *what, const char *path,
                     const tsgs_model *m, const cli_tally *t, int quiet);

/* 1 if path names something that exists and is not a regular file (a
 * device, a pipe, /dev/stdout...), which must not be replaced by rename. */
int cli_is_special(const char *path);

/* Gives a file made by mkstemp (mode 0600) the mode a plain fopen would
 * have given it: 0666 less the umask. */
void cli_default_mode(const char *path);
void cli_print_param_help(const tsgs_params *p);
/* unlabeled_label: list --unlabeled-label (commands that take it). */
void cli_print_read_help(int unlabeled_label);

int cmd_train(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_topology(int argc, char **argv);
int cmd_synth(int argc, char **argv);
int cmd_cv(int argc, char **argv);
int cmd_convert(int argc, char **argv);

/* Wall seconds on a monotonic clock (clock.c). */
double cli_wall_s(void);

#endif
