/* tsgs3vm predict [options] MODEL_FILE TEST_FILE [OUTPUT_FILE] */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const predict_keys[] = {
    "threads", "bind", "format", "label-column", "skip-columns", "header",
    "unlabeled-label", "quiet", "decision-values", NULL};

static void usage(void)
{
    printf("Usage: tsgs3vm predict [options] MODEL_FILE TEST_FILE "
           "[OUTPUT_FILE]\n\n"
           "Writes one line per row of TEST_FILE to OUTPUT_FILE, as "
           "svm-predict: the\npredicted label. When TEST_FILE has labels, "
           "prints the accuracy as svm-predict\ndoes: Accuracy = X%% (a/b) "
           "(classification).\n\n"
           "  --threads N     threads (0: OMP_NUM_THREADS, else one per "
           "core)\n"
           "  --bind POLICY   auto, compact, scatter or none\n"
           "  -q, --quiet     no accuracy line\n"
           "  -b 0|1          1: each line the label and each class's "
           "probability, after a\n"
           "                  \"labels\" line, as svm-predict -b 1 (the "
           "model trained with -b 1)\n"
           "  --decision-values\n"
           "                  each line the label and its decision value (a "
           "model of K > 2\n"
           "                  classes: each class's one-vs-rest value, "
           "classes ascending)\n"
           "  --config FILE   read key = value options from FILE\n"
           "TEST_FILE may be - (standard input), OUTPUT_FILE - (standard "
           "output; the\naccuracy line then goes to standard error).\n"
           "TEST_FILE is read, scored and written 65,536 rows at a time "
           "(fewer when rows\nare wide): the memory is the model's and a "
           "block's, whatever the file's\nlength. OUTPUT_FILE is written "
           "to OUTPUT_FILE.tmp.<pid>.<n> and renamed once\ncomplete (a "
           "killed run's temporary is removed by the next); to - or a "
           "pipe,\nan error in a later row leaves the lines before it "
           "written.\n"
           "The data options not given are the model's: TEST_FILE is read "
           "as its training\nfile was (the label and skipped columns, when "
           "both are CSV or both .npy; the\nunlabeled label; the format and "
           "header are detected). A CSV or .npy narrower\nthan the model is "
           "refused.\n\n");
    cli_print_read_help(1);
}

static void on_warn(const char *msg, void *user)
{
    if (!*(int *)user)
        fprintf(stderr, "warning: %s\n", msg);
}

/* Rows scored at a time: the memory is the model's and one block's,
 * whatever the file's length. Wide rows make fewer rows a block, so that
 * a block stays near BLOCK_BYTES: d floats a row until a block says how
 * its rows are stored (sparse rows take their non-zeros only). */
#define BLOCK_ROWS 65536
#define BLOCK_BYTES ((size_t)64 << 20)

/* TSGS3VM_PREDICT_BLOCK_ROWS, when set, caps a block's rows below
 * BLOCK_ROWS: the tests' way to score a small file in several blocks. */
static size_t block_cap(void)
{
    const char *v = getenv("TSGS3VM_PREDICT_BLOCK_ROWS");
    char *end;
    unsigned long k = v ? strtoul(v, &end, 10) : 0;
    return v && *end == '\0' && k > 0 && k < BLOCK_ROWS ? k : BLOCK_ROWS;
}

static size_t block_rows(const tsgs_dataset *last, size_t d)
{
    size_t row = sizeof(float) * (d ? d : 1);
    if (last && tsgs_dataset_is_sparse(last))
        row = sizeof(size_t) + (sizeof(float) + sizeof(uint32_t)) *
                                   tsgs_dataset_nonzeros(last) /
                                   tsgs_dataset_rows(last);
    size_t k = BLOCK_BYTES / row;
    const size_t cap = block_cap();
    return k < 1 ? 1 : k > cap ? cap : k;
}

/* What predict writes for a block: scores (n x score columns) and, with
 * -b 1, probabilities (n x classes). */
typedef struct {
    const tsgs_model *model;
    const double *scores, *proba;
    size_t n;
} predictions;

/* LIBSVM's -b 1 layout starts with a "labels ..." line. */
static void put_labels(FILE *out, const tsgs_model *m)
{
    const size_t nc = tsgs_model_classes(m, NULL);
    double *labels = malloc(sizeof(double) * nc);
    if (!labels)
        return;
    tsgs_model_classes(m, labels);
    fputs("labels", out);
    for (size_t c = 0; c < nc; c++)
        fprintf(out, " %.17g", labels[c]);
    fputc('\n', out);
    free(labels);
}

/* A line per row: the label alone (svm-predict's layout); with
 * --decision-values (values set), the label then the decision value
 * (binary) or each class's one-vs-rest decision value; with
 * probabilities, the label and each class's probability. */
static void put_rows(FILE *out, const predictions *pr, int values)
{
    const tsgs_model *m = pr->model;
    const size_t k = tsgs_model_score_columns(m);
    const size_t nc = tsgs_model_classes(m, NULL);
    for (size_t i = 0; i < pr->n; i++) {
        fprintf(out, "%.17g", tsgs_model_label_of(m, pr->scores + i * k));
        if (pr->proba)
            for (size_t c = 0; c < nc; c++)
                fprintf(out, " %.17g", pr->proba[i * nc + c]);
        else if (values)
            for (size_t c = 0; c < k; c++)
                fprintf(out, " %.17g", pr->scores[i * k + c]);
        fputc('\n', out);
    }
}

/* Where the lines go: standard output, a special file written into (a
 * pipe, a device, a link), or a temporary beside the output file renamed
 * over it once every row is in, so that a failed or interrupted run never
 * leaves a partial file. */
typedef struct {
    const char *path;
    FILE *f;
    char *tmp; /* the temporary, or NULL */
} output;

/* Returns 0, or 1 after an error (printed). */
static int output_open(output *o, const char *path)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    struct stat lst;
    if (cli_is_special(path) ||
        (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))) {
        /* A pipe, a device, or a link (/dev/stdout is one, even when it
         * leads to a file): write through it; a rename would replace the
         * link itself. */
        o->f = fopen(path, "w");
        if (!o->f) {
            fprintf(stderr, "ERROR: %s: cannot open for writing: %s\n", path,
                    strerror(errno));
            return 1;
        }
        return 0;
    }
    tsgs_error err;
    if (tsgs_temp_open(path, &o->f, &o->tmp, &err) != TSGS_OK) {
        cli_error(&err);
        return 1;
    }
    return 0;
}

/* Completes the output: the temporary renamed over the path. Standard
 * output is checked by predict once done. Returns 0, or 1 after an error
 * (printed; the temporary removed). */
static int output_close(output *o)
{
    FILE *f = o->f;
    o->f = NULL;
    if (!f || f == stdout)
        return 0;
    if (!o->tmp) {
        int bad = ferror(f) != 0;
        bad |= fclose(f) != 0;
        if (bad)
            fprintf(stderr, "ERROR: %s: write failed\n", o->path);
        return bad;
    }
    int bad = ferror(f) != 0, e = 0;
    if (fflush(f) != 0) {
        bad = 1;
        e = errno;
    }
    if (fclose(f) != 0) {
        bad = 1;
        if (!e)
            e = errno;
    }
    if (!bad && rename(o->tmp, o->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        fprintf(stderr, "ERROR: %s: write failed: %s\n", o->path,
                e ? strerror(e) : "I/O error");
        unlink(o->tmp);
    }
    free(o->tmp);
    o->tmp = NULL;
    return bad;
}

/* After an error elsewhere: the output file is left as it was. */
static void output_abandon(output *o)
{
    if (o->f && o->f != stdout)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

/* A scoring pass: the model, the buffers of a block's scores, and what
 * the blocks add up to. */
typedef struct {
    const cli_opts *o;
    const tsgs_model *model;
    const char *in;  /* TEST_FILE as given, for warnings */
    size_t d;        /* the model's features */
    size_t widest;   /* the file's widest rows, before dropping */
    size_t dropped;  /* nonzero values beyond the model's features */
    double *scores, *proba;
    size_t cap;      /* rows the buffers hold */
    cli_tally tally;
    const tsgs_data_layout *layout; /* the model's training file's */
    const char *taken; /* the read options taken from it, in words */
} pass;

/* After an error reading the test file (err: not one of opening it or
 * of memory): which of its read options came from the model, so that a
 * file of another layout can say its own. */
static void layout_note(const char *path, const char *taken,
                        const tsgs_error *err)
{
    if (taken[0] && err->code != TSGS_ERR_IO && err->code != TSGS_ERR_NOMEM)
        fprintf(stderr, "note: %s was read as the model's training file "
                        "was (%s); give those options to read it "
                        "otherwise\n",
                path, taken);
}

/* Features beyond the model's dropped (LIBSVM ignores them: one warning
 * at the end, for the whole file); narrower LIBSVM rows were padded by the
 * reader (they are sparse), a narrower CSV or .npy is refused. Returns 0,
 * or 1 after an error (printed). */
static int fit_width(pass *p, tsgs_dataset *block)
{
    size_t d = tsgs_dataset_features(block), dropped = 0;
    tsgs_error err;
    if (cli_check_narrow(p->in, block, p->d, p->layout))
        return 1;
    if (d > p->widest)
        p->widest = d;
    if (d > p->d &&
        tsgs_dataset_drop_features(block, p->d, &dropped, &err) != TSGS_OK) {
        cli_error(&err);
        return 1;
    }
    p->dropped += dropped;
    if (tsgs_dataset_features(block) != p->d) {
        fprintf(stderr, "ERROR: %s: %zu features per row, but the model "
                        "was trained on %zu\n",
                p->in, tsgs_dataset_features(block), p->d);
        return 1;
    }
    return 0;
}

/* Room for n rows of scores (and probabilities). */
static int reserve(pass *p, size_t n)
{
    if (n <= p->cap)
        return 0;
    free(p->scores);
    free(p->proba);
    p->proba = NULL;
    p->scores = malloc(sizeof(double) * tsgs_model_score_columns(p->model) * n);
    if (p->o->probability_out)
        p->proba = malloc(sizeof(double) * tsgs_model_classes(p->model, NULL) *
                          n);
    p->cap = p->scores && (p->proba || !p->o->probability_out) ? n : 0;
    if (!p->cap) {
        fprintf(stderr, "ERROR: out of memory\n");
        return 1;
    }
    return 0;
}

/* Scores a block (and its probabilities with -b 1) and counts it for the
 * accuracy line. Returns 0, or 1 after an error (printed). */
static int score_block(pass *p, const tsgs_dataset *block)
{
    tsgs_error err;
    const int threads = p->o->params.threads;
    if (reserve(p, tsgs_dataset_rows(block)))
        return 1;
    if (tsgs_predict_scores(p->model, block, threads, p->scores, &err) ||
        (p->proba &&
         tsgs_predict_proba(p->model, block, threads, p->proba, &err))) {
        cli_error(&err);
        return 1;
    }
    cli_tally_add(&p->tally, p->model, block, p->scores);
    return 0;
}

/* Whether writing to the output has failed so far: a full disk stops the
 * pass at the block it happened in, not at the end of the file. */
static int write_failed(const output *o)
{
    return o->f && ferror(o->f);
}

/* SIGINT or SIGTERM came (cli_catch_stops): the output is abandoned, an
 * OUTPUT_FILE left as it was. Returns the exit status, 128 + the signal. */
static int stopped(output *out, const char *out_path, const tsgs_error *err)
{
    output_abandon(out);
    char where[TSGS_ERROR_MESSAGE_MAX + 8] = "";
    if (err)
        snprintf(where, sizeof where, ": %s", err->message);
    if (out_path && strcmp(out_path, "-") == 0)
        fprintf(stderr, "interrupted%s; standard output has the rows "
                        "before it\n", where);
    else if (out_path)
        fprintf(stderr, "interrupted%s; %s untouched\n", where, out_path);
    else
        fprintf(stderr, "interrupted%s; no accuracy\n", where);
    return 128 + cli_stop_signal;
}

/* Reads, scores and writes rd's rows a block at a time. The output opens
 * once the first block is scored, so that a file that does not read
 * leaves no output. Returns 0, 1 after an error (printed), or 128 + a
 * signal that stopped it (said). */
static int score_file(pass *p, tsgs_reader *rd, const char *out_path)
{
    output out = {NULL, NULL, NULL};
    size_t rows = block_rows(NULL, p->d);
    tsgs_error err;
    for (int first = 1;; first = 0) {
        tsgs_dataset *block = NULL;
        /* a stop is seen here between blocks, and by the reader within
         * one (cli_read_options) */
        if (cli_stop_signal)
            return stopped(&out, out_path, NULL);
        if (tsgs_reader_next(rd, rows, &block, &err) != TSGS_OK) {
            if (err.code == TSGS_ERR_STOPPED && cli_stop_signal)
                return stopped(&out, out_path, &err);
            cli_error(&err);
            layout_note(p->in, p->taken, &err);
            goto fail;
        }
        if (!block)
            break;
        if (first)
            tsgs_bind_threads(p->o->params.threads, p->o->params.bind,
                              on_warn, (void *)&p->o->quiet);
        int bad = fit_width(p, block) || score_block(p, block);
        if (!bad && first && out_path) {
            bad = output_open(&out, out_path);
            if (!bad && p->proba)
                put_labels(out.f, p->model);
        }
        if (!bad && out.f) {
            const predictions pr = {p->model, p->scores, p->proba,
                                    tsgs_dataset_rows(block)};
            put_rows(out.f, &pr, p->o->decision_values);
        }
        rows = block_rows(block, p->d);
        tsgs_dataset_free(block);
        if (bad)
            goto fail;
        if (write_failed(&out) && cli_stop_signal)
            return stopped(&out, out_path, NULL); /* EINTR: no SA_RESTART */
        if (write_failed(&out))
            break; /* said by output_close, or for stdout by predict */
    }
    if (p->widest > p->d)
        cli_warn_unseen(p->in, p->d, p->widest, p->dropped);
    return output_close(&out);
fail:
    output_abandon(&out);
    return 1;
}

/* OUTPUT_FILE, or NULL when none was given. */
static const char *output_path(const cli_opts *o)
{
    return o->npositional == 3 ? o->positional[2] : NULL;
}

/* MODEL_FILE TEST_FILE [OUTPUT_FILE], and -b 1 or --decision-values, not
 * both. Returns 0, or 1 after an error (printed). */
static int check_arguments(const cli_opts *o)
{
    if (o->npositional < 2 || o->npositional > 3) {
        fprintf(stderr, "ERROR: predict needs MODEL_FILE TEST_FILE "
                        "[OUTPUT_FILE] (see tsgs3vm predict --help)\n");
        return 1;
    }
    if (o->probability_out && o->decision_values) {
        fprintf(stderr, "ERROR: -b 1 and --decision-values: a line holds "
                        "the probabilities (svm-predict -b 1's layout) or "
                        "the decision values; give one\n");
        return 1;
    }
    return 0;
}

/* MODEL_FILE, which must have probability outputs when -b 1 asks for
 * them. Returns 0, or 1 after an error (printed). */
static int load_model(const cli_opts *o, tsgs_model **out)
{
    tsgs_error err;
    tsgs_model *m = NULL;
    if (tsgs_model_load(o->positional[0], &m, &err)) {
        cli_error(&err);
        return 1;
    }
    if (o->probability_out && !tsgs_model_has_probability(m)) {
        fprintf(stderr, "ERROR: %s: -b 1: the model has no probability "
                        "outputs; train it with -b 1 (--probability 1)\n",
                o->positional[0]);
        tsgs_model_free(m);
        return 1;
    }
    *out = m;
    return 0;
}

/* Opens TEST_FILE, read as the model's training file was where the user
 * says nothing else (*layout: the model's; `taken`: the options taken
 * from it, in words). From here a stop abandons the output: OUTPUT_FILE
 * keeps what it held. Returns 0, 1 after an error (printed), or 128 + a
 * signal that stopped it (said). */
static int open_test_file(cli_opts *o, const tsgs_model *model,
                          tsgs_data_layout *layout, char *taken,
                          size_t size, tsgs_reader **rd)
{
    tsgs_error err;
    tsgs_model_layout(model, layout);
    cli_apply_layout(o, layout, o->positional[1], taken, size);
    o->read.min_features = tsgs_model_features_in(model);
    cli_catch_stops(NULL);
    const tsgs_read_options ro = cli_read_options(o);
    if (tsgs_reader_open(cli_path(o->positional[1], 0), &ro, rd, &err) ==
        TSGS_OK)
        return 0;
    if (err.code == TSGS_ERR_STOPPED && cli_stop_signal)
        return stopped(&(output){NULL, NULL, NULL}, output_path(o), &err);
    cli_error(&err);
    layout_note(o->positional[1], taken, &err);
    return 1;
}

/* After the pass: svm-predict's accuracy line unless quiet (on standard
 * error when the lines went to standard output), and standard output
 * flushed. Returns 0, or 1 after an error (printed). */
static int finish(const cli_opts *o, const pass *p)
{
    const char *out = output_path(o);
    const int to_stdout = out && strcmp(out, "-") == 0;
    if (!o->quiet)
        cli_print_tally(to_stdout ? stderr : stdout, "Accuracy",
                        o->positional[1], p->model, &p->tally, 0);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "ERROR: writing to stdout failed\n");
        return 1;
    }
    return 0;
}

int cmd_predict(int argc, char **argv)
{
    cli_opts o;
    cli_opts_init(&o);
    tsgs_model *model = NULL;
    tsgs_reader *rd = NULL;
    tsgs_data_layout layout;
    char taken[256];
    pass p;
    memset(&p, 0, sizeof p);
    int rc = 1;
    if (cli_parse(&o, argc, argv, predict_keys))
        goto done;
    if (o.help) {
        usage();
        rc = 0;
        goto done;
    }
    if (check_arguments(&o) || load_model(&o, &model))
        goto done;
    if ((rc = open_test_file(&o, model, &layout, taken, sizeof taken,
                             &rd)) != 0)
        goto done;
    p.layout = &layout;
    p.taken = taken;
    p.o = &o;
    p.model = model;
    p.in = o.positional[1];
    p.d = tsgs_model_features_in(model);
    if ((rc = score_file(&p, rd, output_path(&o))) != 0)
        goto done;
    rc = finish(&o, &p);
done:
    free(p.scores);
    free(p.proba);
    tsgs_reader_close(rd);
    tsgs_model_free(model);
    cli_opts_free(&o);
    return rc;
}
