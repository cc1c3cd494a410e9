/* The command-line tool, end to end: build/tsgs3vm run as a child process
 * (fork + exec) on the small files of data/cli/, its exit status, stdout,
 * stderr and output files checked. This process never runs OpenMP itself:
 * only the children do. Run from tests/ (make test does). */
#define _DEFAULT_SOURCE /* realpath */
#include "fixtures.h"
#include "tsgs3vm.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define TOOL TEST_TOOL
#define DATA "data/cli/"
#define MAX_ARGS 32

static char dir[64];

static void setup(void)
{
    test_make_dir(dir, sizeof dir, "cli");
}

static void teardown(void)
{
    test_remove_dir(dir);
}

/* A path in the test's scratch directory (a ring of 16: a test holds a few
 * of them at a time; the helpers below use their own buffers). */
static const char *tmp(const char *name)
{
    static char buf[16][256];
    static int next;
    char *p = buf[next++ % 16];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

/* The whole file, NULL when it cannot be opened (fixtures.c). */
static char *slurp(const char *path) { return test_read_file(path, NULL); }

typedef struct {
    int status; /* exit status, or 1000 + signal when killed */
    char *out, *err;
} result;

static void result_free(result *r)
{
    free(r->out);
    free(r->err);
}

/* Where the next run's stdout goes instead of the scratch directory
 * (/dev/full: every write fails), or NULL. */
static const char *stdout_to;

/* Starts the tool with its stdout and stderr in the scratch directory;
 * 2 OpenMP threads so that runs are quick on any machine. */
/* The folder the next runs start in (NULL: the tests' own), and their
 * OMP_NUM_THREADS (NULL: 2). */
static const char *run_in, *omp_threads;
/* The next runs' RLIMIT_AS (soft and hard), 0: the tests' own. */
static rlim_t run_as_limit;

static pid_t start_v(const char *arg0, va_list ap)
{
    const char *argv[MAX_ARGS + 2];
    int n = 0;
    argv[n++] = TOOL;
    for (const char *a = arg0; a; a = va_arg(ap, const char *)) {
        ck_assert_int_lt(n, MAX_ARGS);
        argv[n++] = a;
    }
    argv[n] = NULL;
    char out[256], err[256];
    snprintf(out, sizeof out, "%s/.stdout", dir);
    snprintf(err, sizeof err, "%s/.stderr", dir);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fo = stdout_to ? open(stdout_to, O_WRONLY)
                           : open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(126);
        close(fo);
        close(fe);
        struct rlimit rl = {run_as_limit, run_as_limit};
        if (run_as_limit && setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(126);
        setenv("OMP_NUM_THREADS", omp_threads ? omp_threads : "2", 1);
        unsetenv("OMP_PROC_BIND");
        char tool[PATH_MAX];
        if (!realpath(TOOL, tool) || (run_in && chdir(run_in) != 0))
            _exit(126);
        execv(tool, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

static void finish(pid_t pid, result *r)
{
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
    ck_assert_msg(r->status != 127, "cannot run " TOOL " (make it first)");
    char out[256], err[256];
    snprintf(out, sizeof out, "%s/.stdout", dir);
    snprintf(err, sizeof err, "%s/.stderr", dir);
    r->out = stdout_to ? strdup("") : slurp(out);
    r->err = slurp(err);
    ck_assert_ptr_nonnull(r->out);
    ck_assert_ptr_nonnull(r->err);
    unlink(out);
    unlink(err);
}

/* Starts the tool without waiting for it (finish() waits). */
static pid_t start(const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    pid_t pid = start_v(arg0, ap);
    va_end(ap);
    return pid;
}

/* run(&r, "train", "--iterations", "5", FILE, MODEL, NULL) */
static void run(result *r, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    pid_t pid = start_v(arg0, ap);
    va_end(ap);
    finish(pid, r);
}

/* A failed run: nonzero status and an "ERROR:" line containing each of
 * the NULL-terminated strings. */
static void assert_error(const result *r, ...)
{
    ck_assert_msg(r->status != 0 && r->status < 1000,
                  "expected a failure exit, got %d; stderr: %s", r->status,
                  r->err);
    const char *line = strstr(r->err, "ERROR: ");
    ck_assert_msg(line && (line == r->err || line[-1] == '\n'),
                  "no line starting with \"ERROR: \" in: %s", r->err);
    const char *eol = strchr(line, '\n');
    size_t len = eol ? (size_t)(eol - line) : strlen(line);
    char msg[1024];
    snprintf(msg, sizeof msg, "%.*s", (int)len, line);
    va_list ap;
    va_start(ap, r);
    for (const char *want; (want = va_arg(ap, const char *));)
        ck_assert_msg(strstr(msg, want), "\"%s\" lacks \"%s\"", msg, want);
    va_end(ap);
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* No "*.tmp.*" file left in the scratch directory. */
static void assert_no_temp(void)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    while ((e = readdir(d)))
        ck_assert_msg(!strstr(e->d_name, ".tmp."), "temporary file %s left",
                      e->d_name);
    closedir(d);
}

/* The "read N rows x D features (L labeled, U unlabeled)" line. */
static void read_counts(const result *r, size_t *rows, size_t *labeled,
                        size_t *unlabeled)
{
    const char *s = strstr(r->err, "read ");
    ck_assert_msg(s, "no \"read\" line in: %s", r->err);
    size_t d;
    ck_assert_int_eq(sscanf(s, "read %zu rows x %zu features (%zu labeled, "
                               "%zu unlabeled)",
                            rows, &d, labeled, unlabeled),
                     4);
}

/* Labels of a LIBSVM file (the first token of every line). */
static size_t read_labels(const char *path, double *y, size_t max)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[4096];
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        ck_assert_uint_lt(n, max);
        y[n++] = strtod(line, NULL);
    }
    fclose(f);
    return n;
}

static void train_small(const char *model)
{
    result r;
    run(&r, "train", "--iterations", "20", "-q", DATA "train.svm", model,
        NULL);
    ck_assert_msg(r.status == 0, "train failed: %s", r.err);
    result_free(&r);
}

/* ------------------------------------------------------ train + predict */

START_TEST(train_then_predict)
{
    const char *model = tmp("m.model"), *out = tmp("out.txt");
    result r;
    run(&r, "train", "--iterations", "30", DATA "train.svm", model, NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "trained"));
    result_free(&r);
    char *text = slurp(model);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strncmp(text, "tsgs3vm-model 2\n", 16) == 0,
                  "model starts with: %.40s", text);
    free(text);

    run(&r, "predict", model, DATA "test.svm", out, NULL);
    ck_assert_msg(r.status == 0, "predict: %s", r.err);
    double pct;
    size_t k, n;
    /* svm-predict's line, to the byte: standard output holds it alone */
    int used = 0;
    ck_assert_msg(sscanf(r.out, "Accuracy = %lf%% (%zu/%zu) "
                                "(classification)\n%n",
                         &pct, &k, &n, &used) == 3 &&
                      r.out[used] == '\0',
                  "not svm-predict's accuracy line: %s", r.out);
    char want[96];
    snprintf(want, sizeof want, "Accuracy = %g%% (%zu/%zu) (classification)\n",
             (double)k / (double)n * 100, k, n);
    ck_assert_str_eq(r.out, want);
    result_free(&r);

    double truth[200];
    size_t nt = read_labels(DATA "test.svm", truth, 200);
    ck_assert_uint_eq(nt, 80);
    ck_assert_uint_eq(n, nt);
    /* svm-predict's layout: a line per row, the label alone */
    text = slurp(out);
    char *line = text, *end;
    ck_assert_ptr_nonnull(text);
    size_t rows = 0, right = 0;
    for (; *line; line = end + 1, rows++) {
        ck_assert_uint_lt(rows, nt);
        end = strchr(line, '\n');
        ck_assert_ptr_nonnull(end);
        ck_assert_msg(strncmp(line, "1\n", 2) == 0 ||
                          strncmp(line, "-1\n", 3) == 0,
                      "line %zu is not a label alone: %.40s", rows, line);
        right += atof(line) == truth[rows];
    }
    free(text);
    ck_assert_uint_eq(rows, nt);
    ck_assert_uint_eq(k, right);
    ck_assert_double_eq_tol(pct, 100.0 * (double)k / (double)n, 1e-4);
    /* --decision-values: the label, then its decision value, whose sign
     * is the label's; the same labels and accuracy line */
    const char *dv = tmp("dv.txt");
    run(&r, "predict", "--decision-values", model, DATA "test.svm", dv, NULL);
    ck_assert_msg(r.status == 0, "predict: %s", r.err);
    ck_assert_str_eq(r.out, want);
    result_free(&r);
    double y[200];
    ck_assert_uint_eq(read_labels(dv, y, 200), nt);
    FILE *f = fopen(dv, "r");
    ck_assert_ptr_nonnull(f);
    double label, dec;
    size_t rows_dv = 0, right_dv = 0;
    while (fscanf(f, "%lf %lf", &label, &dec) == 2) {
        ck_assert(label == 1.0 || label == -1.0);
        ck_assert((label > 0) == (dec > 0));
        right_dv += label == truth[rows_dv];
        rows_dv++;
    }
    ck_assert(feof(f));
    fclose(f);
    ck_assert_uint_eq(rows_dv, nt);
    ck_assert_uint_eq(right_dv, right);
    /* the probabilities' layout and the decision values: one or the
     * other; train has no such option */
    run(&r, "predict", "-b", "1", "--decision-values", model, DATA "test.svm",
        dv, NULL);
    assert_error(&r, "-b 1 and --decision-values", NULL);
    result_free(&r);
    run(&r, "train", "--decision-values", DATA "train.svm", model, NULL);
    assert_error(&r, "unknown option --decision-values", NULL);
    result_free(&r);
    /* two overlapping classes: clearly better than chance, not perfect */
    ck_assert_uint_gt(k, n * 6 / 10);
    assert_no_temp();
}
END_TEST

START_TEST(train_with_test_file)
{
    result r;
    run(&r, "train", "--iterations", "20", "--test", DATA "test.svm",
        DATA "train.svm", tmp("m.model"), NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    double pct;
    size_t k, n;
    const char *line = strstr(r.out, "Test accuracy = ");
    ck_assert_msg(line, "no test accuracy in: %s", r.out);
    ck_assert_int_eq(sscanf(line, "Test accuracy = %lf%% (%zu/%zu)", &pct, &k,
                            &n),
                     3);
    ck_assert_uint_eq(n, 80);
    ck_assert_double_eq_tol(pct, 100.0 * (double)k / (double)n, 0.006);
    /* ten intermediate measurements on the whole (small) test file */
    ck_assert_ptr_nonnull(strstr(r.err, "test accuracy "));
    ck_assert_ptr_null(strstr(r.err, "-row sample"));
    result_free(&r);
    /* the default solver reports its stages, the last with the test
     * accuracy, and no rate of rows (it has stages, not steps) */
    run(&r, "train", "--test", DATA "test.svm", DATA "train.svm",
        tmp("m.model"), NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    ck_assert_msg(strstr(r.err, "stage 3/3: model done, elapsed ") &&
                      strstr(r.err, "test accuracy "),
                  "%s", r.err);
    ck_assert_msg(!strstr(r.err, "rows/s"), "%s", r.err);
    result_free(&r);
}
END_TEST

/* More than 20,000 labeled test rows: the measurements during training use
 * a 20,000-row sample, the final line the whole file. */
START_TEST(test_file_sample)
{
    const char *big = tmp("big.svm");
    FILE *f = fopen(big, "w");
    ck_assert_ptr_nonnull(f);
    const size_t rows = 20050;
    for (size_t i = 0; i < rows; i++) {
        int y = i % 2 ? 1 : -1;
        fprintf(f, "%+d 1:%.2f 2:%.2f 3:%.2f 4:%.2f\n", y,
                0.6 * y + 0.01 * (double)(i % 97), 0.6 * y,
                0.6 * y - 0.01 * (double)(i % 89), 0.6 * y);
    }
    ck_assert_int_eq(fclose(f), 0);
    result r;
    run(&r, "train", "--iterations", "10", "--test-every", "5", "--test", big,
        DATA "train.svm", tmp("m.model"), NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    ck_assert_msg(strstr(r.err, "test accuracy (20000-row sample) "),
                  "no sample accuracy in: %s", r.err);
    double pct;
    size_t k, n;
    const char *line = strstr(r.out, "Test accuracy = ");
    ck_assert_ptr_nonnull(line);
    ck_assert_int_eq(sscanf(line, "Test accuracy = %lf%% (%zu/%zu)", &pct, &k,
                            &n),
                     3);
    ck_assert_uint_eq(n, rows);
    result_free(&r);
}
END_TEST

/* ----------------------------------------------------------------- help */

START_TEST(help_lists_every_key)
{
    result r;
    run(&r, "train", "--help", NULL);
    ck_assert_int_eq(r.status, 0);
    tsgs_params def = tsgs_params_default();
    char value[64], want[128];
    const char *key;
    size_t keys = 0;
    for (size_t i = 0; (key = tsgs_params_key(i, &def, value, sizeof value,
                                              NULL));
         i++, keys++) {
        /* a line "  --KEY   DEFAULT   help" */
        snprintf(want, sizeof want, "\n  --%s ", key);
        const char *line = strstr(r.out, want);
        ck_assert_msg(line, "--help lacks --%s", key);
        char k2[64], v2[64];
        ck_assert_int_eq(sscanf(line, " %63s %63s", k2, v2), 2);
        ck_assert_msg(strcmp(v2, value) == 0, "--%s: default %s, help says %s",
                      key, value, v2);
    }
    ck_assert_uint_gt(keys, 20);
    /* the tool's own options too */
    const char *own[] = {"--labeled", "--unlabeled", "--unlabeled-label",
                         "--test", "--test-every", "--format", "--config FILE",
                         "-c C", "-g GAMMA"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        ck_assert_msg(strstr(r.out, own[i]), "--help lacks %s", own[i]);
    ck_assert_str_eq(r.err, "");
    result_free(&r);

    run(&r, "predict", "--help", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "--threads"));
    result_free(&r);
}
END_TEST

/* ------------------------------------------------------------ bad input */

START_TEST(bad_options)
{
    const char *model = tmp("m.model");
    result r;
    run(&r, "train", "--bogus", "1", DATA "train.svm", model, NULL);
    assert_error(&r, "unknown option", "bogus", NULL);
    result_free(&r);
    run(&r, "train", DATA "train.svm", model, "--c", NULL);
    assert_error(&r, "--c", "needs a value", NULL);
    result_free(&r);
    run(&r, "train", "--c", "--iterations", "5", DATA "train.svm", model,
        NULL);
    assert_error(&r, "--c", "needs a value", NULL);
    result_free(&r);
    run(&r, "train", "--c", "abc", DATA "train.svm", model, NULL);
    assert_error(&r, "cost = \"abc\"", NULL);
    result_free(&r);
    run(&r, "train", "--threads", "-1", DATA "train.svm", model, NULL);
    assert_error(&r, "threads", "-1", NULL);
    result_free(&r);
    run(&r, "train", "--labeled=-5", DATA "train.svm", model, NULL);
    assert_error(&r, "labeled", "-5", NULL);
    result_free(&r);
    run(&r, "train", "-x", DATA "train.svm", model, NULL);
    assert_error(&r, "unknown option", "-x", NULL);
    result_free(&r);
    run(&r, "predict", "--c", "1", model, DATA "test.svm", NULL);
    assert_error(&r, "unknown option", "--c", NULL);
    result_free(&r);
    run(&r, "frobnicate", NULL);
    assert_error(&r, "unknown command", "frobnicate", NULL);
    result_free(&r);
    ck_assert(!file_exists(model));
}
END_TEST

/* A file whose one feature index lies far beyond the others is refused
 * before training, quickly, naming the file, its shape and --max-memory;
 * an explicit limit applies to any file, and 0 lifts it. */
START_TEST(memory_refused_up_front)
{
    const char *wide = tmp("wide.svm");
    FILE *f = fopen(wide, "w");
    ck_assert_ptr_nonnull(f);
    fputs("+1 1:1 9999999:2\n-1 2:1\n", f);
    fclose(f);
    const char *model = tmp("m.model");
    result r;
    /* sparse rows train in little memory; orthogonal directions need
     * d-wide panels, which the estimate refuses */
    run(&r, "train", "--max-memory", "8G", "--directions", "orthogonal",
        wide, model, NULL);
    assert_error(&r, "wide.svm", "2 rows x 9999999 features", "GB",
                 "--max-memory", NULL);
    result_free(&r);
    run(&r, "train", "--max-memory", "1K", DATA "train.svm", model, NULL);
    assert_error(&r, "train.svm", "more than the 1.0 KB allowed", NULL);
    result_free(&r);
    run(&r, "cv", "--max-memory", "1K", "--grid", "c=1,10", DATA "train.svm",
        NULL);
    assert_error(&r, "train.svm", "--max-memory", NULL);
    result_free(&r);
    run(&r, "train", "--max-memory", "lots", DATA "train.svm", model, NULL);
    assert_error(&r, "max-memory", "lots", NULL);
    result_free(&r);
    ck_assert(!file_exists(model));
    run(&r, "train", "-q", "--max-memory", "0", "--solver", "dsg",
        DATA "train.svm", model, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    result_free(&r);
    ck_assert(file_exists(model));
}
END_TEST

/* A CSV of two rows (labels 1 and -1) of `cols` columns of 0..9. */
static void write_wide_csv(const char *path, size_t cols)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    for (int r = 0; r < 2; r++) {
        fputs(r ? "-1" : "1", f);
        for (size_t j = 0; j < cols; j++)
            fprintf(f, ",%zu", (j * 7 + (size_t)r * 3) % 10);
        fputc('\n', f);
    }
    ck_assert_int_eq(fclose(f), 0);
}

/* Width alone: a CSV of 2 rows x 20,000 columns (an 80 KB file) needs a
 * d-wide direction panel and orthogonal group per grid thread, about 200
 * MB, which --max-memory refuses before training, naming the file, the
 * rows x columns and the bytes needed and allowed. */
START_TEST(wide_rows_refused_naming_the_input)
{
    const char *wide = tmp("wide.csv"), *model = tmp("m.model");
    write_wide_csv(wide, 20000);
    result r;
    run(&r, "train", "--max-memory", "64M", wide, model, NULL);
    assert_error(&r, "wide.csv: 2 rows x 20000 features", "training needs "
                 "about", "MB", "more than the 64.0 MB allowed", NULL);
    result_free(&r);
    run(&r, "cv", "--max-memory", "64M", "--grid", "c=1,10", wide, NULL);
    assert_error(&r, "wide.csv: 2 rows x 20000 features", "64.0 MB", NULL);
    result_free(&r);
    ck_assert(!file_exists(model));
}
END_TEST

/* Width alone, in time: the default makes some 10,000 directions as wide
 * as the input, so 2 rows x 20,000 columns are estimated at seconds and
 * --max-time 1 refuses them before any work, naming the file, its shape,
 * the estimate and the ways out; with C and sigma given and 64 features
 * the same file trains, a sparse file as wide trains (its directions are
 * as wide as its non-zeros' columns), --max-time 0 lifts the check, and a
 * bad value is named. */
START_TEST(wide_rows_refused_by_their_time)
{
    const char *wide = tmp("wide.csv"), *model = tmp("m.model");
    write_wide_csv(wide, 20000);
    result r;
    run(&r, "train", "--max-time", "1", wide, model, NULL);
    assert_error(&r, "wide.csv: 2 rows x 20000 features", "estimated at",
                 "more than --max-time 1 s", "not the rows", "sparse rows",
                 "--max-features", "--max-time 0", NULL);
    ck_assert_ptr_null(strstr(r.err, "iter "));
    result_free(&r);
    ck_assert(!file_exists(model));
    run(&r, "cv", "--max-time", "1", "--grid", "c=1,10", wide, NULL);
    assert_error(&r, "wide.csv: 2 rows x 20000 features", "estimated at",
                 "--max-time 1 s", NULL);
    result_free(&r);
    run(&r, "train", "-q", "--max-time", "1", "--sigma", "0.001", "-c", "1",
        "--max-features", "64", wide, model, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    result_free(&r);
    ck_assert(file_exists(model));
    const char *sparse = tmp("wide.svm");
    FILE *f = fopen(sparse, "w");
    ck_assert_ptr_nonnull(f);
    fputs("+1 1:1 5:2 200000:1\n-1 2:1 7:1 199999:3\n", f);
    ck_assert_int_eq(fclose(f), 0);
    run(&r, "train", "-q", "--max-time", "1", sparse, model, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    result_free(&r);
    static const char *const bad[] = {"-1", "soon", "1e13"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run(&r, "train", "--max-time", bad[i], DATA "train.svm", model, NULL);
        assert_error(&r, "max-time", bad[i], NULL);
        result_free(&r);
    }
}
END_TEST

/* CPU seconds the children waited for so far (user + system). */
static double children_cpu(void)
{
    struct rusage ru;
    ck_assert_int_eq(getrusage(RUSAGE_CHILDREN, &ru), 0);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* Issue #30's two wide inputs, as they were: a 2-row CSV of 1,000,000
 * columns (the default: minutes of directions) and 40 short LIBSVM rows
 * with one of 10,000,000 non-zeros under --solver tsg --iterations 30.
 * Each is refused with its estimate, no model written, within a second of
 * the tool's CPU time (reading the 10^7-entry row included; CPU, not
 * wall: a shared machine's load would stretch wall time). */
START_TEST(issue_wide_inputs_refused_within_a_second)
{
    const char *csv = tmp("w.csv"), *svm = tmp("w.svm"), *model = tmp("m");
    write_wide_csv(csv, 1000000);
    FILE *f = fopen(svm, "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 40; i++)
        fprintf(f, "%s %d:1\n", i % 2 ? "1" : "-1", i + 1);
    fputs("1", f);
    for (unsigned j = 1; j <= 10000000; j++)
        fprintf(f, " %u:1", j);
    fputc('\n', f);
    ck_assert_int_eq(fclose(f), 0);
    result r;
    double cpu = children_cpu();
    run(&r, "train", csv, model, NULL);
    cpu = children_cpu() - cpu;
    assert_error(&r, "w.csv: 2 rows x 1000000 features", "estimated at",
                 "--max-time", NULL);
    ck_assert_msg(cpu < 1.0, "refused after %.2f s of CPU", cpu);
    result_free(&r);
    cpu = children_cpu();
    run(&r, "train", "--solver", "tsg", "--iterations", "30", svm, model,
        NULL);
    cpu = children_cpu() - cpu;
    assert_error(&r, "w.svm: 41 rows x 10000000 features", "estimated at",
                 "--max-time", NULL);
    ck_assert_msg(cpu < 1.0, "refused after %.2f s of CPU", cpu);
    result_free(&r);
    ck_assert(!file_exists(model));
    ck_assert_int_eq(unlink(svm), 0);
}
END_TEST

/* --max-memory auto honours the process's address-space limit: 2 rows x
 * 400,000 columns need a 1.6 GB panel, refused under a 1 GiB RLIMIT_AS
 * (ulimit -v) naming it, where the machine's free memory would have let
 * it through; with the check off (--max-memory 0) the allocation that
 * fails names the input and its shape all the same. */
START_TEST(auto_limit_honours_rlimit_as)
{
#if defined(__SANITIZE_ADDRESS__)
    /* ASan reserves terabytes of address space: no limit can be set */
    test_skip("cli auto_limit_honours_rlimit_as", "built with ASan");
    return;
#endif
    struct rlimit now;
    ck_assert_int_eq(getrlimit(RLIMIT_AS, &now), 0);
    if (now.rlim_max != RLIM_INFINITY && now.rlim_max < ((rlim_t)1 << 30)) {
        test_skip("cli auto_limit_honours_rlimit_as", "hard RLIMIT_AS < 1 GiB");
        return;
    }
    const char *wide = tmp("wide.csv"), *model = tmp("m.model");
    write_wide_csv(wide, 400000);
    run_as_limit = (rlim_t)1 << 30;
    result r;
    run(&r, "train", wide, model, NULL);
    assert_error(&r, "wide.csv: 2 rows x 400000 features", "training needs "
                 "about", "(RLIMIT_AS; --max-memory auto)", NULL);
    result_free(&r);
    run(&r, "train", "-q", "--max-memory", "0", "--max-time", "0", wide,
        model, NULL);
    run_as_limit = 0;
    assert_error(&r, "wide.csv: 2 rows x 400000 features: out of memory",
                 "can still allocate", "(RLIMIT_AS)", NULL);
    result_free(&r);
    ck_assert(!file_exists(model));
}
END_TEST

/* OMP_NUM_THREADS above --threads' cap is refused before the OpenMP
 * runtime starts a team (100,000 overflowed its stack: SIGSEGV), at any
 * level of its list; a modest value runs. */
START_TEST(thread_count_from_the_environment_capped)
{
    static const char *const bad[] = {"100000", "4,100000",
                                      "99999999999999999999"};
    result r;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        omp_threads = bad[i];
        run(&r, "train", "-q", DATA "train.svm", tmp("m.model"), NULL);
        omp_threads = NULL;
        assert_error(&r, "OMP_NUM_THREADS", "at most 4096", NULL);
        result_free(&r);
    }
    omp_threads = "3";
    run(&r, "train", "-q", DATA "train.svm", tmp("m.model"), NULL);
    omp_threads = NULL;
    ck_assert_msg(r.status == 0, "%s", r.err);
    result_free(&r);
}
END_TEST

START_TEST(bad_arguments)
{
    const char *model = tmp("m.model");
    result r;
    /* no MODEL_FILE: svm-train's name, TRAIN_FILE's base name + ".model"
     * in the current folder; standard input needs one */
    char train_abs[PATH_MAX];
    ck_assert_ptr_nonnull(realpath(DATA "train.svm", train_abs));
    run_in = dir;
    run(&r, "train", "-q", train_abs, NULL);
    run_in = NULL;
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert(file_exists(tmp("train.svm.model")));
    result_free(&r);
    run(&r, "train", "-", NULL);
    assert_error(&r, "needs a MODEL_FILE", NULL);
    result_free(&r);
    run(&r, "train", DATA "train.svm", model, "extra", NULL);
    assert_error(&r, "TRAIN_FILE", NULL);
    result_free(&r);
    run(&r, "predict", model, NULL);
    assert_error(&r, "MODEL_FILE", "TEST_FILE", NULL);
    result_free(&r);
    run(&r, "topology", "extra", NULL);
    assert_error(&r, "extra", NULL);
    result_free(&r);
    run(&r, "train", DATA "no-such-file.svm", model, NULL);
    assert_error(&r, "no-such-file.svm", "cannot open", NULL);
    result_free(&r);
    run(&r, "train", "--unlabeled", DATA "no-such.svm", DATA "train.svm",
        model, NULL);
    assert_error(&r, "no-such.svm", NULL);
    result_free(&r);
    /* a model in a folder that does not exist: refused before reading */
    run(&r, "train", DATA "train.svm", tmp("no/such/dir/m.model"), NULL);
    assert_error(&r, "no/such/dir", "does not exist", NULL);
    ck_assert_ptr_null(strstr(r.err, "read "));
    result_free(&r);
    /* one class among the labeled rows: the error names the file */
    const char *one = tmp("one.svm");
    FILE *f = fopen(one, "w");
    fputs("1 1:0.5\n1 1:0.7\n1 1:0.1\n", f);
    fclose(f);
    run(&r, "train", one, model, NULL);
    assert_error(&r, one, "two classes", NULL);
    result_free(&r);
    remove(one);
    /* a test file with features the training rows never had: LIBSVM
     * ignores them, with a warning naming the file and the count */
    run(&r, "train", "-q", "--test", DATA "wide.svm", DATA "train.svm",
        model, NULL);
    ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "warning: " DATA "wide.svm: features 5..7"));
    ck_assert_ptr_nonnull(strstr(r.err, "1 nonzero values are ignored"));
    result_free(&r);
    remove(model);
}
END_TEST

START_TEST(predict_bad_inputs)
{
    const char *model = tmp("m.model"), *out = tmp("out.txt");
    train_small(model);
    result r;
    run(&r, "predict", model, DATA "wide.svm", out, NULL);
    ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "1 nonzero values are ignored"));
    result_free(&r);
    ck_assert(file_exists(out));
    remove(out);
    run(&r, "predict", DATA "notamodel.txt", DATA "test.svm", out, NULL);
    assert_error(&r, "notamodel.txt", "not a tsgs3vm model", NULL);
    result_free(&r);
    run(&r, "predict", DATA "train.svm", DATA "test.svm", out, NULL);
    assert_error(&r, "train.svm", NULL);
    result_free(&r);
    run(&r, "predict", tmp("no-model"), DATA "test.svm", out, NULL);
    assert_error(&r, "no-model", NULL);
    result_free(&r);
    ck_assert(!file_exists(out));
    /* an output file that cannot be written */
    run(&r, "predict", model, DATA "test.svm", tmp("no-dir/out.txt"), NULL);
    assert_error(&r, "no-dir/out.txt", NULL);
    result_free(&r);
    assert_no_temp();
}
END_TEST

/* predict scores a file larger than its block of rows (65,536) block by
 * block: a multi-class model, with and without -b 1, on the 60 rows of a
 * three-class file repeated 1200 times (72,000 rows) writes the 60 rows'
 * lines 1200 times (after one "labels" line with -b 1), the same bytes
 * in every block, and an accuracy line of the summed counts. */
START_TEST(predict_in_blocks_same_lines)
{
    const char *small = tmp("three.svm"), *big = tmp("big.svm"),
               *model = tmp("m3.model"), *o_small = tmp("small.txt"),
               *o_big = tmp("big.txt");
    FILE *f = fopen(small, "w"), *g = fopen(big, "w");
    ck_assert(f && g);
    for (int i = 0; i < 60; i++)
        fprintf(f, "%d 1:%g 2:%g\n", 10 * (i % 3 + 1),
                (i % 3) * 2.0 + 0.3 * (i % 7),
                (i % 3 == 1) * 1.5 + 0.2 * (i % 5));
    ck_assert_int_eq(fclose(f), 0);
    char *text = slurp(small);
    ck_assert_ptr_nonnull(text);
    for (int k = 0; k < 1200; k++)
        fputs(text, g);
    ck_assert_int_eq(fclose(g), 0);
    free(text);
    result r;
    run(&r, "train", "-q", "-b", "1", "--iterations", "50", small, model,
        NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    result_free(&r);
    for (int b1 = 0; b1 <= 1; b1++) {
        const char *b = b1 ? "1" : "0";
        size_t right, n, right_big, n_big;
        run(&r, "predict", "-b", b, model, small, o_small, NULL);
        ck_assert_msg(r.status == 0, "predict: %s", r.err);
        ck_assert_int_eq(sscanf(r.out, "Accuracy = %*f%% (%zu/%zu)", &right,
                                &n), 2);
        result_free(&r);
        run(&r, "predict", "-b", b, model, big, o_big, NULL);
        ck_assert_msg(r.status == 0, "predict: %s", r.err);
        ck_assert_int_eq(sscanf(r.out, "Accuracy = %*f%% (%zu/%zu)",
                                &right_big, &n_big), 2);
        result_free(&r);
        ck_assert_uint_eq(n, 60);
        ck_assert_uint_eq(n_big, 1200 * n);
        ck_assert_uint_eq(right_big, 1200 * right);
        size_t len, len_big;
        char *a = test_read_file(o_small, &len);
        char *c = test_read_file(o_big, &len_big);
        ck_assert(a && c);
        size_t head = 0; /* the "labels" line, once */
        if (b1) {
            head = (size_t)(strchr(a, '\n') - a) + 1;
            ck_assert(strncmp(a, "labels 10 20 30\n", head) == 0);
        }
        ck_assert_uint_eq(len_big - head, 1200 * (len - head));
        ck_assert(memcmp(c, a, head) == 0);
        for (size_t k = 0; k < 1200; k++)
            ck_assert_msg(memcmp(c + head + k * (len - head), a + head,
                                 len - head) == 0,
                          "copy %zu of the rows scored otherwise", k);
        free(a);
        free(c);
    }
    assert_no_temp();
}
END_TEST

/* A row of 20 non-zeros among 9000 features (columns ascending), from a
 * small LCG seeded by the caller. */
static void put_sparse_row(FILE *f, int label, unsigned *seed)
{
    fprintf(f, "%d", label);
    for (int c = 1 + (int)(*seed % 400); c <= 9000; c += 1 + (int)(*seed % 800)) {
        *seed = *seed * 1103515245u + 12345u;
        fprintf(f, " %d:%.4f", c, (double)(*seed >> 16 & 0x7fff) / 32768.0);
    }
    fputc('\n', f);
}

/* Wide sparse rows (9000 features, an iid-direction model that scores
 * them with the sparse kernel) and, in the middle, a few rows of every
 * feature: a block of 20 rows holding those is mostly non-zeros, the file
 * is not. Scored 20 rows a block or whole, every row is stored and scored
 * alike: the same bytes. */
START_TEST(predict_wide_sparse_same_bytes_any_block)
{
    const char *train = tmp("wide-train.svm"), *test = tmp("wide-test.svm"),
               *model = tmp("wide.model"), *whole = tmp("whole.txt"),
               *blocks = tmp("blocks.txt");
    FILE *f = fopen(train, "w"), *g = fopen(test, "w");
    ck_assert(f && g);
    unsigned seed = 7;
    for (int i = 0; i < 200; i++)
        put_sparse_row(f, i % 2 ? 1 : -1, &seed);
    ck_assert_int_eq(fclose(f), 0);
    for (int i = 0; i < 84; i++) {
        if (i < 40 || i >= 44) {
            put_sparse_row(g, i % 2 ? 1 : -1, &seed);
            continue;
        }
        fputc('1', g);
        for (int c = 1; c <= 9000; c++)
            fprintf(g, " %d:%.3f", c, (double)(c % 97) / 97.0);
        fputc('\n', g);
    }
    ck_assert_int_eq(fclose(g), 0);
    result r;
    run(&r, "train", "-q", "--iterations", "50", train, model, NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    result_free(&r);
    run(&r, "predict", "-q", model, test, whole, NULL);
    ck_assert_msg(r.status == 0, "predict: %s", r.err);
    result_free(&r);
    /* (the child inherits it; this process never predicts) */
    setenv("TSGS3VM_PREDICT_BLOCK_ROWS", "20", 1);
    run(&r, "predict", "-q", model, test, blocks, NULL);
    unsetenv("TSGS3VM_PREDICT_BLOCK_ROWS");
    ck_assert_msg(r.status == 0, "predict: %s", r.err);
    result_free(&r);
    size_t la, lb;
    char *a = test_read_file(whole, &la), *b = test_read_file(blocks, &lb);
    ck_assert(a && b);
    ck_assert_uint_eq(la, lb);
    ck_assert_msg(memcmp(a, b, la) == 0, "scored otherwise in blocks of 20");
    free(a);
    free(b);
    assert_no_temp();
}
END_TEST

/* A predict killed while it writes leaves OUT as it was and its temporary
 * OUT.tmp.<pid>.<n>, which the next predict of OUT removes (its process is
 * gone); a temporary of a process still running (this one) is kept, and
 * of the earlier tool's OUT.tmp.XXXXXX the stale one is removed, a fresh
 * one kept. The
 * input is a pipe kept open, so the run is caught writing: the output is
 * written before the input ends. */
START_TEST(predict_killed_leaves_a_temporary_the_next_removes)
{
    const char *model = tmp("m.model"), *out = tmp("out.txt"),
               *fifo = tmp("in.fifo");
    train_small(model);
    char live[256];
    snprintf(live, sizeof live, "%s.tmp.%ld.0", out, (long)getpid());
    FILE *f = fopen(live, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    signal(SIGPIPE, SIG_IGN);
    pid_t pid = start("predict", "-q", model, fifo, out, NULL);
    int fd = open(fifo, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    /* 6.5 MB: more than the reader's 4 MiB buffer, several blocks */
    static const char row[] = "1 1:0.5 2:0.25 3:1 4:-1\n";
    char buf[24 * 1024];
    for (size_t k = 0; k + sizeof row - 1 <= sizeof buf; k += sizeof row - 1)
        memcpy(buf + k, row, sizeof row - 1);
    for (int k = 0; k < 270; k++)
        ck_assert_int_eq(write(fd, buf, sizeof buf), (ssize_t)sizeof buf);
    char prefix[64], stale[512] = "";
    snprintf(prefix, sizeof prefix, "out.txt.tmp.%ld.", (long)pid);
    for (int wait = 0; wait < 400 && !stale[0]; wait++) {
        DIR *d = opendir(dir);
        ck_assert_ptr_nonnull(d);
        for (struct dirent *e; (e = readdir(d));)
            if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
                snprintf(stale, sizeof stale, "%s/%s", dir, e->d_name);
        closedir(d);
        if (!stale[0])
            usleep(50000);
    }
    ck_assert_msg(stale[0], "no %s* while predict writes", prefix);
    ck_assert_int_eq(kill(pid, SIGKILL), 0);
    result r;
    finish(pid, &r);
    ck_assert_int_eq(r.status, 1000 + SIGKILL);
    result_free(&r);
    close(fd);
    ck_assert(!file_exists(out));
    ck_assert(file_exists(stale));
    /* the earlier tool's mkstemp temporaries: one a killed run left two
     * hours ago (mode 0600), one written a minute ago */
    char old_stale[256], old_fresh[256];
    snprintf(old_stale, sizeof old_stale, "%s.tmp.Xb7Q2k", out);
    snprintf(old_fresh, sizeof old_fresh, "%s.tmp.Fr3sh9", out);
    for (int k = 0; k < 2; k++) {
        const char *p = k ? old_fresh : old_stale;
        int ofd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
        ck_assert_int_ge(ofd, 0);
        ck_assert_int_eq(write(ofd, "1 0.5\n", 6), 6);
        struct timespec t[2];
        ck_assert_int_eq(clock_gettime(CLOCK_REALTIME, &t[0]), 0);
        t[0].tv_sec -= k ? 60 : 7200;
        t[1] = t[0];
        ck_assert_int_eq(futimens(ofd, t), 0);
        ck_assert_int_eq(close(ofd), 0);
    }
    run(&r, "predict", "-q", model, DATA "test.svm", out, NULL);
    ck_assert_msg(r.status == 0, "predict: %s", r.err);
    result_free(&r);
    ck_assert_msg(!file_exists(stale), "%s left", stale);
    ck_assert_msg(!file_exists(old_stale), "%s left", old_stale);
    ck_assert(file_exists(old_fresh));
    unlink(old_fresh);
    ck_assert(file_exists(live));
    char *text = slurp(out);
    ck_assert_ptr_nonnull(text);
    size_t lines = 0;
    for (char *p = text; (p = strchr(p, '\n')); p++)
        lines++;
    ck_assert_uint_eq(lines, 80);
    free(text);
    unlink(live);
    unlink(fifo);
    assert_no_temp();
}
END_TEST

/* Labels other than the model's (0/1 against -1/+1) count as wrong, and the
 * tool says so. */
START_TEST(foreign_labels_warn)
{
    const char *model = tmp("m.model"), *t01 = tmp("t01.svm");
    train_small(model);
    char *text = slurp(DATA "test.svm");
    ck_assert_ptr_nonnull(text);
    FILE *f = fopen(t01, "w");
    ck_assert_ptr_nonnull(f);
    for (char *l = text; *l;) {
        char *eol = strchr(l, '\n');
        fprintf(f, "%s%.*s\n", strncmp(l, "-1", 2) == 0 ? "0" : "1",
                (int)(eol - l - 2), l + 2);
        l = eol + 1;
    }
    ck_assert_int_eq(fclose(f), 0);
    free(text);
    result r;
    run(&r, "predict", model, t01, NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_msg(strstr(r.err, "warning: ") && strstr(r.err, "40 of 80"),
                  "%s", r.err);
    result_free(&r);
    /* SVMlight's 0 = unlabeled at predict too: those rows are scored, not
     * counted, and no warning */
    run(&r, "predict", "--unlabeled-label", "0", model, t01, NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_msg(!strstr(r.err, "warning") && strstr(r.out, "/40)"),
                  "%s%s", r.out, r.err);
    result_free(&r);
}
END_TEST

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* A CSV whose header names its label column last trains two classes
 * with no option; read from the first column instead, its label is a
 * feature of 40 distinct real values, refused before any work with the
 * fix named; SVMlight's -1 / 0 / +1 gets a warning naming
 * --unlabeled-label 0. */
START_TEST(label_column_by_header_and_label_like_features)
{
    const char *csv = tmp("last.csv"), *model = tmp("m.model");
    char text[8192];
    size_t k = (size_t)snprintf(text, sizeof text, "f1,f2,label\n");
    for (int i = 0; i < 40; i++)
        k += (size_t)snprintf(text + k, sizeof text - k, "%.3f,%d,%d\n",
                              0.013 * i + 0.1, i % 7, i % 2 ? 1 : -1);
    write_text(csv, text);
    result r;
    run(&r, "train", csv, model, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(!strstr(r.err, "one-vs-rest"), "%s", r.err);
    result_free(&r);
    run(&r, "train", "--label-column", "1", csv, model, NULL);
    assert_error(&r, csv, "40 distinct values", "--label-column last", NULL);
    result_free(&r);
    run(&r, "cv", "--label-column", "1", csv, NULL);
    assert_error(&r, "a feature, not classes", NULL);
    result_free(&r);
    const char *svm = tmp("t.svm");
    write_text(svm, "-1 1:1\n0 1:2\n1 1:3\n-1 1:1.5\n1 1:3.2\n0 1:0.5\n"
                    "-1 1:1.2\n1 1:2.9\n");
    run(&r, "train", "-q", svm, model, NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_msg(strstr(r.err, "warning: ") &&
                      strstr(r.err, "--unlabeled-label 0"),
                  "%s", r.err);
    result_free(&r);
    run(&r, "train", "-q", "--unlabeled-label", "0", svm, model, NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_msg(!strstr(r.err, "warning"), "%s", r.err);
    result_free(&r);
}
END_TEST

/* Outputs that are not regular files: a model must not replace them; the
 * predictions are written into them. */
START_TEST(special_files)
{
    const char *fifo = tmp("fifo"), *model = tmp("m.model");
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    result r;
    run(&r, "train", "--iterations", "5", DATA "train.svm", fifo, NULL);
    assert_error(&r, "fifo", "not a regular file", NULL);
    result_free(&r);
    struct stat st;
    ck_assert_int_eq(stat(fifo, &st), 0);
    ck_assert(S_ISFIFO(st.st_mode));

    train_small(model);
    int fd = open(fifo, O_RDONLY | O_NONBLOCK); /* 80 lines fit the pipe */
    ck_assert_int_ge(fd, 0);
    run(&r, "predict", "-q", model, DATA "test.svm", fifo, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    result_free(&r);
    char buf[16384];
    ssize_t k, len = 0;
    while ((k = read(fd, buf + len, sizeof buf - 1 - (size_t)len)) > 0)
        len += k;
    close(fd);
    buf[len] = '\0';
    size_t lines = 0;
    for (char *p = buf; (p = strchr(p, '\n')); p++)
        lines++;
    ck_assert_uint_eq(lines, 80);
    ck_assert_int_eq(stat(fifo, &st), 0);
    ck_assert(S_ISFIFO(st.st_mode));
    assert_no_temp();
}
END_TEST

/* ---------------------------------------------------------- config files */

START_TEST(config_unknown_key)
{
    result r;
    run(&r, "train", "--config", DATA "unknown_key.conf", DATA "train.svm",
        tmp("m.model"), NULL);
    assert_error(&r, "unknown_key.conf:4", "bogus-key", NULL);
    result_free(&r);
    run(&r, "train", "--config", DATA "no-such.conf", DATA "train.svm",
        tmp("m.model"), NULL);
    assert_error(&r, "no-such.conf", NULL);
    result_free(&r);
    run(&r, "train", DATA "train.svm", tmp("m.model"), "--config", NULL);
    assert_error(&r, "--config", NULL);
    result_free(&r);
    /* the config file's old flag: -c is svm-train's cost now */
    run(&r, "train", "-c", DATA "seed.conf", DATA "train.svm", tmp("m.model"),
        NULL);
    assert_error(&r, "-c", "cost C", "--config " DATA "seed.conf", NULL);
    result_free(&r);
}
END_TEST

static void assert_model_line(const char *model, const char *line);
static int cv_table(const char *out, int naxes, double *acc, int max);

/* Three label values: train one-vs-rest; predict writes the label and one
 * decision value per class, in the file's label values. */
START_TEST(multiclass_train_predict)
{
    const char *data = tmp("three.svm"), *model = tmp("m3.model"),
               *out = tmp("out3.txt");
    FILE *f = fopen(data, "w");
    for (int i = 0; i < 60; i++)
        fprintf(f, "%d 1:%g 2:%g\n", 10 * (i % 3 + 1),
                (i % 3) * 3.0 + 0.05 * (i % 7), (i % 3 == 1) * 2.0 + 0.03 * (i % 5));
    fclose(f);
    result r;
    /* progress names each class: every stage line of the default, and
     * the stochastic solver's step lines */
    run(&r, "train", data, model, NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    for (int c = 1; c <= 3; c++) {
        char want[64];
        snprintf(want, sizeof want, "class %d/3 (label %d): stage 3/3", c,
                 10 * c);
        ck_assert_msg(strstr(r.err, want), "no '%s' in: %s", want, r.err);
    }
    ck_assert_msg(!strstr(r.err, "\nstage "), "a stage line without its "
                  "class: %s", r.err);
    result_free(&r);
    run(&r, "train", "--solver", "tsg", "--iterations", "50", data, model,
        NULL);
    ck_assert_msg(r.status == 0, "train tsg: %s", r.err);
    ck_assert_msg(strstr(r.err, "class 3/3 (label 30): iter 50/50"), "%s",
                  r.err);
    result_free(&r);
    run(&r, "train", "-q", data, model, NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    result_free(&r);
    run(&r, "predict", model, data, out, NULL);
    ck_assert_msg(r.status == 0, "predict: %s", r.err);
    ck_assert_str_eq(r.out, "Accuracy = 100% (60/60) (classification)\n");
    result_free(&r);
    char *text = slurp(out);
    ck_assert_ptr_nonnull(text);
    ck_assert(strncmp(text, "10\n20\n30\n10\n", 12) == 0);
    free(text);
    /* --decision-values: the label, then each class's value */
    run(&r, "predict", "--decision-values=yes", model, data, out, NULL);
    ck_assert_msg(r.status == 0, "predict: %s", r.err);
    result_free(&r);
    text = slurp(out);
    ck_assert_ptr_nonnull(text);
    double label, s1, s2, s3;
    char extra;
    ck_assert_int_eq(sscanf(text, "%lf %lf %lf %lf%c", &label, &s1, &s2, &s3,
                            &extra), 5);
    ck_assert(label == 10.0 && extra == '\n');
    ck_assert(s1 > s2 && s1 > s3);
    free(text);
    /* -b 1: probabilities in svm-predict's layout, summing to 1 */
    run(&r, "predict", "-b", "1", model, data, out, NULL);
    assert_error(&r, "-b 1", "train it with -b 1", NULL);
    result_free(&r);
    run(&r, "train", "-q", "-b", "1", data, model, NULL);
    ck_assert_msg(r.status == 0, "train -b 1: %s", r.err);
    result_free(&r);
    run(&r, "predict", "-b", "1", model, data, out, NULL);
    ck_assert_msg(r.status == 0, "predict -b 1: %s", r.err);
    result_free(&r);
    text = slurp(out);
    ck_assert_ptr_nonnull(text);
    ck_assert(strncmp(text, "labels 10 20 30\n", 16) == 0);
    double p1, p2, p3;
    ck_assert_int_eq(sscanf(text + 16, "%lf %lf %lf %lf", &label, &p1, &p2, &p3), 4);
    ck_assert(label == 10.0);
    ck_assert_double_eq_tol(p1 + p2 + p3, 1.0, 1e-12);
    ck_assert(p1 > p2 && p1 > p3);
    free(text);
    remove(data);
    remove(model);
    remove(out);
}
END_TEST

/* With -c and -g given no grid runs: the summary says so, not "grid CV
 * 0.0%" (two classes, and one-vs-rest's first class); with -c alone the
 * grid over sigma runs and its CV rate is named. */
START_TEST(given_c_and_gamma_say_no_cv_ran)
{
    const char *model = tmp("m.model"), *three = tmp("three.svm");
    FILE *f = fopen(three, "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 30; i++)
        fprintf(f, "%d 1:%g\n", i % 3 + 1, (i % 3) * 2.0 + 0.05 * (i % 7));
    ck_assert_int_eq(fclose(f), 0);
    const char *files[] = {DATA "train.svm", three};
    result r;
    for (int k = 0; k < 2; k++) {
        run(&r, "train", "-c", "1", "-g", "0.5", files[k], model, NULL);
        ck_assert_msg(r.status == 0, "train: %s", r.err);
        ck_assert_msg(strstr(r.err, "safe: sigma 0.5, C 1 (per row; both "
                                    "given, no grid CV ran); kept "),
                      "%s", r.err);
        ck_assert_msg(!strstr(r.err, "grid CV 0"), "%s", r.err);
        result_free(&r);
    }
    run(&r, "train", "-c", "1", DATA "train.svm", model, NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    const char *cv = strstr(r.err, "C 1 (per row), grid CV ");
    ck_assert_msg(cv && atof(cv + strlen("C 1 (per row), grid CV ")) > 50.0,
                  "%s", r.err);
    result_free(&r);
}
END_TEST

/* svm-train's short options: -c is the cost per labeled row, -g gamma;
 * -t 2 / -s 0 / -b 0 / -m / -h accepted; the rest refused, naming why and
 * the way here. predict writes to standard output for "-". */
START_TEST(svm_train_short_options)
{
    const char *model = tmp("m.model");
    result r;
    run(&r, "train", "-q", "-c", "10", "-g", "0.5", "-t", "2", "-s", "0",
        "-b", "0", "-m", "100", "-h", "0", "--labeled", "20",
        DATA "train.svm", model, NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    result_free(&r);
    assert_model_line(model, "cost 1e+01"); /* per labeled row, as given */
    assert_model_line(model, "c-total 0");
    assert_model_line(model, "sigma 0.5");
    /* -g is gamma on the file's own features: no scaling of ours under
     * it, unless --scale says so (before or after it) */
    assert_model_line(model, "scale none");
    run(&r, "train", "-q", "--scale", "zscore", "-g", "0.5",
        DATA "train.svm", model, NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    result_free(&r);
    assert_model_line(model, "scale zscore");
    run(&r, "train", "-q", "--gamma", "0.25", DATA "train.svm", model, NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    result_free(&r);
    assert_model_line(model, "sigma 0.25");
    static const char *const refused[][3] = {
        {"-t", "0", "rbf kernel (-t 2)"},
        {"-s", "1", "C-SVC"},
        {"-v", "1", "the number of folds"},
        {"-b", "2", "0 or 1"},
        {"-e", "0.01", "--passes"},
        {"-w1", "-2", "positive finite number"},
        {"-c", "-3", "positive number"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        run(&r, "train", refused[i][0], refused[i][1], DATA "train.svm", model,
            NULL);
        assert_error(&r, refused[i][0], refused[i][2], NULL);
        result_free(&r);
    }
    /* -v K: svm-train's cross-validation line on standard output (what
     * LIBSVM's grid.py reads), no model needed or written; the figure is
     * the cv command's for the same settings and folds */
    run(&r, "train", "-q", "--sigma", "0.1", "--c", "10", "-v", "3",
        DATA "train.svm", NULL);
    ck_assert_msg(r.status == 0, "train -v: %s", r.err);
    const char *cva = strstr(r.out, "Cross Validation Accuracy = ");
    ck_assert_msg(cva == r.out, "%s", r.out);
    char *pct = NULL;
    const double v = strtod(cva + strlen("Cross Validation Accuracy = "), &pct);
    ck_assert_msg(pct && pct[0] == '%' && pct[1] == '\n', "%s", r.out);
    result_free(&r);
    run(&r, "cv", "-q", "--grid", "c=10", "--grid", "sigma=0.1", "--folds",
        "3", DATA "train.svm", NULL);
    ck_assert_msg(r.status == 0, "cv: %s", r.err);
    double table[1];
    ck_assert_int_eq(cv_table(r.out, 2, table, 1), 1);
    ck_assert_double_eq_tol(v, 100.0 * table[0], 1e-3);
    result_free(&r);

    run(&r, "predict", model, DATA "test.svm", "-", NULL);
    ck_assert_msg(r.status == 0, "predict: %s", r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "Accuracy = "));
    ck_assert_ptr_null(strstr(r.out, "Accuracy"));
    ck_assert_int_gt((int)strlen(r.out), 10);
    result_free(&r);
    /* an output path that is a link (as /dev/stdout is) is written
     * through, never replaced by the rename of a safe write */
    char target[256], link[256];
    snprintf(target, sizeof target, "%s", tmp("target.txt"));
    snprintf(link, sizeof link, "%s", tmp("out.lnk"));
    ck_assert_int_eq(symlink(target, link), 0);
    run(&r, "predict", "-q", model, DATA "test.svm", link, NULL);
    ck_assert_msg(r.status == 0, "predict: %s", r.err);
    result_free(&r);
    struct stat st;
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    char *out = slurp(target);
    ck_assert_ptr_nonnull(out);
    ck_assert_int_gt((int)strlen(out), 10);
    free(out);
    remove(link);
    remove(target);
    remove(model);
}
END_TEST

/* A header line "key value" of a model file. */
static void assert_model_line(const char *model, const char *line)
{
    char *text = slurp(model);
    ck_assert_ptr_nonnull(text);
    char want[128];
    snprintf(want, sizeof want, "\n%s\n", line);
    ck_assert_msg(strstr(text, want), "model lacks \"%s\"", line);
    free(text);
}

START_TEST(command_line_beats_config)
{
    const char *model = tmp("m.model");
    result r;
    run(&r, "train", "-q", "--seed", "9", "--config", DATA "seed.conf",
        DATA "train.svm", model, NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    result_free(&r);
    assert_model_line(model, "seed 9");       /* command line wins */
    assert_model_line(model, "iterations 6"); /* config beats the default */
    run(&r, "train", "-q", "--config=" DATA "seed.conf", DATA "train.svm",
        model, NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    result_free(&r);
    assert_model_line(model, "seed 5");
}
END_TEST

/* ------------------------------------------------------ which are labeled */

START_TEST(labeled_keeps_n)
{
    result r;
    size_t rows, nl, nu;
    run(&r, "train", "--iterations", "5", "--labeled", "20", DATA "train.svm",
        tmp("m.model"), NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    read_counts(&r, &rows, &nl, &nu);
    ck_assert_uint_eq(rows, 160);
    ck_assert_uint_eq(nl, 20);
    ck_assert_uint_eq(nu, 140);
    result_free(&r);
    run(&r, "train", "--labeled", "1000", DATA "train.svm", tmp("m.model"),
        NULL);
    assert_error(&r, "1000", NULL);
    result_free(&r);
}
END_TEST

START_TEST(unlabeled_file_and_label)
{
    result r;
    size_t rows, nl, nu;
    run(&r, "train", "--iterations", "5", "--unlabeled", DATA "unlabeled.svm",
        DATA "train.svm", tmp("m.model"), NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    read_counts(&r, &rows, &nl, &nu);
    ck_assert_uint_eq(rows, 280);
    ck_assert_uint_eq(nl, 160);
    ck_assert_uint_eq(nu, 120);
    result_free(&r);

    run(&r, "train", "--iterations", "5", "--unlabeled-label", "0",
        DATA "mixed.svm", tmp("m.model"), NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    read_counts(&r, &rows, &nl, &nu);
    ck_assert_uint_eq(rows, 100);
    ck_assert_uint_eq(nl, 40);
    ck_assert_uint_eq(nu, 60);
    result_free(&r);
    /* the model predicts the two labels of the labeled rows, never 0 */
    run(&r, "predict", tmp("m.model"), DATA "test.svm", tmp("out.txt"), NULL);
    ck_assert_int_eq(r.status, 0);
    result_free(&r);
    char *out = slurp(tmp("out.txt"));
    ck_assert_ptr_nonnull(out);
    for (char *l = out; *l; l = strchr(l, '\n') + 1) {
        double y = strtod(l, NULL);
        ck_assert(y == 1.0 || y == -1.0);
    }
    free(out);
}
END_TEST

/* --------------------------------------------------------------- signals */

static int contains_file(const char *path, const char *what)
{
    char *s = slurp(path);
    int yes = s && strstr(s, what);
    free(s);
    return yes;
}

/* Whether the running command's stderr shows `what` within `naps` naps
 * of 20 ms. */
static int wait_for_stderr(const char *what, int naps)
{
    const struct timespec nap = {0, 20 * 1000 * 1000};
    for (int i = 0; i < naps; i++) {
        if (contains_file(tmp(".stderr"), what))
            return 1;
        nanosleep(&nap, NULL);
    }
    return 0;
}

/* Ctrl-C during training: the model of the iterations done goes to
 * MODEL_FILE.partial, and MODEL_FILE keeps the good model it held. */
START_TEST(interrupt_saves_model)
{
    /* A copy: tmp() recycles its 16 buffers, and the wait below calls it
     * once per poll. */
    char model[256], partial[300];
    snprintf(model, sizeof model, "%s", tmp("m.model"));
    snprintf(partial, sizeof partial, "%s.partial", model);
    train_small(model); /* a good model, which the stop must not replace */
    char *before = slurp(model);
    ck_assert_ptr_nonnull(before);
    pid_t pid = start("train", "--solver", "tsg", "--iterations", "100000000",
                      DATA "train.svm", model, NULL);
    /* wait for the first progress line: training has started */
    ck_assert_msg(wait_for_stderr("iter ", 500), "training did not start");
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    ck_assert_int_eq(kill(pid, SIGINT), 0);
    result r;
    finish(pid, &r);
    ck_assert_msg(r.status == 130, "status %d, stderr: %s", r.status, r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "interrupted"));
    ck_assert_ptr_nonnull(strstr(r.err, "untouched"));
    result_free(&r);
    /* MODEL_FILE as it was; the partial model beside it */
    char *after = slurp(model);
    ck_assert_ptr_nonnull(after);
    ck_assert_str_eq(after, before);
    free(before);
    free(after);
    tsgs_model *m = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_model_load(partial, &m, &err) == TSGS_OK, "%s",
                  err.message);
    ck_assert_uint_eq(tsgs_model_features_in(m), 4);
    ck_assert_int_gt(tsgs_model_feature_count(m), 0);
    tsgs_model_free(m);
    assert_no_temp();
}
END_TEST

/* SIGTERM while the default trains on rows 100,000 features wide (a CSV
 * of 40 of them): d-wide directions for every sigma of the grid and then
 * for the model, minutes in loops that did not look at the stop (the
 * issue: an 8.9 MB input of wide rows stopped 202 s after SIGTERM). It
 * ends within about a second, with no model to keep: MODEL_FILE holds the
 * good model it had, no .partial is written, the status is 128 + 15. */
START_TEST(sigterm_during_wide_training_is_prompt)
{
    char model[256], partial[300];
    snprintf(model, sizeof model, "%s", tmp("m.model"));
    snprintf(partial, sizeof partial, "%s.partial", model);
    train_small(model);
    char *before = slurp(model);
    ck_assert_ptr_nonnull(before);
    const char *wide = tmp("wide.csv");
    FILE *f = fopen(wide, "w");
    ck_assert_ptr_nonnull(f);
    for (int r = 0; r < 40; r++) {
        fputs(r % 2 ? "1" : "-1", f);
        for (int j = 0; j < 100000; j++) {
            char v[3] = {',', (char)('0' + (r * 7 + j * 13) % 10), 0};
            fputs(v, f);
        }
        fputc('\n', f);
    }
    ck_assert_int_eq(fclose(f), 0);
    pid_t pid = start("train", wide, model, NULL);
    /* the rows read: training has started */
    ck_assert_msg(wait_for_stderr("read 40 rows", 1500),
                  "training did not start");
    struct timespec in = {0, 300 * 1000 * 1000};
    nanosleep(&in, NULL);
    ck_assert_int_eq(kill(pid, SIGTERM), 0);
    const double t0 = test_now_s();
    result r;
    finish(pid, &r);
    const double took = test_now_s() - t0;
    ck_assert_msg(r.status == 128 + SIGTERM, "status %d, stderr: %s",
                  r.status, r.err);
    ck_assert_msg(took < 3.0, "stopped %.2f s after SIGTERM", took);
    ck_assert_msg(strstr(r.err, "interrupted: stopped by the caller during "),
                  "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "untouched"));
    result_free(&r);
    char *after = slurp(model);
    ck_assert_ptr_nonnull(after);
    ck_assert_str_eq(after, before);
    free(before);
    free(after);
    ck_assert(!file_exists(partial));
    assert_no_temp();
}
END_TEST

/* Before training nothing is written that a stop could leave half done,
 * so Ctrl-C ends the run at once, even inside a read that would not end
 * (a pipe whose writer is still there), with 128 + 2 and no model. */
START_TEST(sigint_while_reading_exits_at_once)
{
    const char *fifo = tmp("in.fifo"), *model = tmp("m.model");
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    signal(SIGPIPE, SIG_IGN);
    pid_t pid = start("train", fifo, model, NULL);
    int fd = open(fifo, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    static const char part[] = "1 1:0.5 2:0.25\n-1 1:0.25 2:0.";
    ck_assert_int_eq(write(fd, part, sizeof part - 1),
                     (ssize_t)(sizeof part - 1));
    struct timespec nap = {0, 200 * 1000 * 1000};
    nanosleep(&nap, NULL);
    ck_assert_int_eq(kill(pid, SIGINT), 0);
    const double t0 = test_now_s();
    result r;
    finish(pid, &r);
    const double took = test_now_s() - t0;
    close(fd);
    ck_assert_msg(r.status == 128 + SIGINT, "status %d, stderr: %s", r.status,
                  r.err);
    ck_assert_msg(took < 1.0, "exited %.2f s after SIGINT", took);
    ck_assert_ptr_nonnull(
        strstr(r.err, "interrupted before training: no model written"));
    result_free(&r);
    ck_assert(!file_exists(model));
    unlink(fifo);
}
END_TEST

/* SIGTERM 0.2 s into the read of a long file (5.4M rows, 150 MB of
 * text in 0.8 MB of gzip: about a second to read, parsed on one thread
 * whatever --threads) by train (_i 0), predict (1) and cv (2): each ends
 * within a second or so with 128 + 15 and says so; MODEL_FILE (train)
 * and OUTPUT_FILE (predict) keep what they held, byte for byte, and no
 * temporary is left. */
START_TEST(sigterm_during_a_long_read_is_prompt)
{
    char model[256], out[256], in[256];
    snprintf(model, sizeof model, "%s", tmp("m.model"));
    snprintf(out, sizeof out, "%s", tmp("out.txt"));
    snprintf(in, sizeof in, "%s", tmp("long.svm.gz"));
    train_small(model);
    test_write_text(out, "predictions of an earlier run\n");
    char *model_before = slurp(model), *out_before = slurp(out);
    ck_assert_ptr_nonnull(model_before);
    ck_assert_ptr_nonnull(out_before);
    static const char two[] = "1 1:0.5 2:0.25 3:0.125 4:1\n"
                              "-1 1:0.75 2:1.5 3:0.25 4:2\n";
    char *buf = malloc((sizeof two - 1) * 1000);
    ck_assert_ptr_nonnull(buf);
    for (int i = 0; i < 1000; i++)
        memcpy(buf + (size_t)i * (sizeof two - 1), two, sizeof two - 1);
    gzFile gz = gzopen(in, "wb1");
    ck_assert_ptr_nonnull(gz);
    for (int r = 0; r < 2700; r++)
        ck_assert_int_eq(gzwrite(gz, buf, (unsigned)(sizeof two - 1) * 1000),
                         (int)(sizeof two - 1) * 1000);
    ck_assert_int_eq(gzclose(gz), Z_OK);
    free(buf);
    pid_t pid = _i == 0   ? start("train", in, model, NULL)
                : _i == 1 ? start("predict", model, in, out, NULL)
                          : start("cv", "--grid", "c=1,10", in, NULL);
    const struct timespec into = {0, 200 * 1000 * 1000};
    nanosleep(&into, NULL);
    ck_assert_int_eq(kill(pid, SIGTERM), 0);
    const double t0 = test_now_s();
    result r;
    finish(pid, &r);
    const double took = test_now_s() - t0;
    ck_assert_msg(r.status == 128 + SIGTERM, "status %d, stderr: %s",
                  r.status, r.err);
    ck_assert_msg(took < 3.0, "exited %.2f s after SIGTERM", took);
    /* stopped in the read: the lines a finished read prints are not there */
    ck_assert_msg(!strstr(r.err, "read ") && !strstr(r.err, "grid points"),
                  "%s", r.err);
    const char *said = _i == 0 ? "interrupted before training: no model "
                                 "written"
                       : _i == 1 ? "untouched"
                                 : "interrupted: cross-validation stopped";
    ck_assert_msg(strstr(r.err, said), "%s", r.err);
    if (_i == 1) {
        ck_assert_msg(strstr(r.err, "interrupted"), "%s", r.err);
        ck_assert_msg(strstr(r.err, out), "%s", r.err);
    }
    result_free(&r);
    char *model_after = slurp(model), *out_after = slurp(out);
    ck_assert_ptr_nonnull(model_after);
    ck_assert_ptr_nonnull(out_after);
    ck_assert_str_eq(model_after, model_before);
    ck_assert_str_eq(out_after, out_before);
    free(model_before);
    free(model_after);
    free(out_before);
    free(out_after);
    unlink(in);
    assert_no_temp();
}
END_TEST

/* ------------------------------------------------------------------ quiet */

START_TEST(quiet_is_quiet)
{
    result r;
    run(&r, "train", "-q", "--iterations", "10", "--test", DATA "test.svm",
        DATA "train.svm", tmp("m.model"), NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.err, "");
    ck_assert_ptr_nonnull(strstr(r.out, "Test accuracy = "));
    result_free(&r);
    run(&r, "predict", "-q", tmp("m.model"), DATA "test.svm", tmp("o"), NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.err, "");
    ck_assert_str_eq(r.out, "");
    result_free(&r);
}
END_TEST

/* -------------------------------------------------------------- topology */

/* 40 separable rows in two dimensions (every C right on every fold), in
 * the test's folder; returns the path. */
static const char *separable_file(void)
{
    const char *path = tmp("sep.svm");
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 40; i++)
        fprintf(f, "%d 1:%g 2:%g\n", i % 2 ? 1 : -1,
                (i % 2 ? 5.0 : -5.0) + 0.01 * i, 0.02 * (i % 7));
    fclose(f);
    return path;
}

/* cv: a grid where every point ties (separable rows, every C right on
 * every fold) picks the largest C, not the first point. */
START_TEST(cv_ties_go_to_the_largest_c)
{
    const char *path = separable_file();
    result r;
    run(&r, "cv", "-q", "--sigma", "0.1", "--grid", "c=1,10,100,1000",
        "--folds", "4", path, NULL);
    ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err);
    ck_assert_msg(strstr(r.out, "# best: --c 1000"), "%s", r.out);
    result_free(&r);
}
END_TEST

/* ------------------------------------------------------- the commands */

/* The tool's own words: usage with no command (an error) and with --help
 * (not one), its version, an unknown command named. */
START_TEST(usage_version_unknown_command)
{
    result r;
    run(&r, NULL);
    ck_assert_int_eq(r.status, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "Usage:\n  tsgs3vm train"));
    ck_assert_str_eq(r.out, "");
    result_free(&r);
    static const char *const helps[] = {"--help", "-h"};
    for (int i = 0; i < 2; i++) {
        run(&r, helps[i], NULL);
        ck_assert_int_eq(r.status, 0);
        static const char *const commands[] = {"train", "predict", "cv",
                                               "synth", "topology"};
        for (int c = 0; c < 5; c++) {
            char want[64];
            snprintf(want, sizeof want, "\n  tsgs3vm %s ", commands[c]);
            ck_assert_msg(strstr(r.out, want), "%s lacks %s", helps[i],
                          commands[c]);
        }
        result_free(&r);
    }
    run(&r, "--version", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "tsgs3vm " TSGS_VERSION_STRING "\n");
    ck_assert_str_eq(tsgs_version(), TSGS_VERSION_STRING);
    result_free(&r);
    run(&r, "tarin", DATA "train.svm", NULL);
    assert_error(&r, "unknown command \"tarin\"", NULL);
    ck_assert_ptr_nonnull(strstr(r.err, "Usage:"));
    result_free(&r);
}
END_TEST

/* topology: --help, an XML export, the choice of one source, a bad file,
 * and a stdout that cannot be written. */
START_TEST(topology_options)
{
    result r;
    run(&r, "topology", "--help", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "Usage: tsgs3vm topology"));
    result_free(&r);
    run(&r, "topology", "--xml", "data/topologies/32em64t-2n8c2t-pci-noio.xml",
        "--threads", "4", "--bind", "scatter", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strncmp(r.out, "machine: 2 packages, 2 NUMA nodes, 16 "
                                 "cores, 32 PUs\n",
                          47) == 0,
                  "%s", r.out);
    /* scatter: threads 0 and 1 on the two nodes */
    ck_assert_ptr_nonnull(strstr(r.out, "\nthread 0 -> PU 0 (core 0, "
                                        "package 0, NUMA 0)"));
    ck_assert_ptr_nonnull(strstr(r.out, "\nthread 1 -> PU 8 (core 8, "
                                        "package 1, NUMA 1)"));
    result_free(&r);
    run(&r, "topology", "--xml", "data/topologies/16em64t-4s2c2t.xml",
        "--synthetic", "pack:2 core:2", NULL);
    assert_error(&r, "--xml or --synthetic, not both", NULL);
    result_free(&r);
    run(&r, "topology", "--xml", tmp("none.xml"), NULL);
    assert_error(&r, "none.xml", NULL);
    result_free(&r);
    stdout_to = "/dev/full";
    run(&r, "topology", "--synthetic", "pack:1 core:2 pu:1", NULL);
    stdout_to = NULL;
    assert_error(&r, "writing to stdout failed", NULL);
    result_free(&r);
}
END_TEST

/* Output that cannot be written is an error, never a silent success:
 * predictions to a full device, to standard output on a full device,
 * through a link into a missing folder; train's report on a full
 * stdout. */
START_TEST(write_failures_are_errors)
{
    const char *model = tmp("m.model");
    train_small(model);
    result r;
    run(&r, "predict", model, DATA "test.svm", "/dev/full", NULL);
    assert_error(&r, "/dev/full", "write failed", NULL);
    result_free(&r);
    stdout_to = "/dev/full";
    run(&r, "predict", model, DATA "test.svm", "-", NULL);
    assert_error(&r, "writing to stdout failed", NULL);
    result_free(&r);
    run(&r, "predict", model, DATA "test.svm", NULL);
    assert_error(&r, "writing to stdout failed", NULL);
    result_free(&r);
    run(&r, "train", "--iterations", "5", "--test", DATA "test.svm",
        DATA "train.svm", tmp("m2.model"), NULL);
    assert_error(&r, "writing to stdout failed", NULL);
    result_free(&r);
    /* cv's table: lost to a full disk is an error, not exit 0 */
    run(&r, "cv", "-q", "--grid", "c=1,10", DATA "train.svm", NULL);
    assert_error(&r, "writing the table to standard output failed", NULL);
    result_free(&r);
    stdout_to = NULL;
    /* cv's --write-config into a folder that does not exist: refused
     * before the CV, which would be lost */
    run(&r, "cv", "-q", "--grid", "c=1,10", "--write-config",
        tmp("no/such/b.conf"), DATA "train.svm", NULL);
    assert_error(&r, "--write-config", "checked before training", NULL);
    ck_assert_msg(strlen(r.out) == 0, "%s", r.out);
    result_free(&r);
    const char *link = tmp("out.link");
    ck_assert_int_eq(symlink(tmp("no/such/out.txt"), link), 0);
    run(&r, "predict", model, DATA "test.svm", link, NULL);
    assert_error(&r, link, "cannot open for writing", NULL);
    result_free(&r);
    unlink(link);
}
END_TEST

/* --test problems are found before training: a missing file, and a file
 * whose rows have more features than the training rows. */
START_TEST(train_test_file_errors)
{
    result r;
    run(&r, "train", "--iterations", "5", "--test", tmp("none.svm"),
        DATA "train.svm", tmp("m.model"), NULL);
    assert_error(&r, "none.svm", NULL);
    ck_assert(!file_exists(tmp("m.model")));
    result_free(&r);
}
END_TEST

/* ------------------------------------------------------------------ cv */

/* The table cv prints: one row per grid point, the accuracy in the column
 * after the axes. Returns the number of rows read into acc. */
static int cv_table(const char *out, int naxes, double *acc, int max)
{
    const char *l = strchr(out, '\n'); /* past the header */
    int n = 0;
    while (l && l[1] && l[1] != '#') {
        l++;
        const char *p = l;
        for (int a = 0; a < naxes; a++) {
            p = strchr(p, '\t');
            ck_assert_ptr_nonnull(p);
            p++;
        }
        ck_assert_int_lt(n, max);
        acc[n++] = strtod(p, NULL);
        l = strchr(l, '\n');
    }
    return n;
}

/* The tool's table against the library's tsgs_cv on the same points,
 * folds and seed; grid-parallel and fit-parallel give the same numbers;
 * -v K is --folds K; progress goes to stderr unless -q. */
START_TEST(cv_matches_library)
{
    result r;
    run(&r, "cv", "--grid", "c=1,10", "--grid", "sigma=log:-2:0", "--folds",
        "3", DATA "train.svm", NULL);
    ck_assert_msg(r.status == 0, "cv: %s", r.err);
    const char *header = "c\tsigma\tcv_accuracy\tcv_sd\n";
    ck_assert_msg(strncmp(r.out, header, strlen(header)) == 0, "%s", r.out);
    ck_assert_ptr_nonnull(strstr(r.out, "\n1\t0.01\t"));
    ck_assert_ptr_nonnull(strstr(r.out, "\n10\t1\t"));
    ck_assert_ptr_nonnull(strstr(r.err, "6 grid points x 3 folds on 160 "
                                        "labeled rows (grid-parallel)"));
    ck_assert_ptr_nonnull(strstr(r.err, "point 6: c=10 sigma=1  accuracy "));
    double grid[6];
    ck_assert_int_eq(cv_table(r.out, 2, grid, 6), 6);
    result_free(&r);

    run(&r, "cv", "-q", "--cv-parallel", "fit", "-v", "3", "--grid",
        "c=1,10", "--grid", "sigma=0.01,0.1,1", DATA "train.svm", NULL);
    ck_assert_msg(r.status == 0, "cv: %s", r.err);
    ck_assert_str_eq(r.err, "");
    double fit[6];
    ck_assert_int_eq(cv_table(r.out, 2, fit, 6), 6);
    for (int i = 0; i < 6; i++)
        ck_assert_double_eq(fit[i], grid[i]);
    result_free(&r);

    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_read(DATA "train.svm", NULL, &ds, NULL),
                     TSGS_OK);
    tsgs_params points[6];
    static const double cs[] = {1, 10}, sigmas[] = {0.01, 0.1, 1};
    for (int i = 0; i < 6; i++) {
        points[i] = tsgs_params_default();
        points[i].c = cs[i / 3];
        points[i].sigma = sigmas[i % 3];
    }
    double mean[6], sd[6];
    tsgs_error err;
    ck_assert_msg(tsgs_cv(ds, points, 6, 3, points[0].seed, 2,
                          TSGS_CV_PARALLEL_GRID, mean, sd, NULL, NULL,
                          &err) == TSGS_OK,
                  "%s", err.message);
    for (int i = 0; i < 6; i++)
        ck_assert_double_eq_tol(grid[i], mean[i], 1e-6);
    tsgs_dataset_free(ds);
}
END_TEST

/* --write-config writes the best point as a config file that, read back,
 * gives the same accuracy; -c C is C per labeled row. */
START_TEST(cv_write_config_round_trip)
{
    const char *conf = tmp("best.conf");
    result r;
    run(&r, "cv", "-q", "--grid", "c=1,10", "--grid", "sigma=0.1", "--folds",
        "3", "--write-config", conf, DATA "train.svm", NULL);
    ck_assert_msg(r.status == 0, "cv: %s", r.err);
    double acc[2];
    ck_assert_int_eq(cv_table(r.out, 2, acc, 2), 2);
    int best = acc[1] > acc[0] + 1e-12 ? 1 : 0;
    ck_assert_ptr_nonnull(strstr(r.out, best ? "# best: --c 10 --sigma 0.1"
                                             : "# best: --c 1 --sigma 0.1"));
    result_free(&r);
    char *text = slurp(conf);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strncmp(text, "# written by tsgs3vm cv on " DATA
                                "train.svm: best of 2 grid points, 3-fold",
                          60) == 0,
                  "%s", text);
    ck_assert_ptr_nonnull(strstr(text, "\nsigma = 0.1\n"));
    ck_assert_ptr_nonnull(strstr(text, best ? "\ncost = 10\n" : "\ncost = 1\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nc-total = 0\nclass-weight = none\n"));
    free(text);

    /* the config alone, one point: the same accuracy */
    run(&r, "cv", "-q", "--config", conf, "--folds", "3", "--grid",
        "seed=1", DATA "train.svm", NULL);
    ck_assert_msg(r.status == 0, "cv --config: %s", r.err);
    double again;
    ck_assert_int_eq(cv_table(r.out, 1, &again, 1), 1);
    ck_assert_double_eq(again, acc[best]);
    result_free(&r);

    /* -c 1 is the grid's c=1 point: C per labeled row in both */
    run(&r, "cv", "-q", "-c", "1", "--sigma", "0.1", "--folds", "3",
        "--grid", "seed=1", DATA "train.svm", NULL);
    ck_assert_msg(r.status == 0, "cv -c: %s", r.err);
    ck_assert_int_eq(cv_table(r.out, 1, &again, 1), 1);
    ck_assert_double_eq(again, acc[0]);
    result_free(&r);

    /* a folder that does not exist: nothing written, an error */
    run(&r, "cv", "-q", "--grid", "c=1", "--folds", "3", "--write-config",
        tmp("no/such/dir.conf"), DATA "train.svm", NULL);
    assert_error(&r, "no/such/dir.conf", NULL);
    result_free(&r);
}
END_TEST

/* Unlabeled rows from a file, labels hidden by --labeled: counted in the
 * summary line, and the CV runs on the labeled rows only. */
START_TEST(cv_unlabeled_and_labeled)
{
    result r;
    run(&r, "cv", "--unlabeled", DATA "unlabeled.svm", "--labeled", "40",
        "--grid", "c=1", "--folds", "4", DATA "train.svm", NULL);
    ck_assert_msg(r.status == 0, "cv: %s", r.err);
    ck_assert_msg(strstr(r.err, "1 grid points x 4 folds on 40 labeled rows"),
                  "%s", r.err);
    double acc;
    ck_assert_int_eq(cv_table(r.out, 1, &acc, 1), 1);
    ck_assert_double_ge(acc, 0.5);
    ck_assert_double_le(acc, 1.0);
    result_free(&r);

    run(&r, "cv", "--unlabeled-label", "0", "--grid", "c=1", "--folds", "4",
        DATA "mixed.svm", NULL);
    ck_assert_msg(r.status == 0, "cv: %s", r.err);
    ck_assert_msg(strstr(r.err, "on 40 labeled rows"), "%s", r.err);
    result_free(&r);

    run(&r, "cv", "-q", "--unlabeled", tmp("missing.svm"), "--grid", "c=1",
        DATA "train.svm", NULL);
    assert_error(&r, "missing.svm", NULL);
    result_free(&r);
}
END_TEST

/* Every way to get cv's own options wrong stops with a message that names
 * the option or the value, before any data is read. */
START_TEST(cv_bad_options)
{
    static const struct {
        const char *opt, *value, *says;
    } bad[] = {
        {"--grid", "c", "expected KEY=VALUES"},
        {"--grid", "=1,2", "expected KEY=VALUES"},
        {"--grid", "c=", "no values"},
        {"--grid", "c=1,,2", "bad value list"},
        {"--grid", "c=1,", "bad value list"},
        {"--grid", "c=123456789012345678901234567890123", "bad value list"},
        {"--grid", "sigma=log:1", "KEY=log:LO:HI[:STEP]"},
        {"--grid", "sigma=log:2:1", "KEY=log:LO:HI[:STEP]"},
        {"--grid", "sigma=log:0:1:0", "KEY=log:LO:HI[:STEP]"},
        {"--grid", "sigma=log:0:100", "at most 64 values"},
        {"--grid", "sigma=log:0:1:x", "KEY=log:LO:HI[:STEP]"},
        {"--grid", "bogus-key=1", "--grid"},
        {"--grid", "c=-1", "--grid"},
        {"--folds", "1", "expected 2..1000"},
        {"--folds", "1001", "expected 2..1000"},
        {"--folds", "3x", "expected 2..1000"},
        {"-v", "0", "expected 2..1000"},
        {"--cv-parallel", "both", "grid or fit"},
    };
    result r;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run(&r, "cv", bad[i].opt, bad[i].value, DATA "train.svm", NULL);
        assert_error(&r, bad[i].says, NULL);
        ck_assert_msg(!strstr(r.err, "read "), "%s %s read the data",
                      bad[i].opt, bad[i].value);
        result_free(&r);
    }
    /* 65 values in a list: one too many */
    char list[512] = "c=";
    for (int v = 1; v <= 65; v++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d",
                 v > 1 ? "," : "", v);
    run(&r, "cv", "--grid", list, DATA "train.svm", NULL);
    assert_error(&r, "bad value list", NULL);
    result_free(&r);
    /* 9 axes: one too many */
    run(&r, "cv", "--grid", "c=1", "--grid", "sigma=1", "--grid", "seed=1",
        "--grid", "c-star=1", "--grid", "eta=0", "--grid", "theta=0.5",
        "--grid", "t0=100", "--grid", "anneal=0.3", "--grid", "block-size=8",
        DATA "train.svm", NULL);
    assert_error(&r, "at most 8 --grid axes", NULL);
    result_free(&r);
    /* the file: none, two, missing, not data */
    run(&r, "cv", "--grid", "c=1", NULL);
    assert_error(&r, "cv needs TRAIN_FILE", NULL);
    result_free(&r);
    run(&r, "cv", "--grid", "c=1", DATA "train.svm", DATA "test.svm", NULL);
    assert_error(&r, "cv needs TRAIN_FILE", NULL);
    result_free(&r);
    run(&r, "cv", "--grid", "c=1", tmp("none.svm"), NULL);
    assert_error(&r, "none.svm", NULL);
    result_free(&r);
    /* a model option cv does not take, and an unknown one */
    run(&r, "cv", "--test", DATA "test.svm", "--grid", "c=1",
        DATA "train.svm", NULL);
    assert_error(&r, "--test", NULL);
    result_free(&r);
}
END_TEST

/* --help: the grid syntax, cv's own options and every model key. */
START_TEST(cv_help)
{
    result r;
    run(&r, "cv", "--help", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "Usage: tsgs3vm cv [options] --grid"));
    ck_assert_ptr_nonnull(strstr(r.out, "--grid KEY=log:LO:HI[:S]"));
    ck_assert_ptr_nonnull(strstr(r.out, "--cv-parallel MODE"));
    ck_assert_ptr_nonnull(strstr(r.out, "--write-config FILE"));
    ck_assert_ptr_nonnull(strstr(r.out, "Model options"));
    char value[64];
    const char *key;
    tsgs_params p = tsgs_params_default();
    for (size_t k = 0; (key = tsgs_params_key(k, &p, value, sizeof value,
                                              NULL));
         k++) {
        char want[80];
        snprintf(want, sizeof want, "--%s", key);
        ck_assert_msg(strstr(r.out, want), "cv --help lacks %s", want);
    }
    result_free(&r);
}
END_TEST

/* Ties: on separable rows every C reaches 100%; with two axes the
 * neighbourhood decides, then the largest C. */
START_TEST(cv_ties_use_neighbourhood)
{
    const char *path = separable_file();
    result r;
    run(&r, "cv", "-q", "--grid", "sigma=0.1,0.01", "--grid", "c=10,1000",
        "--folds", "4", path, NULL);
    ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err);
    double acc[4];
    ck_assert_int_eq(cv_table(r.out, 2, acc, 4), 4);
    for (int i = 0; i < 4; i++)
        ck_assert_double_eq(acc[i], 1.0);
    /* all equal, all neighbourhoods equal: the largest C, first sigma */
    ck_assert_msg(strstr(r.out, "# best: --sigma 0.1 --c 1000"), "%s", r.out);
    result_free(&r);
}
END_TEST

/* text without its "data-" lines (a model's training layout), in place. */
static void drop_data_lines(char *text)
{
    char *w = text;
    for (const char *l = text; *l;) {
        const char *eol = strchr(l, '\n');
        size_t n = eol ? (size_t)(eol - l) + 1 : strlen(l);
        if (strncmp(l, "data-", 5) != 0) {
            memmove(w, l, n);
            w += n;
        }
        l += n;
    }
    *w = '\0';
}

/* convert reads once; train, predict and cv on the .npy pair give what
 * they give on the text (the models differ only in the layout they
 * record). */
START_TEST(convert_then_train_predict_cv)
{
    const char *tr = tmp("train.npy"), *te = tmp("test.npy");
    result r;
    run(&r, "convert", DATA "train.svm", tr, NULL);
    ck_assert_msg(r.status == 0, "convert: %s", r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "train.labels.npy"));
    result_free(&r);
    ck_assert(file_exists(tmp("train.labels.npy")));
    run(&r, "convert", "-q", DATA "test.svm", te, NULL);
    ck_assert_msg(r.status == 0 && r.err[0] == '\0', "convert: %s", r.err);
    result_free(&r);

    const char *m_text = tmp("text.model"), *m_npy = tmp("npy.model");
    run(&r, "train", "-q", "--iterations", "30", DATA "train.svm", m_text,
        NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    result_free(&r);
    run(&r, "train", "-q", "--iterations", "30", tr, m_npy, NULL);
    ck_assert_msg(r.status == 0, "train on .npy: %s", r.err);
    result_free(&r);
    char *a = slurp(m_text), *b = slurp(m_npy);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    /* the same model; each records the file it was trained on */
    ck_assert_ptr_nonnull(strstr(a, "\ndata-format libsvm\n"));
    ck_assert_ptr_nonnull(strstr(b, "\ndata-format npy\ndata-label-column "
                                    "none\ndata-skip-columns 0\n"
                                    "data-columns 4\n"));
    drop_data_lines(a);
    drop_data_lines(b);
    ck_assert_msg(strcmp(a, b) == 0, "the models differ");
    free(a);
    free(b);

    const char *p_text = tmp("text.out"), *p_npy = tmp("npy.out");
    run(&r, "predict", m_text, DATA "test.svm", p_text, NULL);
    ck_assert_int_eq(r.status, 0);
    a = r.out;
    r.out = NULL;
    result_free(&r);
    run(&r, "predict", m_text, te, p_npy, NULL);
    ck_assert_msg(r.status == 0, "predict on .npy: %s", r.err);
    ck_assert_str_eq(r.out, a);
    free(a);
    result_free(&r);
    a = slurp(p_text);
    b = slurp(p_npy);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);

    run(&r, "cv", "-q", "--grid", "c=1,10", "--folds", "3",
        "--iterations", "20", DATA "train.svm", NULL);
    ck_assert_int_eq(r.status, 0);
    char *best = strstr(r.out, "# best");
    ck_assert_ptr_nonnull(best);
    a = strdup(best);
    result_free(&r);
    run(&r, "cv", "-q", "--grid", "c=1,10", "--folds", "3",
        "--iterations", "20", tr, NULL);
    ck_assert_msg(r.status == 0, "cv on .npy: %s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, a));
    free(a);
    result_free(&r);

    run(&r, "convert", DATA "train.svm", tmp("x.txt"), NULL);
    assert_error(&r, "x.txt", "must end in .npy", NULL);
    ck_assert(!file_exists(tmp("x.txt")));
    result_free(&r);
    run(&r, "convert", DATA "train.svm", NULL);
    assert_error(&r, "convert needs IN and OUT.npy", NULL);
    result_free(&r);
    run(&r, "convert", tmp("missing.svm"), tmp("y.npy"), NULL);
    assert_error(&r, "missing.svm", "cannot open", NULL);
    ck_assert(!file_exists(tmp("y.npy")));
    result_free(&r);
}
END_TEST

/* A wide LIBSVM file (read as sparse rows) converts to its dense .npy
 * when that fits --max-memory, and is refused before writing, naming the
 * file, its shape and the bytes, when it does not. */
START_TEST(convert_sparse_file)
{
    const char *wide = tmp("wide.svm"), *out = tmp("wide.npy");
    FILE *f = fopen(wide, "w");
    ck_assert_ptr_nonnull(f);
    fputs("+1 1:1 9000:2\n-1 2:1\n0 3:0.5\n", f);
    fclose(f);
    result r;
    run(&r, "convert", "--max-memory", "1K", wide, out, NULL);
    assert_error(&r, "wide.svm", "3 rows x 9000 features", "108000 bytes",
                 "--max-memory", NULL);
    ck_assert(!file_exists(out));
    result_free(&r);
    run(&r, "convert", "-q", wide, out, NULL);
    ck_assert_msg(r.status == 0, "convert: %s", r.err);
    result_free(&r);
    struct stat st;
    ck_assert_int_eq(stat(out, &st), 0);
    ck_assert_int_ge(st.st_size, 3 * 9000 * 4); /* header + rows */
    ck_assert_int_le(st.st_size, 3 * 9000 * 4 + 4096);
    /* the .npy trains as the text does (dense rows from the mapping) */
    run(&r, "train", "-q", "--iterations", "5", "--solver", "dsg", out,
        tmp("wide.model"), NULL);
    ck_assert_msg(r.status == 0, "train on the .npy: %s", r.err);
    result_free(&r);
}
END_TEST

START_TEST(topology_this_machine)
{
    result r;
    run(&r, "topology", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_msg(strncmp(r.out, "machine: ", 9) == 0, "%s", r.out);
    ck_assert_ptr_nonnull(strstr(r.out, "\npolicy: "));
    ck_assert_ptr_nonnull(strstr(r.out, "\nthread 0 -> "));
    result_free(&r);
}
END_TEST

START_TEST(topology_synthetic_scatter)
{
    result r;
    run(&r, "topology", "--synthetic", "pack:2 numa:1 core:4 pu:2",
        "--threads", "8", "--bind", "scatter", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strncmp(r.out, "machine: 2 packages, 2 NUMA nodes, 8 cores, "
                                 "16 PUs\n",
                          46) == 0,
                  "%s", r.out);
    int threads = 0;
    for (const char *l = strstr(r.out, "\nthread "); l;
         l = strstr(l + 1, "\nthread ")) {
        int t, pu, core, pack, numa;
        ck_assert_int_eq(sscanf(l, "\nthread %d -> PU %d (core %d, package "
                                   "%d, NUMA %d)",
                                &t, &pu, &core, &pack, &numa),
                         5);
        ck_assert_int_eq(t, threads);
        ck_assert_int_eq(pack, t % 2); /* alternating packages */
        threads++;
    }
    ck_assert_int_eq(threads, 8);
    result_free(&r);

    run(&r, "topology", "--synthetic", NULL);
    assert_error(&r, "--synthetic", "needs a value", NULL);
    result_free(&r);
    run(&r, "topology", "--synthetic", "bogus", NULL);
    assert_error(&r, "bogus", NULL);
    result_free(&r);
}
END_TEST

/* ---------------------------------------------------------- data options */

/* A LIBSVM file of 4 features a row (train.svm, test.svm) as the CSV
 * `csv`: a row index, `features` features (the file's first ones; past 4,
 * columns of 0.25), the label last when `label`; a header line naming the
 * columns when `header`. Returns its rows. */
static int svm_as_csv(const char *svm, const char *csv, int features,
                      int label, int header)
{
    FILE *in = fopen(svm, "r"), *out = fopen(csv, "w");
    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(out);
    if (header) {
        fputs("id", out);
        for (int k = 0; k < features; k++)
            fprintf(out, ",f%d", k + 1);
        fputs(label ? ",label\n" : "\n", out);
    }
    char line[512];
    int row = 0;
    while (fgets(line, sizeof line, in)) {
        double y, x[4];
        ck_assert_int_eq(sscanf(line, "%lf 1:%lf 2:%lf 3:%lf 4:%lf", &y,
                                &x[0], &x[1], &x[2], &x[3]),
                         5);
        fprintf(out, "%d", row++);
        for (int k = 0; k < features; k++)
            fprintf(out, ",%.17g", k < 4 ? x[k] : 0.25);
        if (label)
            fprintf(out, ",%g", y);
        fputc('\n', out);
    }
    fclose(in);
    ck_assert_int_eq(fclose(out), 0);
    return row;
}

/* train.svm as CSV: a row index first, the label last, a header line. */
static const char *train_as_csv(void)
{
    const char *csv = tmp("train.csv");
    ck_assert_int_eq(svm_as_csv(DATA "train.svm", csv, 4, 1, 1), 160);
    return csv;
}

/* --format, --label-column, --skip-columns and --header read a CSV copy of
 * train.svm into the same rows: the model predicts test.svm exactly as
 * the one trained on train.svm; the same keys in a config file (with
 * quiet = yes) do too; each refuses a bad value, naming the key and what
 * it expects. */
START_TEST(data_options_on_csv)
{
    const char *csv = train_as_csv();
    char base[256], flags[256], conf[256];
    snprintf(base, sizeof base, "%s", tmp("base.model"));
    snprintf(flags, sizeof flags, "%s", tmp("flags.model"));
    snprintf(conf, sizeof conf, "%s", tmp("data.conf"));
    result r;
    run(&r, "train", "-q", "--iterations", "20", "--seed", "3",
        DATA "train.svm", base, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    result_free(&r);
    run(&r, "train", "--iterations", "20", "--seed", "3", "--format", "csv",
        "--label-column", "last", "--skip-columns", "1", "--header=yes", csv,
        flags, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    size_t rows, labeled, unlabeled;
    read_counts(&r, &rows, &labeled, &unlabeled);
    ck_assert_uint_eq(rows, 160);
    ck_assert_uint_eq(labeled, 160);
    result_free(&r);
    FILE *f = fopen(conf, "w");
    ck_assert_ptr_nonnull(f);
    fputs("format = csv\nlabel-column = 6\nskip-columns = 1\nheader = auto\n"
          "quiet = yes\niterations = 20\nseed = 3\n",
          f);
    ck_assert_int_eq(fclose(f), 0);
    const char *cmodel = tmp("conf.model");
    run(&r, "train", "--config", conf, csv, cmodel, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.err, ""); /* quiet = yes */
    result_free(&r);

    char *want = NULL;
    const char *models[] = {base, flags, cmodel};
    for (int k = 0; k < 3; k++) {
        run(&r, "predict", "-q", models[k], DATA "test.svm", "-", NULL);
        ck_assert_msg(r.status == 0, "%s", r.err);
        if (k == 0)
            want = strdup(r.out);
        else
            ck_assert_str_eq(r.out, want);
        result_free(&r);
    }
    free(want);
    /* predict reads CSV too: the same labels as from test.svm */
    run(&r, "predict", "--format", "libsvm", "--header", "no", base,
        DATA "test.svm", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "Accuracy = "));
    result_free(&r);

    static const char *const bad[][3] = {
        {"--format", "xml", "format = \"xml\": expected one of auto, libsvm, csv"},
        {"--label-column", "first", "label-column = \"first\": expected a "
                                    "column number"},
        {"--label-column", "1000000", "label-column = \"1000000\""},
        {"--skip-columns", "-1", "skip-columns = \"-1\": expected a number "
                                 "of leading columns >= 0"},
        {"--header", "maybe", "header = \"maybe\": expected one of auto, "
                              "yes, no"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        run(&r, "train", bad[i][0], bad[i][1], csv, tmp("x.model"), NULL);
        assert_error(&r, bad[i][2], NULL);
        result_free(&r);
    }
    f = fopen(conf, "w");
    ck_assert_ptr_nonnull(f);
    fputs("format = csv\n\nquiet = sometimes\n", f);
    ck_assert_int_eq(fclose(f), 0);
    run(&r, "train", "--config", conf, csv, tmp("x.model"), NULL);
    assert_error(&r, "data.conf:3", "quiet = \"sometimes\": expected yes or no",
                 NULL);
    result_free(&r);
    ck_assert(!file_exists(tmp("x.model")));
}
END_TEST

/* ------------------------------------------------ the model's layout */

/* Trains `model` on train.svm as CSV (a row index, the label last, a
 * header), said with --label-column last --skip-columns 1. */
static void train_label_last(const char *model)
{
    result r;
    run(&r, "train", "-q", "--iterations", "20", "--seed", "3",
        "--label-column", "last", "--skip-columns", "1", train_as_csv(),
        model, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    result_free(&r);
}

/* predict with stdout and the output file checked: status 0; *lines gets
 * the output file (malloc'd), the accuracy line is returned (malloc'd,
 * "" when none). */
static char *predict_ok(const char *model, const char *file, char **lines,
                        const char *flag, const char *value)
{
    const char *out = tmp("pred.out");
    result r;
    if (flag)
        run(&r, "predict", flag, value, model, file, out, NULL);
    else
        run(&r, "predict", model, file, out, NULL);
    ck_assert_msg(r.status == 0, "predict %s: %s", file, r.err);
    ck_assert_msg(!strstr(r.err, "ERROR"), "%s", r.err);
    char *acc = strdup(r.out);
    result_free(&r);
    *lines = slurp(out);
    ck_assert_ptr_nonnull(*lines);
    remove(out);
    return acc;
}

/* A model trained with --label-column last --skip-columns 1 records the
 * layout (and the version that wrote it); predict reads a CSV of that
 * layout with no option as if they were given (it gave 0.00% before), and
 * a LIBSVM file as before. The model without its data-* and written-by
 * lines (a file written before them) loads and predicts the same lines,
 * given the options. */
START_TEST(predict_reads_as_the_model_was_trained)
{
    char model[256], csv[256]; /* kept past tmp()'s ring of 16 */
    snprintf(model, sizeof model, "%s", tmp("last.model"));
    snprintf(csv, sizeof csv, "%s", tmp("test.csv"));
    train_label_last(model);
    char *text = slurp(model);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "\nwritten-by tsgs3vm " TSGS_VERSION_STRING
                               "\n") &&
                      strstr(text, "\ndata-format csv\n"
                                   "data-label-column last\n"
                                   "data-skip-columns 1\ndata-header yes\n"
                                   "data-columns 6\n"),
                  "%s", text);
    ck_assert_int_eq(svm_as_csv(DATA "test.svm", csv, 4, 1, 0), 80);

    char *lines, *want_lines;
    char *acc = predict_ok(model, csv, &lines, NULL, NULL);
    ck_assert_msg(strncmp(acc, "Accuracy = ", 11) == 0 &&
                      strstr(acc, "/80)") && atof(acc + 11) > 80.0,
                  "%s", acc);
    char *given = predict_ok(model, csv, &want_lines, "--label-column",
                             "last");
    ck_assert_str_eq(given, acc);
    ck_assert_str_eq(want_lines, lines);
    free(given);
    free(want_lines);
    /* a LIBSVM file of the same rows, and their .npy (its own columns:
     * the CSV's are not carried over): the same lines */
    const char *npy = tmp("test.npy");
    result r;
    run(&r, "convert", "-q", DATA "test.svm", npy, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    result_free(&r);
    const char *same[] = {DATA "test.svm", npy};
    for (int k = 0; k < 2; k++) {
        given = predict_ok(model, same[k], &want_lines, NULL, NULL);
        ck_assert_str_eq(given, acc);
        ck_assert_str_eq(want_lines, lines);
        free(given);
        free(want_lines);
    }

    /* written before layouts: the same model, the options said */
    const char *old = tmp("old.model");
    FILE *f = fopen(old, "w");
    ck_assert_ptr_nonnull(f);
    for (char *l = text; *l;) {
        char *eol = strchr(l, '\n');
        ck_assert_ptr_nonnull(eol);
        if (strncmp(l, "data-", 5) != 0 && strncmp(l, "written-by ", 11) != 0)
            fwrite(l, 1, (size_t)(eol - l) + 1, f);
        l = eol + 1;
    }
    ck_assert_int_eq(fclose(f), 0);
    run(&r, "predict", "--label-column", "last", "--skip-columns", "1", old,
        csv, tmp("old.out"), NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.out, acc);
    result_free(&r);
    char *old_lines = slurp(tmp("old.out"));
    ck_assert_str_eq(old_lines, lines);
    free(old_lines);
    given = predict_ok(old, DATA "test.svm", &want_lines, NULL, NULL);
    ck_assert_str_eq(given, acc);
    ck_assert_str_eq(want_lines, lines);
    free(given);
    free(want_lines);
    free(acc);
    free(lines);
    free(text);
}
END_TEST

/* A CSV or .npy narrower than the model (fewer features a row: it was
 * padded with zeros) is refused, by predict and by train --test, naming
 * the file, both widths and the options to check; a CSV without the label
 * column reads once --label-column 0 says so (the user's option wins over
 * the model's); a wider CSV has its extra features dropped with a warning
 * (as LIBSVM does), the rest predicted as before; a LIBSVM file whose
 * largest index is below the model's is sparse, and reads. */
START_TEST(predict_refuses_a_narrower_file)
{
    char model[256], out[256]; /* kept past tmp()'s ring of 16 */
    snprintf(model, sizeof model, "%s", tmp("last.model"));
    snprintf(out, sizeof out, "%s", tmp("out.txt"));
    train_label_last(model);
    const char *narrow = tmp("narrow.csv");
    svm_as_csv(DATA "test.svm", narrow, 3, 1, 0);
    result r;
    run(&r, "predict", model, narrow, out, NULL);
    assert_error(&r, "narrow.csv: 3 features a row", "the model has 4",
                 "csv, 6 columns, label last, 1 skipped",
                 "--label-column (0: none) / --skip-columns", NULL);
    result_free(&r);
    ck_assert(!file_exists(out));
    run(&r, "train", "-q", "--iterations", "5", "--label-column", "last",
        "--skip-columns", "1", "--test", narrow, train_as_csv(),
        tmp("t.model"), NULL);
    assert_error(&r, "narrow.csv: 3 features a row", NULL);
    result_free(&r);
    ck_assert(!file_exists(tmp("t.model")));
    /* the same rows as .npy (labels in the companion) */
    const char *npy = tmp("narrow.npy");
    run(&r, "convert", "-q", "--label-column", "last", "--skip-columns", "1",
        narrow, npy, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    result_free(&r);
    run(&r, "predict", model, npy, out, NULL);
    assert_error(&r, "narrow.npy: 3 features a row (npy, 3 columns, no "
                     "label column, 0 skipped)", NULL);
    result_free(&r);

    /* no label column: the model's "last" takes a feature, and the rest
     * is too narrow; --label-column 0 reads it */
    const char *nolabel = tmp("nolabel.csv");
    svm_as_csv(DATA "test.svm", nolabel, 4, 0, 0);
    run(&r, "predict", model, nolabel, out, NULL);
    assert_error(&r, "nolabel.csv: 3 features a row", NULL);
    result_free(&r);
    char *lines;
    char *acc = predict_ok(model, nolabel, &lines, "--label-column", "0");
    ck_assert_str_eq(acc, ""); /* no labels, no accuracy */
    size_t n = 0;
    for (const char *c = lines; *c; c++)
        n += *c == '\n';
    ck_assert_uint_eq(n, 80);
    free(acc);
    free(lines);

    /* wider: the extra column dropped with a warning, the same lines */
    char *want;
    svm_as_csv(DATA "test.svm", tmp("test.csv"), 4, 1, 0);
    char *want_acc = predict_ok(model, tmp("test.csv"), &want, NULL, NULL);
    const char *wide = tmp("wide.csv");
    svm_as_csv(DATA "test.svm", wide, 5, 1, 0);
    run(&r, "predict", model, wide, out, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.err, "warning: ") &&
                      strstr(r.err, "features 5..5 are not in the model "
                                    "(trained on 4); their 80 nonzero"),
                  "%s", r.err);
    ck_assert_str_eq(r.out, want_acc);
    result_free(&r);
    lines = slurp(out);
    ck_assert_str_eq(lines, want);
    free(lines);
    free(want);
    free(want_acc);

    /* a file the model's options cannot read: the error, then which
     * options came from the model */
    const char *one = tmp("one.csv");
    test_write_text(one, "1.5\n-2\n");
    run(&r, "predict", model, one, out, NULL);
    assert_error(&r, "one.csv", "label column 1 is among the 1 skipped "
                                "columns", NULL);
    ck_assert_msg(strstr(r.err, "\nnote: ") &&
                      strstr(r.err, "one.csv was read as the model's "
                                    "training file was (--label-column "
                                    "last --skip-columns 1)"),
                  "%s", r.err);
    result_free(&r);

    /* LIBSVM rows up to index 2 of the model's 4: sparse, read */
    const char *short_svm = tmp("short.svm");
    test_write_text(short_svm, "+1 1:1.1 2:-0.6\n-1 1:-1.2 2:0.9\n-1 2:1\n");
    acc = predict_ok(model, short_svm, &lines, NULL, NULL);
    ck_assert_msg(strstr(acc, "Accuracy = ") && strstr(acc, "/3)"), "%s",
                  acc);
    free(acc);
    free(lines);
}
END_TEST

/* SVMlight's -1 / 0 / +1 without --unlabeled-label is named before any
 * training. The unlabeled label a model was trained with (SVMlight's 0) is
 * recorded and applies to predict too: those rows are scored, not counted;
 * a value given on the command line wins. */
START_TEST(predict_takes_the_model_unlabeled_label)
{
    const char *svm = tmp("t.svm"), *model = tmp("u.model");
    test_write_text(svm, "-1 1:1\n0 1:2\n1 1:3\n-1 1:1.5\n1 1:3.2\n0 1:0.5\n"
                         "-1 1:1.2\n1 1:2.9\n0 1:2.5\n");
    result r;
    /* without the flag: -1, 0 and +1 named before the training starts */
    run(&r, "train", "--iterations", "5", svm, model, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    const char *named = strstr(r.err, "warning: "),
               *trained = strstr(r.err, "\ntrained: ");
    ck_assert_msg(named && trained && named < trained &&
                      strstr(named, "labels -1, 0 and +1 are read as three "
                                    "classes") &&
                      strstr(named, "say --unlabeled-label 0"),
                  "%s", r.err);
    result_free(&r);
    run(&r, "train", "-q", "--unlabeled-label", "0", svm, model, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    result_free(&r);
    char *text = slurp(model);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "\ndata-format libsvm\n"
                               "data-unlabeled-label 0\n"),
                  "%s", text);
    free(text);
    run(&r, "predict", model, svm, tmp("o.txt"), NULL);
    ck_assert_msg(r.status == 0 && strstr(r.out, "/6)") &&
                      !strstr(r.err, "warning"),
                  "%s%s", r.out, r.err);
    result_free(&r);
    /* a test file that does not read: the note names the option taken
     * from the model; a file that does not open: no note */
    const char *bad = tmp("bad.npy");
    test_write_text(bad, "\x93NUMPY junk\n");
    run(&r, "predict", model, bad, tmp("o.txt"), NULL);
    assert_error(&r, "bad.npy", NULL);
    ck_assert_msg(strstr(r.err, "note: ") &&
                      strstr(r.err, "(--unlabeled-label 0)"),
                  "%s", r.err);
    result_free(&r);
    run(&r, "predict", model, tmp("missing.svm"), tmp("o.txt"), NULL);
    assert_error(&r, "missing.svm", NULL);
    ck_assert_msg(!strstr(r.err, "note: "), "%s", r.err);
    result_free(&r);
    run(&r, "predict", "--unlabeled-label", "7", model, svm, tmp("o.txt"),
        NULL);
    ck_assert_msg(r.status == 0 && strstr(r.out, "/9)") &&
                      strstr(r.err, "3 of 9 labeled rows have a label other "
                                    "than the model's"),
                  "%s%s", r.out, r.err);
    result_free(&r);
}
END_TEST

/* The command line itself: an empty --config= name, an option name that is
 * empty or too long, a short option without its value, a fifth file, a bad
 * -g, an svm-train option of another command. */
START_TEST(command_line_shape)
{
    const char *model = tmp("m.model");
    result r;
    run(&r, "train", "--config=", DATA "train.svm", model, NULL);
    assert_error(&r, "--config needs a file name", NULL);
    result_free(&r);
    run(&r, "train", "--=5", DATA "train.svm", model, NULL);
    assert_error(&r, "bad option \"--=5\"", NULL);
    result_free(&r);
    char longopt[80];
    memset(longopt, 'k', sizeof longopt - 1);
    longopt[0] = longopt[1] = '-';
    longopt[sizeof longopt - 1] = '\0';
    run(&r, "train", longopt, DATA "train.svm", model, NULL);
    assert_error(&r, "bad option", "--kkkk", NULL);
    result_free(&r);
    run(&r, "train", DATA "train.svm", model, "-c", NULL);
    assert_error(&r, "option -c needs a value", NULL);
    result_free(&r);
    run(&r, "train", "a", "b", "c", "d", "e", NULL);
    assert_error(&r, "too many arguments (\"e\")", NULL);
    result_free(&r);
    run(&r, "train", "-g", "abc", DATA "train.svm", model, NULL);
    assert_error(&r, "-g (gamma, --sigma)", "abc", NULL);
    result_free(&r);
    run(&r, "predict", "-g", "1", model, DATA "test.svm", NULL);
    assert_error(&r, "unknown option \"-g\"", NULL);
    result_free(&r);
    ck_assert(!file_exists(model));
    /* predict: a test file that does not exist */
    train_small(model);
    run(&r, "predict", model, tmp("none.svm"), NULL);
    assert_error(&r, "none.svm", NULL);
    result_free(&r);
}
END_TEST

/* convert's help and refusals beyond the file names: an unknown option,
 * an output folder that does not exist (the .npy writer's error, nothing
 * left); --max-memory spelled auto, in KiB, or with a unit that is none. */
START_TEST(convert_help_and_memory_sizes)
{
    result r;
    run(&r, "convert", "--help", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "Usage: tsgs3vm convert [options] "
                                        "IN OUT.npy"));
    ck_assert_ptr_nonnull(strstr(r.out, "--max-memory SIZE"));
    result_free(&r);
    run(&r, "convert", "--iterations", "5", DATA "train.svm", tmp("a.npy"),
        NULL);
    assert_error(&r, "unknown option --iterations", NULL);
    result_free(&r);
    run(&r, "convert", DATA "train.svm", tmp("no/such/a.npy"), NULL);
    assert_error(&r, "no/such/a.npy", NULL);
    result_free(&r);
    ck_assert(!file_exists(tmp("a.npy")));

    /* every row unlabeled (NaN labels in the .npy pair): no accuracy to
     * measure for train --test (refused, no model), none printed by
     * predict (its 120 prediction lines are written) */
    const char *u = tmp("u.npy");
    run(&r, "convert", "-q", "--unlabeled-label", "0", DATA "unlabeled.svm",
        u, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    result_free(&r);
    const char *model = tmp("m.model");
    run(&r, "train", "-q", "--iterations", "5", "--test", u,
        DATA "train.svm", model, NULL);
    assert_error(&r, "u.npy: no labeled rows to measure the accuracy on",
                 NULL);
    result_free(&r);
    ck_assert(!file_exists(model));
    train_small(model);
    run(&r, "predict", model, u, "-", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_null(strstr(r.err, "Accuracy"));
    size_t lines = 0;
    for (const char *c = r.out; (c = strchr(c, '\n')); c++)
        lines++;
    ck_assert_uint_eq(lines, 120);
    result_free(&r);
    remove(model);

    run(&r, "train", "-q", "--iterations", "5", "--max-memory", "auto",
        DATA "train.svm", model, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    result_free(&r);
    ck_assert(file_exists(model));
    remove(model);
    run(&r, "train", "--iterations", "5", "--max-memory", "1KiB",
        DATA "train.svm", model, NULL);
    assert_error(&r, "train.svm", "more than the 1.0 KB allowed", NULL);
    result_free(&r);
    run(&r, "train", "--iterations", "5", "--max-memory", "1KB",
        DATA "train.svm", model, NULL);
    assert_error(&r, "train.svm", "more than the 1.0 KB allowed", NULL);
    result_free(&r);
    static const char *const bad[] = {"8X", "8Gb", "-1", "2KiBs", "x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char want[96];
        snprintf(want, sizeof want, "max-memory = \"%s\": expected auto, 0 "
                                    "(no limit) or a size", bad[i]);
        run(&r, "train", "--max-memory", bad[i], DATA "train.svm", model,
            NULL);
        assert_error(&r, want, NULL);
        result_free(&r);
    }
    ck_assert(!file_exists(model));
}
END_TEST

/* ----------------------------------------------------------------- synth */

/* Rows of a LIBSVM text, checked line by line: every label one of the
 * sample's (+1 / -1 as "%.17g" writes them: "1", "-1"), every index
 * increasing in 1 .. max_index; returns the row count. */
static size_t synth_libsvm_rows(const char *text, size_t max_index)
{
    size_t rows = 0;
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        ck_assert_msg(eol, "unterminated last line: %s", p);
        char *end;
        double label = strtod(p, &end);
        ck_assert_msg(end > p && (label == 1.0 || label == -1.0),
                      "row %zu: label in: %.*s", rows, (int)(eol - p), p);
        ck_assert_msg(strncmp(p, label > 0 ? "1 " : "-1 ", label > 0 ? 2 : 3)
                          == 0 || *end == '\n',
                      "row %zu: label spelled as: %.*s", rows, (int)(eol - p),
                      p);
        unsigned long last = 0;
        for (const char *q = end; q < eol;) {
            ck_assert_msg(*q == ' ', "row %zu: %.*s", rows, (int)(eol - p), p);
            unsigned long idx = strtoul(q + 1, &end, 10);
            ck_assert_msg(*end == ':' && idx > last && idx <= max_index,
                          "row %zu: index %lu after %lu in: %.*s", rows, idx,
                          last, (int)(eol - p), p);
            last = idx;
            double v = strtod(end + 1, &end);
            ck_assert_msg(end > q && v == v && v != 0.0,
                          "row %zu: value in: %.*s", rows, (int)(eol - p), p);
            q = end;
        }
        rows++;
        p = eol + 1;
    }
    return rows;
}

/* synth to a file and to stdout: the LIBSVM layout takes any dimension;
 * the bytes depend on the seed only (not on the thread count, not on
 * where they go); the summary names the sample, the rows and the layout. */
START_TEST(synth_libsvm_file_and_stdout)
{
    const char *out = tmp("s.svm");
    result r;
    run(&r, "synth", "--rows", "300", "--layout", "libsvm",
        "--components=2", "--seed", "7", "--threads", "1", DATA "train.svm",
        out, NULL);
    ck_assert_msg(r.status == 0, "synth: %s", r.err);
    ck_assert_msg(strstr(r.err, "synth: SYNTHETIC data: 4 features, 2 "
                                "Gaussians per class fitted to 160 rows of "
                                DATA "train.svm"),
                  "%s", r.err);
    ck_assert_msg(strstr(r.err, "synth: wrote 300 SYNTHETIC rows (libsvm "
                                "layout, seed 7) to "),
                  "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.err, " MB/s\n"));
    ck_assert_str_eq(r.out, "");
    result_free(&r);
    char *file = slurp(out);
    ck_assert_ptr_nonnull(file);
    ck_assert_uint_eq(synth_libsvm_rows(file, 4), 300);
    /* the library reads it back: 300 labeled rows, 4 features */
    tsgs_dataset *ds = test_read_ok(out, NULL);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), 300);
    ck_assert_uint_eq(tsgs_dataset_features(ds), 4);
    ck_assert_uint_eq(tsgs_dataset_labeled_count(ds), 300);
    tsgs_dataset_free(ds);

    /* the same seed to stdout on two threads, options after "--" taken
     * as files: the same bytes; no "wrote ... MB" for a stream */
    run(&r, "synth", "--rows=300", "--layout=libsvm", "--components", "2",
        "--seed", "7", "--threads", "2", "--", DATA "train.svm", "-", NULL);
    ck_assert_msg(r.status == 0, "synth: %s", r.err);
    ck_assert_str_eq(r.out, file);
    ck_assert_ptr_nonnull(strstr(r.err, "to - in "));
    ck_assert_ptr_null(strstr(r.err, " MB"));
    result_free(&r);

    /* another seed: other rows; --quiet: nothing on stderr; 0 rows: an
     * empty file */
    run(&r, "synth", "--rows", "300", "--layout", "libsvm", "--components",
        "2", "--seed", "8", "-q", DATA "train.svm", "-", NULL);
    ck_assert_msg(r.status == 0, "synth: %s", r.err);
    ck_assert_str_eq(r.err, "");
    ck_assert_uint_eq(synth_libsvm_rows(r.out, 4), 300);
    ck_assert_str_ne(r.out, file);
    result_free(&r);
    free(file);
    run(&r, "synth", "--rows", "0", "--layout", "libsvm", "--components",
        "1", "-q", DATA "train.svm", out, NULL);
    ck_assert_msg(r.status == 0, "synth: %s", r.err);
    result_free(&r);
    file = slurp(out);
    ck_assert_ptr_nonnull(file);
    ck_assert_str_eq(file, "");
    free(file);
}
END_TEST

/* Every way synth refuses: its own options without or with a bad value,
 * the wrong number of files, an unknown layout, a fixed layout of another
 * dimension (no file created), a sample that does not read or has one
 * class, an output that cannot be opened or written. */
START_TEST(synth_errors)
{
    const char *out = tmp("s.csv");
    result r;
    run(&r, "synth", "--help", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "Usage: tsgs3vm synth [options] "
                                        "SAMPLE_FILE OUTPUT_FILE"));
    ck_assert_ptr_nonnull(strstr(r.out, "--components K"));
    result_free(&r);

    run(&r, "synth", DATA "train.svm", out, "--rows", NULL);
    assert_error(&r, "option --rows needs a value", NULL);
    result_free(&r);
    run(&r, "synth", "--components", NULL);
    assert_error(&r, "option --components needs a value", NULL);
    result_free(&r);
    static const char *const bad_rows[] = {"-5", "", "12x", "x",
                                           "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad_rows / sizeof *bad_rows; i++) {
        char opt[64], want[64];
        snprintf(opt, sizeof opt, "--rows=%s", bad_rows[i]);
        snprintf(want, sizeof want, "--rows = \"%s\": expected a number of "
                                    "rows >= 0", bad_rows[i]);
        run(&r, "synth", opt, DATA "train.svm", out, NULL);
        assert_error(&r, want, NULL);
        result_free(&r);
    }
    static const char *const bad_k[] = {"0", "257", "-1", "2.5", ""};
    for (size_t i = 0; i < sizeof bad_k / sizeof *bad_k; i++) {
        char want[64];
        snprintf(want, sizeof want, "--components = \"%s\": expected 1 .. "
                                    "256", bad_k[i]);
        run(&r, "synth", "--components", bad_k[i], DATA "train.svm", out,
            NULL);
        assert_error(&r, want, NULL);
        result_free(&r);
    }
    run(&r, "synth", DATA "train.svm", NULL);
    assert_error(&r, "synth needs SAMPLE_FILE and OUTPUT_FILE", NULL);
    result_free(&r);
    run(&r, "synth", "--bogus", DATA "train.svm", out, NULL);
    assert_error(&r, "--bogus", NULL);
    result_free(&r);
    run(&r, "synth", "--layout", "csv", DATA "train.svm", out, NULL);
    assert_error(&r, "--layout", "csv", "susy, hepmass or libsvm", NULL);
    result_free(&r);
    ck_assert(!file_exists(out));

    /* 4 features: neither SUSY (18) nor HEPMASS (28); the default layout
     * is SUSY */
    run(&r, "synth", "--rows", "10", DATA "train.svm", out, NULL);
    assert_error(&r, "the susy layout has 18 features; " DATA "train.svm "
                     "has 4 (use --layout libsvm",
                 NULL);
    result_free(&r);
    run(&r, "synth", "--rows", "10", "--layout", "hepmass", DATA "train.svm",
        out, NULL);
    assert_error(&r, "the hepmass layout has 28 features", NULL);
    result_free(&r);
    ck_assert(!file_exists(out));

    run(&r, "synth", "--layout", "libsvm", tmp("none.svm"), out, NULL);
    assert_error(&r, "none.svm", NULL);
    result_free(&r);
    ck_assert(!file_exists(out));
    const char *one = tmp("one.svm");
    FILE *f = fopen(one, "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 10; i++)
        fprintf(f, "+1 1:%d 2:%d\n", i, 10 - i);
    ck_assert_int_eq(fclose(f), 0);
    run(&r, "synth", "--layout", "libsvm", one, out, NULL);
    assert_error(&r, one, NULL);
    result_free(&r);
    ck_assert(!file_exists(out));

    run(&r, "synth", "--layout", "libsvm", DATA "train.svm",
        tmp("no/such/s.svm"), NULL);
    assert_error(&r, "no/such/s.svm", "cannot open for writing", NULL);
    result_free(&r);
    /* a full device, through a link: the rows fail, never a success, and
     * the link is not removed (only a regular file of partial rows is) */
    const char *full = tmp("full.link");
    ck_assert_int_eq(symlink("/dev/full", full), 0);
    run(&r, "synth", "--layout", "libsvm", "--rows", "20000", DATA "train.svm",
        full, NULL);
    assert_error(&r, "full.link: writing synthetic rows failed", NULL);
    result_free(&r);
    struct stat st;
    ck_assert_int_eq(lstat(full, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    stdout_to = "/dev/full";
    run(&r, "synth", "--layout", "libsvm", "--rows", "20000", DATA "train.svm",
        "-", NULL);
    stdout_to = NULL;
    assert_error(&r, "-: writing synthetic rows failed", NULL);
    result_free(&r);
}
END_TEST

/* ------------------------------------------------ C per row, -wi weights */

/* Whether two files hold the same bytes. */
static int same_file(const char *a, const char *b)
{
    size_t la, lb;
    char *ta = test_read_file(a, &la), *tb = test_read_file(b, &lb);
    ck_assert_ptr_nonnull(ta);
    ck_assert_ptr_nonnull(tb);
    int same = la == lb && memcmp(ta, tb, la) == 0;
    free(ta);
    free(tb);
    return same;
}

/* -c C, --c C, --cost C and --c-total C x n_l (160 labeled rows) are one
 * model, which records "cost C". */
START_TEST(c_is_per_labeled_row_on_the_command_line)
{
    static const char *const ways[][2] = {
        {"-c", "2"}, {"--c", "2"}, {"--cost", "2"}, {"--c-total", "320"}};
    char first[256];
    snprintf(first, sizeof first, "%s", tmp("c0.model"));
    for (size_t i = 0; i < 4; i++) {
        const char *model = i ? tmp("ci.model") : first;
        result r;
        run(&r, "train", "-q", "-g", "0.5", ways[i][0], ways[i][1],
            DATA "train.svm", model, NULL);
        ck_assert_msg(r.status == 0, "%s: %s", ways[i][0], r.err);
        ck_assert_str_eq(r.err, "");
        result_free(&r);
        assert_model_line(model, "cost 2");
        assert_model_line(model, "c-total 0");
        ck_assert_msg(same_file(first, model), "%s %s", ways[i][0],
                      ways[i][1]);
    }
}
END_TEST

/* A config file's "c" keeps the meaning it had, C x the labeled rows
 * (c-total), with a note that names the file and the per-row key; its
 * "cost" is per row, without a note; the command line's -c wins (no
 * note); -q silences the note. */
START_TEST(config_c_keeps_its_old_meaning)
{
    const char *old = tmp("old.conf"), *new = tmp("new.conf");
    FILE *f = fopen(old, "w");
    fputs("# written before C was per row\nc = 320\n", f);
    fclose(f);
    f = fopen(new, "w");
    fputs("cost = 2\n", f);
    fclose(f);
    const char *m_old = tmp("old.model"), *m_new = tmp("new.model"),
               *m_cl = tmp("cl.model");
    result r;
    run(&r, "train", "-g", "0.5", "--config", old, DATA "train.svm", m_old,
        NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.err, "note: ") && strstr(r.err, old) &&
                      strstr(r.err, "c = 320 is read as c-total") &&
                      strstr(r.err, "cost = C per labeled row"),
                  "%s", r.err);
    result_free(&r);
    run(&r, "train", "-g", "0.5", "--config", new, DATA "train.svm", m_new,
        NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_null(strstr(r.err, "note: "));
    result_free(&r);
    ck_assert(same_file(m_old, m_new)); /* 320 / 160 rows = 2 per row */
    assert_model_line(m_old, "cost 2");
    run(&r, "train", "-q", "-g", "0.5", "--config", old, DATA "train.svm",
        m_old, NULL);
    ck_assert_str_eq(r.err, "");
    result_free(&r);
    run(&r, "train", "-g", "0.5", "--config", old, "-c", "4",
        DATA "train.svm", m_cl, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_null(strstr(r.err, "note: "));
    result_free(&r);
    assert_model_line(m_cl, "cost 4");
    /* nor when a later C replaces it: the command line's total, or a
     * second config file's cost */
    run(&r, "train", "-g", "0.5", "--config", old, "--c-total", "160",
        DATA "train.svm", m_cl, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_null(strstr(r.err, "note: "));
    result_free(&r);
    assert_model_line(m_cl, "cost 1");
    run(&r, "train", "-g", "0.5", "--config", old, "--config", new,
        DATA "train.svm", m_cl, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_null(strstr(r.err, "note: "));
    result_free(&r);
    ck_assert(same_file(m_cl, m_new));
}
END_TEST

/* Model files written before C was per row (format 1, by the tool at
 * b115dc7) predict as they did: the same bytes as that tool wrote. */
START_TEST(format_1_models_predict_as_before)
{
    static const char *const models[] = {"v1_default", "v1_ovr"};
    for (int i = 0; i < 2; i++) {
        char model[64], want[64];
        snprintf(model, sizeof model, DATA "%s.model", models[i]);
        snprintf(want, sizeof want, DATA "%s.pred", models[i]);
        const char *out = tmp("v1.pred");
        result r;
        run(&r, "predict", "-q", "--decision-values", model, DATA "test.svm",
            out, NULL);
        ck_assert_msg(r.status == 0, "%s: %s", model, r.err);
        result_free(&r);
        ck_assert_msg(same_file(out, want), "%s", model);
    }
}
END_TEST

/* Labels of a prediction file's lines equal to `label`. */
static size_t count_predicted(const char *path, double label)
{
    double y[200];
    size_t n = read_labels(path, y, 200), k = 0;
    for (size_t i = 0; i < n; i++)
        k += y[i] == label;
    return k;
}

/* -wLABEL WEIGHT: recorded in the model as --class-weight writes it;
 * a weight on class 1 predicts more rows as 1, on -1 fewer. */
START_TEST(class_weights_on_the_command_line)
{
    const char *m = tmp("w.model"), *m2 = tmp("w2.model"),
               *out = tmp("w.out");
    size_t counts[3];
    static const char *const weights[][4] = {
        {"-w1", "1", "-w-1", "1"}, {"-w+1", "10", "-w-1", "1"},
        {"-w-1", "10", "-w1", "1"}};
    for (int k = 0; k < 3; k++) {
        result r;
        run(&r, "train", "-q", "-c", "1", "-g", "0.5", weights[k][0],
            weights[k][1], weights[k][2], weights[k][3], DATA "train.svm", m,
            NULL);
        ck_assert_msg(r.status == 0, "%s", r.err);
        result_free(&r);
        run(&r, "predict", "-q", m, DATA "test.svm", out, NULL);
        ck_assert_msg(r.status == 0, "%s", r.err);
        result_free(&r);
        counts[k] = count_predicted(out, 1);
    }
    ck_assert_msg(counts[1] > counts[0] && counts[2] < counts[0],
                  "rows predicted 1: %zu with weights 1, %zu with -w1 10, "
                  "%zu with -w-1 10",
                  counts[0], counts[1], counts[2]);
    assert_model_line(m, "class-weight -1:1e+01,1:1");
    result r;
    run(&r, "train", "-q", "-c", "1", "-g", "0.5", "--class-weight",
        "-1:10,1:1", DATA "train.svm", m2, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    result_free(&r);
    ck_assert(same_file(m, m2));
    /* a config file's key; cv takes them too */
    const char *conf = tmp("w.conf");
    FILE *f = fopen(conf, "w");
    fputs("class-weight = -1:10,1:1\n", f);
    fclose(f);
    run(&r, "train", "-q", "-c", "1", "-g", "0.5", "--config", conf,
        DATA "train.svm", m2, NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    result_free(&r);
    ck_assert(same_file(m, m2));
    run(&r, "cv", "-q", "-w1", "3", "--grid", "c=1", "--folds", "3",
        DATA "train.svm", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    result_free(&r);
}
END_TEST

/* Bad -w values are refused before any work, each naming the flag; a
 * label no row has is a warning (as svm-train's), and training goes on. */
START_TEST(class_weight_errors)
{
    const char *m = tmp("w.model");
    static const char *const bad[][3] = {
        {"-wx", "1", "\"x\" is not a class label"},
        {"-w1x", "1", "\"1x\" is not a class label"},
        {"-wnan", "1", "is not a class label"},
        {"-w1", "0", "positive finite number"},
        {"-w1", "-2", "positive finite number"},
        {"-w1", "nan", "positive finite number"},
        {"-w1", "inf", "positive finite number"},
        {"-w1", "abc", "positive finite number"},
        {"--class-weight", "1:0", "class-weight"},
        {"--class-weight", "1:2,1:3", "given twice"},
    };
    result r;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run(&r, "train", bad[i][0], bad[i][1], DATA "train.svm", m, NULL);
        assert_error(&r, bad[i][0], bad[i][2], NULL);
        result_free(&r);
    }
    run(&r, "train", "-w", "3", DATA "train.svm", m, NULL);
    assert_error(&r, "-w needs the class label", "-wLABEL WEIGHT", NULL);
    result_free(&r);
    run(&r, "train", DATA "train.svm", m, "-w1", NULL);
    assert_error(&r, "-w1", "needs a value", NULL);
    result_free(&r);
    ck_assert(!file_exists(m));
    run(&r, "train", "-c", "1", "-g", "0.5", "-w7", "2", DATA "train.svm", m,
        NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.err, "warning: " DATA "train.svm: no labeled row "
                                "has label 7: its class weight (-w7 2) is "
                                "unused"),
                  "%s", r.err);
    result_free(&r);
    run(&r, "predict", "-w1", "2", m, DATA "test.svm", tmp("o"), NULL);
    assert_error(&r, "-w1", "when training", NULL);
    result_free(&r);
}
END_TEST

/* cv's C is per labeled row on every axis spelling and with -c: the same
 * figures for --grid c=, --grid cost= and -c alone. */
START_TEST(cv_c_is_per_labeled_row)
{
    double by_c[2], by_cost[2], alone;
    result r;
    run(&r, "cv", "-q", "-g", "0.5", "--grid", "c=1,100", "--folds", "3",
        DATA "train.svm", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_eq(cv_table(r.out, 1, by_c, 2), 2);
    result_free(&r);
    run(&r, "cv", "-q", "-g", "0.5", "--grid", "cost=1,100", "--folds", "3",
        DATA "train.svm", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_eq(cv_table(r.out, 1, by_cost, 2), 2);
    result_free(&r);
    ck_assert(by_c[0] == by_cost[0] && by_c[1] == by_cost[1]);
    run(&r, "cv", "-q", "-g", "0.5", "-c", "100", "--folds", "3",
        "--grid", "seed=1", DATA "train.svm", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_eq(cv_table(r.out, 1, &alone, 1), 1);
    result_free(&r);
    ck_assert_double_eq(alone, by_c[1]);
}
END_TEST

/* ---------------------------------------------------------- checkpoints */

/* Waits (up to 30 s) until path exists; whether it does. */
static int wait_for_file(const char *path)
{
    for (int k = 0; k < 3000 && !file_exists(path); k++)
        usleep(10000);
    return file_exists(path);
}

/* A run killed (SIGKILL) once its first checkpoint is written leaves no
 * model; --resume goes on from the checkpoint to the model file, byte for
 * byte, of the run never killed. Ctrl-C (SIGINT) writes the checkpoint
 * at the step it stops at and says how to go on; that resumes to the same
 * file too. A corrupt checkpoint is refused naming the file. */
START_TEST(killed_run_resumes_to_the_same_model)
{
    const char *data = tmp("d.svm"), *ref = tmp("ref.model"),
               *model = tmp("m.model"), *ck = tmp("run.ckpt");
    result r;
    run(&r, "synth", "--quiet", "--rows", "3000", "--components", "2",
        "--layout", "libsvm", "data/real/cod-rna.txt.xz", data, NULL);
    ck_assert_msg(r.status == 0, "synth: %s", r.err);
    result_free(&r);
#define CK_RUN "train", "--quiet", "--labeled", "200", "--solver", "tsg", \
        "--iterations", "4000", "-c", "1", "-g", "0.5", "--max-features", \
        "256"
    run(&r, CK_RUN, data, ref, NULL);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    result_free(&r);
    for (int sig = 0; sig < 2; sig++) {
        unlink(ck);
        pid_t pid = start(CK_RUN, "--checkpoint", ck, "--checkpoint-steps",
                          "300", data, model, NULL);
        ck_assert_msg(wait_for_file(ck), "no checkpoint written");
        ck_assert_int_eq(kill(pid, sig ? SIGINT : SIGKILL), 0);
        finish(pid, &r);
        if (sig) {
            ck_assert_int_eq(r.status, 128 + SIGINT);
            ck_assert_msg(strstr(r.err, "--resume"), "%s", r.err);
            ck_assert(file_exists(tmp("m.model.partial")));
        } else {
            ck_assert_int_eq(r.status, 1000 + SIGKILL);
        }
        result_free(&r);
        ck_assert(!file_exists(model));
        run(&r, CK_RUN, "--checkpoint", ck, "--resume", ck, data, model,
            NULL);
        ck_assert_msg(r.status == 0, "resume: %s", r.err);
        result_free(&r);
        char *a = slurp(ref), *b = slurp(model);
        ck_assert_ptr_nonnull(a);
        ck_assert_ptr_nonnull(b);
        ck_assert_msg(strcmp(a, b) == 0, "%s: resumed model differs",
                      sig ? "SIGINT" : "SIGKILL");
        free(a);
        free(b);
        unlink(model);
    }
    write_text(ck, "TSGSCKPT garbage");
    run(&r, CK_RUN, "--resume", ck, data, model, NULL);
    assert_error(&r, ck, "checkpoint field", NULL);
    result_free(&r);
    run(&r, CK_RUN, "--solver", "safe", "--resume", ck, data, model, NULL);
    assert_error(&r, "not checkpointed", NULL);
    result_free(&r);
#undef CK_RUN
    assert_no_temp();
}
END_TEST

Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("tool");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, train_then_predict);
    tcase_add_test(tc, train_with_test_file);
    tcase_add_test(tc, test_file_sample);
    tcase_add_test(tc, help_lists_every_key);
    tcase_add_test(tc, killed_run_resumes_to_the_same_model);
    tcase_add_test(tc, bad_options);
    tcase_add_test(tc, memory_refused_up_front);
    tcase_add_test(tc, wide_rows_refused_naming_the_input);
    tcase_add_test(tc, wide_rows_refused_by_their_time);
    tcase_add_test(tc, issue_wide_inputs_refused_within_a_second);
    tcase_add_test(tc, auto_limit_honours_rlimit_as);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, predict_bad_inputs);
    tcase_add_test(tc, predict_in_blocks_same_lines);
    tcase_add_test(tc, predict_wide_sparse_same_bytes_any_block);
    tcase_add_test(tc, predict_killed_leaves_a_temporary_the_next_removes);
    tcase_add_test(tc, foreign_labels_warn);
    tcase_add_test(tc, thread_count_from_the_environment_capped);
    tcase_add_test(tc, label_column_by_header_and_label_like_features);
    tcase_add_test(tc, special_files);
    tcase_add_test(tc, config_unknown_key);
    tcase_add_test(tc, command_line_beats_config);
    tcase_add_test(tc, svm_train_short_options);
    tcase_add_test(tc, multiclass_train_predict);
    tcase_add_test(tc, given_c_and_gamma_say_no_cv_ran);
    tcase_add_test(tc, labeled_keeps_n);
    tcase_add_test(tc, unlabeled_file_and_label);
    tcase_add_test(tc, interrupt_saves_model);
    tcase_add_test(tc, sigterm_during_wide_training_is_prompt);
    tcase_add_test(tc, sigint_while_reading_exits_at_once);
    tcase_add_loop_test(tc, sigterm_during_a_long_read_is_prompt, 0, 3);
    tcase_add_test(tc, quiet_is_quiet);
    tcase_add_test(tc, cv_ties_go_to_the_largest_c);
    tcase_add_test(tc, usage_version_unknown_command);
    tcase_add_test(tc, topology_options);
    tcase_add_test(tc, write_failures_are_errors);
    tcase_add_test(tc, train_test_file_errors);
    tcase_add_test(tc, cv_matches_library);
    tcase_add_test(tc, cv_write_config_round_trip);
    tcase_add_test(tc, cv_unlabeled_and_labeled);
    tcase_add_test(tc, cv_bad_options);
    tcase_add_test(tc, cv_help);
    tcase_add_test(tc, cv_ties_use_neighbourhood);
    tcase_add_test(tc, convert_then_train_predict_cv);
    tcase_add_test(tc, convert_sparse_file);
    tcase_add_test(tc, topology_this_machine);
    tcase_add_test(tc, topology_synthetic_scatter);
    tcase_add_test(tc, data_options_on_csv);
    tcase_add_test(tc, predict_reads_as_the_model_was_trained);
    tcase_add_test(tc, predict_refuses_a_narrower_file);
    tcase_add_test(tc, predict_takes_the_model_unlabeled_label);
    tcase_add_test(tc, command_line_shape);
    tcase_add_test(tc, convert_help_and_memory_sizes);
    tcase_add_test(tc, synth_libsvm_file_and_stdout);
    tcase_add_test(tc, synth_errors);
    tcase_add_test(tc, c_is_per_labeled_row_on_the_command_line);
    tcase_add_test(tc, config_c_keeps_its_old_meaning);
    tcase_add_test(tc, format_1_models_predict_as_before);
    tcase_add_test(tc, class_weights_on_the_command_line);
    tcase_add_test(tc, class_weight_errors);
    tcase_add_test(tc, cv_c_is_per_labeled_row);
    suite_add_tcase(s, tc);
    return s;
}
