/* Options: long flags named like the config keys, "--key value" or
 * "--key=value"; --config FILE reads a config file first; svm-train's
 * short options where they mean the same thing (-c cost, -g gamma, -t 2,
 * -s 0, -b 0, -q), a clear error naming the long option where not; "-"
 * for standard input / output. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void cli_opts_init(cli_opts *o)
{
    memset(o, 0, sizeof *o);
    o->params = tsgs_params_default();
    o->read = tsgs_read_options_default();
    o->max_memory = -1.0; /* auto */
    o->max_time = CLI_MAX_TIME_DEFAULT;
    o->checkpoint_every = 60.0;
}

void cli_opts_free(cli_opts *o)
{
    free(o->unlabeled_file);
    free(o->test_file);
    free(o->topology_xml);
    free(o->topology_synthetic);
    free(o->checkpoint_file);
    free(o->resume_file);
    o->checkpoint_file = o->resume_file = NULL;
    o->unlabeled_file = o->test_file = NULL;
    o->topology_xml = o->topology_synthetic = NULL;
}

void cli_error(const tsgs_error *err)
{
    fprintf(stderr, "ERROR: %s\n", err->message);
}

void cli_default_mode(const char *path)
{
    mode_t mask = umask(0);
    umask(mask);
    chmod(path, 0666 & ~mask);
}

/* Whether y is one of the k labels. */
static int known_label(const double *labels, size_t k, double y)
{
    for (size_t c = 0; c < k; c++)
        if (labels[c] == y)
            return 1;
    return 0;
}

size_t cli_count_correct(const tsgs_model *m, const tsgs_dataset *ds,
                         const double *scores, size_t *n_labeled,
                         size_t *n_foreign)
{
    cli_tally t = {0, 0, 0};
    cli_tally_add(&t, m, ds, scores);
    *n_labeled = t.labeled;
    if (n_foreign)
        *n_foreign = t.foreign;
    return t.right;
}

void cli_tally_add(cli_tally *t, const tsgs_model *m, const tsgs_dataset *ds,
                   const double *scores)
{
    const size_t k = tsgs_model_score_columns(m);
    /* the model's labels, once; out of memory: none counted as foreign */
    const size_t nc = tsgs_model_classes(m, NULL);
    double *labels = malloc(sizeof(double) * nc);
    if (labels)
        tsgs_model_classes(m, labels);
    for (size_t i = 0; i < tsgs_dataset_rows(ds); i++) {
        double y = tsgs_dataset_label(ds, i);
        if (tsgs_is_unlabeled(y))
            continue;
        t->labeled++;
        t->foreign += labels && !known_label(labels, nc, y);
        t->right += tsgs_model_label_of(m, scores + i * k) == y;
    }
    free(labels);
}

void cli_print_accuracy(FILE *to, const char *what, const char *path,
                        const tsgs_model *m, const tsgs_dataset *ds,
                        const double *scores, int quiet)
{
    cli_tally t = {0, 0, 0};
    cli_tally_add(&t, m, ds, scores);
    cli_print_tally(to, what, path, m, &t, quiet);
}

void cli_print_tally(FILE *to, const char *what, const char *path,
                     const tsgs_model *m, const cli_tally *t, int quiet)
{
    const size_t n = t->labeled;
    if (n == 0)
        return;
    if (t->foreign && !quiet) {
        if (tsgs_model_classes(m, NULL) == 2)
            fprintf(stderr, "warning: %s: %zu of %zu labeled rows have a "
                            "label other than the model's %g and %g; they "
                            "count as wrong\n",
                    path, t->foreign, n, tsgs_model_label(m, -1.0),
                    tsgs_model_label(m, 1.0));
        else
            fprintf(stderr, "warning: %s: %zu of %zu labeled rows have a "
                            "label that is none of the model's %zu classes; "
                            "they count as wrong\n",
                    path, t->foreign, n, tsgs_model_classes(m, NULL));
    }
    /* predict's line is svm-predict's, to the byte (scripts parse it) */
    if (strcmp(what, "Accuracy") == 0)
        fprintf(to, "Accuracy = %g%% (%zu/%zu) (classification)\n",
                (double)t->right / (double)n * 100, t->right, n);
    else
        fprintf(to, "%s = %.2f%% (%zu/%zu)\n", what,
                100.0 * (double)t->right / (double)n, t->right, n);
}

int cli_is_special(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* Replaces an owned string option with a copy of value. */
static tsgs_status set_string(char **slot, const char *value, tsgs_error *err)
{
    char *copy = strdup(value);
    if (!copy) {
        snprintf(err->message, sizeof err->message, "out of memory");
        err->code = TSGS_ERR_NOMEM;
        return TSGS_ERR_NOMEM;
    }
    free(*slot);
    *slot = copy;
    return TSGS_OK;
}

static int parse_long(const char *v, long min, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end != '\0' || errno || x < min)
        return -1;
    *out = x;
    return 0;
}

/* --max-memory's value: "auto" (-1), 0 (no limit), or a size in bytes
 * with an optional K, M, G or T suffix (powers of 1024; "GB", "GiB" too).
 * Returns nonzero when it is none of these. */
static int parse_size(const char *text, double *bytes)
{
    if (strcmp(text, "auto") == 0) {
        *bytes = -1.0;
        return 0;
    }
    char *end;
    double v = strtod(text, &end);
    if (end == text || !(v >= 0.0) || v > 1e18)
        return 1;
    static const char units[] = "KMGT";
    double scale = 1.0;
    if (*end) {
        const char *u = strchr(units, *end);
        if (!u || !*u || (end[1] && strcmp(end + 1, "B") != 0 &&
                          strcmp(end + 1, "iB") != 0))
            return 1;
        for (const char *k = units; k <= u; k++)
            scale *= 1024.0;
    }
    *bytes = v * scale;
    return 0;
}

/* A key's value refused: what the key expected (why), as the message. */
static tsgs_status expected(const char *key, const char *value,
                            const char *why, tsgs_error *err)
{
    snprintf(err->message, sizeof err->message, "%s = \"%s\": expected %s",
             key, value, why);
    err->code = TSGS_ERR_PARAM;
    return TSGS_ERR_PARAM;
}

/* train's checkpoint options (--checkpoint, --checkpoint-every,
 * --checkpoint-steps, --resume); any other key is a param's. */
static tsgs_status set_checkpoint_key(cli_opts *o, const char *key,
                                      const char *value, tsgs_error *err)
{
    const char *why = NULL;
    char *end;
    if (strcmp(key, "checkpoint") == 0)
        return set_string(&o->checkpoint_file, value, err);
    if (strcmp(key, "resume") == 0)
        return set_string(&o->resume_file, value, err);
    if (strcmp(key, "checkpoint-every") == 0) {
        const double s = strtod(value, &end);
        if (end != value && !*end && s >= 0.0 && s <= 1e9)
            o->checkpoint_every = s;
        else
            why = "seconds >= 0 (0: not by time)";
    } else if (strcmp(key, "checkpoint-steps") == 0) {
        long v;
        if (parse_long(value, 0, &v) == 0)
            o->checkpoint_steps = v;
        else
            why = "a number of steps >= 0 (0: not by steps)";
    } else {
        return tsgs_params_set(&o->params, key, value, err);
    }
    return why ? expected(key, value, why, err) : TSGS_OK;
}

/* Keys of the tool itself (data and run options); the rest are params. */
static tsgs_status set_key(const char *key, const char *value, void *user,
                           tsgs_error *err)
{
    cli_opts *o = user;
    long v;
    const char *why = NULL;
    if (strcmp(key, "scale") == 0)
        o->scale_given = 1;
    if (strcmp(key, "format") == 0) {
        if (strcmp(value, "auto") == 0) o->read.format = TSGS_FORMAT_AUTO;
        else if (strcmp(value, "libsvm") == 0) o->read.format = TSGS_FORMAT_LIBSVM;
        else if (strcmp(value, "csv") == 0) o->read.format = TSGS_FORMAT_CSV;
        else why = "one of auto, libsvm, csv";
    } else if (strcmp(key, "label-column") == 0) {
        o->read_given |= CLI_GAVE_LABEL_COLUMN;
        if (strcmp(value, "last") == 0) o->read.label_column = -1;
        else if (strcmp(value, "auto") == 0) o->read.label_column = TSGS_LABEL_COLUMN_AUTO;
        else if (parse_long(value, 0, &v) == 0 && v < 1000000) o->read.label_column = (int)v;
        else why = "a column number (1 = first), 0 for none, last or auto";
    } else if (strcmp(key, "skip-columns") == 0) {
        o->read_given |= CLI_GAVE_SKIP_COLUMNS;
        if (parse_long(value, 0, &v) == 0 && v < 1000000) o->read.skip_columns = (int)v;
        else why = "a number of leading columns >= 0";
    } else if (strcmp(key, "header") == 0) {
        if (strcmp(value, "auto") == 0) o->read.header = -1;
        else if (strcmp(value, "yes") == 0) o->read.header = 1;
        else if (strcmp(value, "no") == 0) o->read.header = 0;
        else why = "one of auto, yes, no";
    } else if (strcmp(key, "unlabeled-label") == 0) {
        o->read_given |= CLI_GAVE_UNLABELED_LABEL;
        char *end;
        double x = strtod(value, &end);
        if (end == value || *end != '\0') why = "a number";
        else {
            o->read.has_unlabeled_label = 1;
            o->read.unlabeled_label = x;
        }
    } else if (strcmp(key, "labeled") == 0) {
        if (parse_long(value, 0, &v) == 0) o->labeled = v;
        else why = "a number of rows >= 0 (0: keep every label)";
    } else if (strcmp(key, "unlabeled") == 0) {
        return set_string(&o->unlabeled_file, value, err);
    } else if (strcmp(key, "test") == 0) {
        return set_string(&o->test_file, value, err);
    } else if (strcmp(key, "xml") == 0) {
        return set_string(&o->topology_xml, value, err);
    } else if (strcmp(key, "synthetic") == 0) {
        return set_string(&o->topology_synthetic, value, err);
    } else if (strcmp(key, "test-every") == 0) {
        if (parse_long(value, 0, &v) == 0) o->test_every = v;
        else why = "a number of iterations >= 0";
    } else if (strcmp(key, "max-memory") == 0) {
        double b;
        if (parse_size(value, &b) == 0) o->max_memory = b;
        else why = "auto, 0 (no limit) or a size such as 8G, 512M";
    } else if (strcmp(key, "max-time") == 0) {
        char *end;
        const double s = strtod(value, &end);
        if (strcmp(value, "none") == 0) o->max_time = 0.0;
        else if (end != value && !*end && s >= 0.0 && s <= 1e12) o->max_time = s;
        else why = "seconds >= 0, or 0 / none (no limit)";
    } else if (strcmp(key, "decision-values") == 0) {
        if (strcmp(value, "1") == 0 || strcmp(value, "yes") == 0) o->decision_values = 1;
        else if (strcmp(value, "0") == 0 || strcmp(value, "no") == 0) o->decision_values = 0;
        else why = "yes or no";
    } else if (strcmp(key, "quiet") == 0) {
        if (strcmp(value, "1") == 0 || strcmp(value, "yes") == 0) o->quiet = 1;
        else if (strcmp(value, "0") == 0 || strcmp(value, "no") == 0) o->quiet = 0;
        else why = "yes or no";
    } else {
        return set_checkpoint_key(o, key, value, err); /* or params */
    }
    return why ? expected(key, value, why, err) : TSGS_OK;
}

static int allowed_key(const char *key, const char *const *allowed)
{
    if (strcmp(key, "gamma") == 0) /* tsgs_params_set's name for sigma */
        key = "sigma";
    if (strcmp(key, "c") == 0) /* and for cost (svm-train's -c) */
        key = "cost";
    tsgs_params dummy = tsgs_params_default();
    for (size_t i = 0; allowed[i]; i++) {
        if (strcmp(allowed[i], "@params") == 0) {
            const char *k;
            for (size_t j = 0; (k = tsgs_params_key(j, &dummy, NULL, 0, NULL)); j++)
                if (strcmp(k, key) == 0)
                    return 1;
        } else if (strcmp(allowed[i], key) == 0) {
            return 1;
        }
    }
    return 0;
}

typedef struct {
    cli_opts *o;
    const char *const *allowed;
    const char *path;
} config_ctx;

/* Whether key sets C (per labeled row or in total). */
static int is_c_key(const char *key)
{
    return strcmp(key, "c") == 0 || strcmp(key, "cost") == 0 ||
           strcmp(key, "c-total") == 0;
}

static tsgs_status set_config_key(const char *key, const char *value,
                                  void *user, tsgs_error *err)
{
    config_ctx *c = user;
    if (!allowed_key(key, c->allowed)) {
        snprintf(err->message, sizeof err->message, "unknown key \"%s\"", key);
        return TSGS_ERR_PARAM;
    }
    /* A config file's "c" keeps the meaning it always had there, C x the
     * labeled rows (c-total), so that files written before C became
     * per-row train as they did; the note after the options says so. */
    if (is_c_key(key))
        c->o->legacy_c_file = NULL; /* a later C replaces it */
    if (strcmp(key, "c") == 0) {
        c->o->legacy_c_file = c->path;
        key = "c-total";
    }
    /* set_key copies the strings it keeps. */
    return set_key(key, value, c->o, err);
}

/* The note on a config file's "c" (set_config_key), when its value is the
 * C used (no C given after it, in a config file or on the command line). */
static void note_legacy_c(const cli_opts *o)
{
    if (!o->legacy_c_file || o->quiet || !(o->params.c_total > 0.0))
        return;
    fprintf(stderr, "note: %s: c = %g is read as c-total, C x the labeled "
                    "rows, as config files have always meant it; write "
                    "cost = C per labeled row (svm-train's -c), or "
                    "c-total = %g to keep this meaning without this note\n",
            o->legacy_c_file, o->params.c_total, o->params.c_total);
}

static int is_config_flag(const char *a)
{
    return strcmp(a, "--config") == 0;
}

static int parse_number(const char *v, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end != '\0' || errno)
        return -1;
    *out = x;
    return 0;
}

/* svm-train's -wLABEL WEIGHT (flag "-wLABEL"): the class weight of LABEL
 * (a number as the data writes it: -w1, -w-1, -w+1, -w2.5). 0 when
 * taken; 1 after printing why not. */
static int class_weight_option(cli_opts *o, const char *flag,
                               const char *value)
{
    const char *text = flag + 2;
    double label, weight;
    tsgs_error err;
    if (parse_number(text, &label) != 0 || !isfinite(label)) {
        fprintf(stderr, "ERROR: %s: \"%s\" is not a class label: -wLABEL "
                        "WEIGHT takes the label as the data writes it "
                        "(-w1 5, -w-1 0.5, -w+1 2)\n",
                flag, text);
        return 1;
    }
    if (parse_number(value, &weight) != 0 || !isfinite(weight) ||
        !(weight > 0.0)) {
        fprintf(stderr, "ERROR: %s \"%s\": the weight must be a positive "
                        "finite number (it multiplies C for the rows "
                        "labeled %g, as svm-train's -wi)\n",
                flag, value, label);
        return 1;
    }
    if (tsgs_params_set_class_weight(&o->params, label, weight, &err)) {
        fprintf(stderr, "ERROR: %s: %s\n", flag, err.message);
        return 1;
    }
    return 0;
}

/* svm-train's -c, -g, -t, -s and -v, which train and cv take: 0 when
 * taken; 1 after printing why not; -1 when flag is none of them. */
static int train_short_option(cli_opts *o, const char *flag,
                              const char *value)
{
    double x;
    tsgs_error err;
    memset(&err, 0, sizeof err);
    if (strcmp(flag, "-c") == 0) {
        o->legacy_c_file = NULL;
        if (parse_number(value, &x) != 0 || !(x > 0.0) ||
            set_key("cost", value, o, &err) != TSGS_OK) {
            fprintf(stderr, "ERROR: -c \"%s\": -c is the cost C, a positive "
                            "number, as in svm-train; a config file is read "
                            "with --config %s\n",
                    value, value);
            return 1;
        }
        return 0;
    }
    if (strcmp(flag, "-g") == 0) {
        if (set_key("sigma", value, o, &err) != TSGS_OK) {
            fprintf(stderr, "ERROR: -g (gamma, --sigma): %s\n", err.message);
            return 1;
        }
        o->libsvm_gamma = 1;
        return 0;
    }
    if (strcmp(flag, "-t") == 0) {
        if (strcmp(value, "2") == 0)
            return set_key("kernel", "rbf", o, &err) != TSGS_OK;
        fprintf(stderr, "ERROR: -t %s: this tool has the rbf kernel (-t 2) "
                        "and the laplacian one (--kernel laplacian), both "
                        "through random features; no linear, polynomial or "
                        "sigmoid kernel\n",
                value);
        return 1;
    }
    if (strcmp(flag, "-s") == 0) {
        if (strcmp(value, "0") == 0)
            return 0; /* C-SVC: what every solver here is */
        fprintf(stderr, "ERROR: -s %s: this tool trains C-SVC classifiers "
                        "only (-s 0); --solver picks how\n",
                value);
        return 1;
    }
    if (strcmp(flag, "-v") == 0)
        return cli_parse_folds(flag, value, &o->cv_folds);
    return -1;
}

/* -b 0|1: train (train != 0) fits probability outputs (--probability);
 * predict writes them. 0 when taken; 1 after printing why not. */
static int probability_option(cli_opts *o, const char *value, int train)
{
    if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0) {
        fprintf(stderr, "ERROR: -b %s: expected 0 or 1 (probability "
                        "outputs)\n",
                value);
        return 1;
    }
    if (train) {
        tsgs_error err;
        memset(&err, 0, sizeof err);
        return set_key("probability", value, o, &err) != TSGS_OK;
    }
    o->probability_out = value[0] == '1';
    return 0;
}

/* svm-train's options that change nothing here (-m, -h: LIBSVM's kernel
 * cache and shrinking change how fast it gets there, not the model):
 * 0, accepted and ignored; those with no counterpart here (-d, -r, -n, -p,
 * -e): 1 after saying so; -1 for any other flag. */
static int libsvm_only_option(const char *flag, const char *value)
{
    static const char *const others[][2] = {
        {"-d", "the kernel degree (no polynomial kernel here)"},
        {"-r", "coef0 (no polynomial or sigmoid kernel here)"},
        {"-n", "nu (no nu-SVM here)"},
        {"-p", "epsilon of SVR (no regression here)"},
        {"-e", "the stopping tolerance (the steps are set by --passes or "
               "--iterations)"},
    };
    double x;
    if ((strcmp(flag, "-m") == 0 && parse_number(value, &x) == 0) ||
        (strcmp(flag, "-h") == 0 &&
         (strcmp(value, "0") == 0 || strcmp(value, "1") == 0)))
        return 0;
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (strcmp(flag, others[i][0]) == 0) {
            fprintf(stderr, "ERROR: %s: svm-train's %s has no counterpart "
                            "here: %s\n",
                    flag, flag, others[i][1]);
            return 1;
        }
    return -1;
}

/* svm-train's / svm-predict's short option `flag` with its value. 0 when
 * taken; 1 after printing why not. */
static int short_option(cli_opts *o, const char *flag, const char *value,
                        const char *const *allowed)
{
    const int train = allowed_key("c", allowed);
    int rc = train ? train_short_option(o, flag, value) : -1;
    if (rc < 0 && strcmp(flag, "-b") == 0)
        rc = probability_option(o, value, train);
    if (rc < 0)
        rc = libsvm_only_option(flag, value);
    if (rc >= 0)
        return rc;
    if (strncmp(flag, "-w", 2) == 0 && train)
        return class_weight_option(o, flag, value);
    if (strncmp(flag, "-w", 2) == 0) {
        fprintf(stderr, "ERROR: %s: class weights are set when training "
                        "(train, cv), not here\n",
                flag);
        return 1;
    }
    fprintf(stderr, "ERROR: unknown option \"%s\" (see --help)\n", flag);
    return 1;
}

/* svm-train's short options that take a value. */
static int takes_value(const char *a)
{
    static const char *const flags[] = {"-c", "-g", "-t", "-s", "-v", "-b",
                                        "-d", "-r", "-n", "-p", "-m", "-e",
                                        "-h", NULL};
    for (int i = 0; flags[i]; i++)
        if (strcmp(a, flags[i]) == 0)
            return 1;
    return strncmp(a, "-w", 2) == 0 && a[2] != '\0';
}

/* cli_parse's first pass: the files of --config FILE and --config=FILE,
 * read before the rest so that the command line overrides them. Returns
 * 0, or 1 after an error (printed). */
static int read_config_files(cli_opts *o, int argc, char **argv,
                             const char *const *allowed)
{
    tsgs_error err;
    memset(&err, 0, sizeof err);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        const char *path = NULL;
        if (strncmp(argv[i], "--config=", 9) == 0) {
            path = argv[i] + 9;
        } else if (is_config_flag(argv[i])) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0') {
                fprintf(stderr, "ERROR: %s needs a file name\n", argv[i]);
                return 1;
            }
            path = argv[++i];
        } else {
            continue;
        }
        if (path[0] == '\0') {
            fprintf(stderr, "ERROR: --config needs a file name\n");
            return 1;
        }
        config_ctx c = {o, allowed, path};
        if (tsgs_config_read(path, set_config_key, &c, &err)) {
            cli_error(&err);
            return 1;
        }
    }
    return 0;
}

/* Whether argv[i] asks for help: --help, or -h alone (svm-train's -h
 * takes 0 or 1). */
static int is_help(int argc, char **argv, int i)
{
    return strcmp(argv[i], "--help") == 0 ||
           (strcmp(argv[i], "-h") == 0 &&
            (i + 1 >= argc || argv[i + 1][0] == '-'));
}

/* argv[*i], "--key=value" or "--key value" (*i then moves past the
 * value, which does not start with "--"): one of the allowed keys, set.
 * Returns 0, or 1 after an error (printed). */
static int long_option(cli_opts *o, int argc, char **argv, int *i,
                       const char *const *allowed)
{
    const char *a = argv[*i];
    char key[64];
    const char *value;
    const char *eq = strchr(a + 2, '=');
    size_t klen = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
    tsgs_error err;
    memset(&err, 0, sizeof err);
    if (klen == 0 || klen >= sizeof key) {
        fprintf(stderr, "ERROR: bad option \"%s\"\n", a);
        return 1;
    }
    memcpy(key, a + 2, klen);
    key[klen] = '\0';
    if (!allowed_key(key, allowed)) {
        fprintf(stderr, "ERROR: unknown option --%s (see --help)\n", key);
        return 1;
    }
    if (eq) {
        value = eq + 1;
    } else if (*i + 1 < argc && strncmp(argv[*i + 1], "--", 2) != 0) {
        value = argv[++*i];
    } else {
        fprintf(stderr, "ERROR: option --%s needs a value\n", key);
        return 1;
    }
    if (is_c_key(key))
        o->legacy_c_file = NULL;
    if (set_key(key, value, o, &err) != TSGS_OK) {
        fprintf(stderr, "ERROR: --%s\n", err.message);
        return 1;
    }
    return 0;
}

/* argv[*i], a short option of svm-train's, with its value (*i moves past
 * it). Returns 0, or 1 after an error (printed). */
static int short_flag(cli_opts *o, int argc, char **argv, int *i,
                      const char *const *allowed)
{
    const char *a = argv[*i];
    if (strcmp(a, "-w") == 0) {
        fprintf(stderr, "ERROR: -w needs the class label in the flag: "
                        "-wLABEL WEIGHT, e.g. -w1 5 -w-1 0.5 (svm-train's "
                        "-wi)\n");
        return 1;
    }
    if (!takes_value(a)) {
        fprintf(stderr, "ERROR: unknown option \"%s\" (see --help)\n", a);
        return 1;
    }
    if (*i + 1 >= argc) {
        fprintf(stderr, "ERROR: option %s needs a value\n", a);
        return 1;
    }
    return short_option(o, a, argv[++*i], allowed);
}

static int add_positional(cli_opts *o, const char *a)
{
    if (o->npositional == 4) {
        fprintf(stderr, "ERROR: too many arguments (\"%s\")\n", a);
        return 1;
    }
    o->positional[o->npositional++] = a;
    return 0;
}

int cli_parse(cli_opts *o, int argc, char **argv, const char *const *allowed)
{
    /* Pass 1: config files, so the command line overrides them. */
    if (read_config_files(o, argc, argv, allowed))
        return 1;
    int only_positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int bad = 0;
        if (only_positional)
            bad = add_positional(o, a);
        else if (strcmp(a, "--") == 0)
            only_positional = 1;
        else if (is_config_flag(a))
            i++; /* read in pass 1, as --config=FILE */
        else if (strncmp(a, "--config=", 9) == 0)
            continue;
        else if (is_help(argc, argv, i))
            o->help = 1; /* -h alone; svm-train's -h 0/1 below */
        else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
            o->quiet = 1;
        else if (strcmp(a, "--decision-values") == 0 &&
                 allowed_key("decision-values", allowed))
            o->decision_values = 1; /* alone, as --quiet; =no to undo */
        else if (a[0] == '-' && a[1] == '-')
            bad = long_option(o, argc, argv, &i, allowed);
        else if (a[0] == '-' && a[1] != '\0')
            bad = short_flag(o, argc, argv, &i, allowed);
        else
            bad = add_positional(o, a);
        if (bad)
            return 1;
    }
    /* svm-train's -g is gamma on the user's own features (scaled by
     * svm-scale, or not at all): no scaling of ours under it, unless
     * --scale (or the config) says so */
    if (o->libsvm_gamma && !o->scale_given)
        o->params.scale = TSGS_SCALE_NONE;
    note_legacy_c(o);
    return 0;
}

int cli_parse_folds(const char *flag, const char *value, int *folds)
{
    char *end;
    errno = 0;
    const long f = strtol(value, &end, 10);
    if (end == value || *end || errno || f < 2 || f > 1000) {
        fprintf(stderr, "ERROR: %s \"%s\": the number of folds, expected "
                        "2..1000 (svm-train's -v)\n",
                flag, value);
        return 1;
    }
    *folds = (int)f;
    return 0;
}

const char *cli_path(const char *path, int output)
{
    if (strcmp(path, "-") != 0)
        return path;
    return output ? "/dev/stdout" : "/dev/stdin";
}

tsgs_read_options cli_read_options(const cli_opts *o)
{
    tsgs_read_options ro = o->read;
    ro.threads = o->params.threads; /* --threads parses the text too */
    ro.should_stop = cli_should_stop;
    return ro;
}

int cli_read(const cli_opts *o, const char *path, tsgs_dataset **out)
{
    tsgs_error err;
    tsgs_read_options ro = cli_read_options(o);
    if (tsgs_dataset_read(cli_path(path, 0), &ro, out, &err) != TSGS_OK) {
        cli_error(&err);
        return 1;
    }
    return 0;
}

/* "csv, 6 columns, label in column 6, 1 skipped" and the like. */
static void describe_layout(const tsgs_data_layout *L, char *buf,
                            size_t size)
{
    if (!L->known) {
        snprintf(buf, size, "layout not recorded");
        return;
    }
    if (L->format == TSGS_FORMAT_LIBSVM) {
        snprintf(buf, size, "libsvm");
        return;
    }
    char label[32];
    if (L->label_column < 0)
        snprintf(label, sizeof label, "label last");
    else if (L->label_column == 0)
        snprintf(label, sizeof label, "no label column");
    else
        snprintf(label, sizeof label, "label in column %d", L->label_column);
    snprintf(buf, size, "%s, %zu columns, %s, %d skipped",
             L->format == TSGS_FORMAT_NPY ? "npy" : "csv", L->columns, label,
             L->skip_columns);
}

/* Appends an option in words to what (" " between options). */
static void taken(char *what, size_t size, const char *fmt, ...)
{
    size_t k = strlen(what);
    if (k > 0 && k + 1 < size)
        what[k++] = ' ';
    if (k + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what + k, size - k, fmt, ap);
    va_end(ap);
}

/* Whether path is a regular file that starts with a .npy's magic bytes
 * (the reader maps a .npy: never compressed, never a pipe, whose bytes a
 * look here would take from the reader). */
static int is_npy(const char *path)
{
    unsigned char magic[6];
    struct stat sb;
    FILE *f = strcmp(path, "-") != 0 && stat(path, &sb) == 0 &&
                      S_ISREG(sb.st_mode)
                  ? fopen(path, "rb")
                  : NULL;
    if (!f)
        return 0;
    const int yes = fread(magic, 1, 6, f) == 6 &&
                    memcmp(magic, "\x93NUMPY", 6) == 0;
    fclose(f);
    return yes;
}

void cli_apply_layout(cli_opts *o, const tsgs_data_layout *model,
                      const char *path, char *what, size_t size)
{
    what[0] = '\0';
    if (!model->known)
        return;
    const unsigned gave = o->read_given;
    /* The columns of a CSV are not those of a .npy (convert drops the
     * skipped and label columns): they carry over between files of one
     * kind only. The format and header stay detected. */
    const int npy = is_npy(path);
    const int columns = model->format == TSGS_FORMAT_CSV   ? !npy
                        : model->format == TSGS_FORMAT_NPY ? npy
                                                           : 0;
    if (columns && !(gave & CLI_GAVE_LABEL_COLUMN)) {
        o->read.label_column = model->label_column;
        if (model->label_column < 0)
            taken(what, size, "--label-column last");
        else
            taken(what, size, "--label-column %d", model->label_column);
    }
    if (columns && !(gave & CLI_GAVE_SKIP_COLUMNS)) {
        o->read.skip_columns = model->skip_columns;
        taken(what, size, "--skip-columns %d", model->skip_columns);
    }
    if (!(gave & CLI_GAVE_UNLABELED_LABEL) && model->has_unlabeled_label) {
        o->read.has_unlabeled_label = 1;
        o->read.unlabeled_label = model->unlabeled_label;
        taken(what, size, "--unlabeled-label %.17g", model->unlabeled_label);
    }
}

int cli_check_narrow(const char *path, const tsgs_dataset *ds,
                     size_t d_model, const tsgs_data_layout *model)
{
    tsgs_data_layout L;
    tsgs_dataset_layout(ds, &L);
    if (!L.known || L.format == TSGS_FORMAT_LIBSVM)
        return 0;
    const size_t other = (size_t)L.skip_columns + (L.label_column != 0);
    const size_t width = L.columns > other ? L.columns - other : 0;
    if (width >= d_model)
        return 0;
    char file[96], trained[96];
    describe_layout(&L, file, sizeof file);
    describe_layout(model, trained, sizeof trained);
    fprintf(stderr,
            "ERROR: %s: %zu features a row (%s), but the model has %zu "
            "(its training file: %s): the rows would be padded with zeros "
            "and their predictions wrong. Give a file with the training "
            "file's columns, or the --label-column (0: none) / "
            "--skip-columns that read it as the model's %zu features\n",
            path, width, file, d_model, trained, d_model);
    return 1;
}

int cli_drop_unseen(const char *path, tsgs_dataset *ds, size_t d_model)
{
    size_t d = tsgs_dataset_features(ds), dropped = 0;
    if (d <= d_model)
        return 0;
    tsgs_error err;
    if (tsgs_dataset_drop_features(ds, d_model, &dropped, &err) != TSGS_OK) {
        cli_error(&err);
        return 1;
    }
    cli_warn_unseen(path, d_model, d, dropped);
    return 0;
}

void cli_warn_unseen(const char *path, size_t d_model, size_t d,
                     size_t dropped)
{
    fprintf(stderr, "warning: %s: features %zu..%zu are not in the model "
                    "(trained on %zu); their %zu nonzero values are ignored, "
                    "as LIBSVM does\n",
            path, d_model + 1, d, d_model, dropped);
}

void cli_print_param_help(const tsgs_params *p)
{
    char value[TSGS_PARAM_VALUE_MAX];
    const char *help, *key;
    for (size_t i = 0; (key = tsgs_params_key(i, p, value, sizeof value, &help)); i++)
        printf("  --%-17s %-10s %s\n", key, value, help);
}

void cli_print_read_help(int unlabeled_label)
{
    printf("Data options:\n"
           "  --format          auto       auto, libsvm (sparse i:v) or csv\n"
           "  --label-column    auto       CSV column of the label (1 = first, last, 0 = none; auto: the header's\n"
           "                               column named label, target, class or y, else the first)\n"
           "  --skip-columns    0          CSV leading columns to drop (e.g. a row index)\n"
           "  --header          auto       CSV header line: auto, yes, no\n");
    if (unlabeled_label)
        printf("  --unlabeled-label (none)     label value that marks a row unlabeled\n"
               "                               (SVMlight: 0, UniverSVM: -3, scikit-learn: -1)\n");
    printf("Files may be plain or compressed with gzip, xz, bzip2 or zstd, "
           "or NumPy .npy\n(labels in NAME.labels.npy, else the label "
           "column); - is standard input.\n");
}
