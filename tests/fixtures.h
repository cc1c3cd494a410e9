/* Small seeded datasets shared by the solver and model tests. */
#ifndef TSGS_TEST_FIXTURES_H
#define TSGS_TEST_FIXTURES_H

#include "tsgs3vm.h"

/* The tool of the build under test, relative to tests/ (the Makefile sets
 * it for its build folder). */
#ifndef TEST_TOOL
#define TEST_TOOL "../build/tsgs3vm"
#endif

/* Two Gaussian blobs in d dimensions, centres at -sep/2 and +sep/2 along
 * every axis; a fraction pos_frac of the rows positive (label +1, else -1);
 * the first n_labeled rows keep their labels, the rest are unlabeled.
 * Labeled rows are drawn to have labeled_pos positives among them. */
tsgs_dataset *fixture_blobs(size_t n, size_t d, double sep, double pos_frac,
                            size_t n_labeled, size_t labeled_pos,
                            unsigned seed, double **truth);

/* Two interleaved half moons (a non-linear boundary), labels +1 / -1. */
tsgs_dataset *fixture_moons(size_t n, size_t n_labeled, double noise,
                            unsigned seed, double **truth);

/* A whole file (a regular file, a pipe, a tool's captured output) as a
 * NUL-terminated string; *len (if not NULL) gets its length. NULL when it
 * cannot be opened. */
char *test_read_file(const char *path, size_t *len);

/* Reads a data file that must read (o: NULL for the defaults); a failure
 * fails the test with the library's message. */
tsgs_dataset *test_read_ok(const char *path, const tsgs_read_options *o);

/* A fresh scratch folder /tmp/tsgs-NAME-XXXXXX into dir (size bytes);
 * test_remove_dir removes it with the files in it (not subfolders). */
void test_make_dir(char *dir, size_t size, const char *name);
void test_remove_dir(const char *dir);

/* Writes text (its bytes, no terminator) to path; fails the test if it
 * cannot. */
void test_write_text(const char *path, const char *text);
/* Seconds on a monotonic clock (the library's, tsgs__now_s). */
double test_now_s(void);

#define TEST_SKIP_LOG "skipped.log"

/* Records that a test case could not run here (and why): printed at once
 * and counted by the runner at the end, so a skip never passes silently. */
void test_skip(const char *test, const char *why);
/* The kernels' path isa (a tsgs__isa) forced for the test: 1, or 0 after
 * the test "WHAT on ISA" is skipped where this CPU (or build) lacks it. */
int test_force_isa(int isa, const char *what);

#endif
