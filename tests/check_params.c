/* Parameters and config files: defaults are valid, every key parses
 * strictly and reads back, errors name the key (and file and line). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

START_TEST(defaults_are_valid)
{
    tsgs_params p = tsgs_params_default();
    tsgs_error err;
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_OK);
    ck_assert_int_eq(p.feature_map, TSGS_FEATURES_PAIR);
    ck_assert_int_eq(p.balance, -1);
    ck_assert_double_gt(p.anneal, 0.0);
    ck_assert_int_eq(p.max_features, -1);
}
END_TEST

/* Every key's printed default sets the same value back. */
/* All keys of p formatted, one per line, to compare two values. */
static void dump(const tsgs_params *p, char *buf, size_t size)
{
    char value[64];
    const char *key;
    buf[0] = '\0';
    for (size_t i = 0; (key = tsgs_params_key(i, p, value, sizeof value, NULL)); i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s=%s\n", key, value);
    }
}

START_TEST(every_key_round_trips)
{
    tsgs_params p = tsgs_params_default(), q = tsgs_params_default();
    q.c = 123.5;
    q.kernel = TSGS_KERNEL_LAPLACIAN;
    q.seed = UINT64_C(18446744073709551615);
    ck_assert_int_eq(tsgs_params_set_class_weight(&q, 1, 5, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs_params_set_class_weight(&q, -1, 0.1, NULL),
                     TSGS_OK);
    char value[TSGS_PARAM_VALUE_MAX];
    const char *key, *help;
    size_t n = 0;
    for (size_t i = 0; (key = tsgs_params_key(i, &q, value, sizeof value, &help)); i++) {
        ck_assert_ptr_nonnull(help);
        ck_assert_int_eq(tsgs_params_set(&p, key, value, NULL), TSGS_OK);
        n++;
    }
    ck_assert_uint_ge(n, 20);
    char a[4096], b[4096];
    dump(&p, a, sizeof a);
    dump(&q, b, sizeof b);
    ck_assert_str_eq(a, b);
    ck_assert_ptr_nonnull(strstr(a, "seed=18446744073709551615\n"));
    ck_assert_ptr_nonnull(strstr(a, "\ncost=123.5\nc-total=0\n"));
    ck_assert_ptr_nonnull(strstr(a, "\nclass-weight=1:5,-1:0.1\n"));
}
END_TEST

/* C per labeled row is "cost", "c" its other name (svm-train's -c);
 * "c-total" the older unit, C x n_l. One setting: a positive value of one
 * clears the other, 0 clears nothing, and both set is refused. */
START_TEST(cost_c_and_c_total)
{
    tsgs_params p = tsgs_params_default();
    tsgs_error err;
    ck_assert_int_eq(tsgs_params_set(&p, "c", "2.5", &err), TSGS_OK);
    ck_assert(p.c == 2.5 && p.c_total == 0.0);
    ck_assert_int_eq(tsgs_params_set(&p, "cost", "4", &err), TSGS_OK);
    ck_assert(p.c == 4.0);
    ck_assert_int_eq(tsgs_params_set(&p, "c-total", "0", &err), TSGS_OK);
    ck_assert(p.c == 4.0 && p.c_total == 0.0);
    ck_assert_int_eq(tsgs_params_set(&p, "c-total", "320", &err), TSGS_OK);
    ck_assert(p.c == 0.0 && p.c_total == 320.0);
    ck_assert_int_eq(tsgs_params_set(&p, "cost", "0", &err), TSGS_OK);
    ck_assert(p.c == 0.0 && p.c_total == 320.0);
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_OK);
    ck_assert_int_eq(tsgs_params_set(&p, "c", "8", &err), TSGS_OK);
    ck_assert(p.c == 8.0 && p.c_total == 0.0);
    p.c_total = 100.0; /* both in the struct: refused, naming both */
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "cost = 8 and c-total = 100"));
    ck_assert_int_eq(tsgs_params_set(&p, "c-total", "-1", &err),
                     TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "c-total"));
    /* the help names the unit */
    const char *help, *key;
    for (size_t i = 0; (key = tsgs_params_key(i, &p, NULL, 0, &help)); i++)
        if (strcmp(key, "cost") == 0)
            ck_assert_ptr_nonnull(strstr(help, "each labeled row"));
}
END_TEST

START_TEST(bad_values_name_the_key)
{
    tsgs_params p = tsgs_params_default();
    tsgs_error err;
    static const char *bad[][2] = {
        {"c", "abc"}, {"c", "-1"}, {"c", "nan"}, {"c", "inf"}, {"eta", "1"},
        {"kernel", "poly"}, {"block-size", "0"}, {"block-size", "3x"},
        {"threads", "-2"}, {"anneal", "1.5"}, {"seed", "-4"}, {"passes", "-1"},
        {"balance", "3"}, {"uloss", ""}, {"max-features", "-7"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(tsgs_params_set(&p, bad[i][0], bad[i][1], &err),
                         TSGS_ERR_PARAM);
        ck_assert_ptr_nonnull(strstr(err.message, bad[i][0]));
    }
    ck_assert_int_eq(tsgs_params_set(&p, "no-such-key", "1", &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "no-such-key"));
    /* nothing was changed by the rejected values */
    tsgs_params d = tsgs_params_default();
    char a[4096], b[4096];
    dump(&p, a, sizeof a);
    dump(&d, b, sizeof b);
    ck_assert_str_eq(a, b);
}
END_TEST

START_TEST(check_catches_inconsistent_values)
{
    tsgs_params p = tsgs_params_default();
    tsgs_error err;
    p.block_size = 5; /* odd with pair features */
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "block-size"));
    p = tsgs_params_default();
    p.step = TSGS_STEP_DECAYING;
    p.theta = 2;
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "theta"));
    p = tsgs_params_default();
    p.sigma = -1;
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "sigma"));
    p = tsgs_params_default();
    p.uloss = (tsgs_uloss)9;
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "uloss: value 9 is not one"));
    p = tsgs_params_default();
    p.solver = (tsgs_solver)-1;
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "solver: value -1"));
    p = tsgs_params_default();
    p.directions = TSGS_DIRECTIONS_ORTHOGONAL;
    p.kernel = TSGS_KERNEL_LAPLACIAN;
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "directions = orthogonal"));
    p = tsgs_params_default();
    p.solver = TSGS_SOLVER_SAFE;
    p.balance = TSGS__BALANCE_CENTRED;
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "balance = 2"));
    p = tsgs_params_default();
    p.eta = 1.0; /* the decay 1 - 1/eta would be 0 */
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "eta = 1:"));
    p = tsgs_params_default();
    p.balance_ratio = 0.0;
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "balance-ratio = 0"));
    ck_assert_int_eq(tsgs_params_check(NULL, &err), TSGS_ERR_PARAM);
    /* the heap copy a binding uses starts at the defaults */
    tsgs_params *h = tsgs_params_new();
    ck_assert_ptr_nonnull(h);
    p = tsgs_params_default();
    ck_assert_int_eq(h->solver, p.solver);
    ck_assert_int_eq(h->scale, p.scale);
    ck_assert(h->c == p.c && h->sigma == p.sigma && h->seed == p.seed);
    ck_assert_int_eq(tsgs_params_check(h, &err), TSGS_OK);
    tsgs_params_free(h);
}
END_TEST

static tsgs_status set_param(const char *key, const char *value, void *user,
                             tsgs_error *err)
{
    return tsgs_params_set(user, key, value, err);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

START_TEST(config_file_sets_params)
{
    const char *path = "tmp_params.conf";
    write_file(path, "# a comment\n\n  c = 42   # trailing comment\r\n"
                     "kernel=laplacian\nmax-features = 0");
    tsgs_params p = tsgs_params_default();
    tsgs_error err;
    ck_assert_int_eq(tsgs_config_read(path, set_param, &p, &err), TSGS_OK);
    ck_assert_double_eq(p.c, 42);
    ck_assert_int_eq(p.kernel, TSGS_KERNEL_LAPLACIAN);
    ck_assert_int_eq(p.max_features, 0);
    remove(path);
}
END_TEST

START_TEST(config_errors_name_file_and_line)
{
    const char *path = "tmp_bad.conf";
    tsgs_params p = tsgs_params_default();
    tsgs_error err;
    write_file(path, "c = 1\n\nbogus = 3\n");
    ck_assert_int_eq(tsgs_config_read(path, set_param, &p, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "tmp_bad.conf:3:"));
    ck_assert_ptr_nonnull(strstr(err.message, "bogus"));
    ck_assert_int_eq(err.line, 3);
    write_file(path, "c 1\n");
    ck_assert_int_eq(tsgs_config_read(path, set_param, &p, &err), TSGS_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(err.message, "tmp_bad.conf:1:"));
    write_file(path, "eta = \n");
    ck_assert_int_eq(tsgs_config_read(path, set_param, &p, &err), TSGS_ERR_PARSE);
    write_file(path, "eta = 0.5\n");
    ck_assert_int_eq(tsgs_config_read(path, set_param, &p, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "eta"));
    /* binary data and odd keys are named by their byte, never echoed */
    write_file(path, "c = 1\n\x01\x02 = \xff\n");
    ck_assert_int_eq(tsgs_config_read(path, set_param, &p, &err), TSGS_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(err.message, "tmp_bad.conf:2: byte 0x01 at column 1"));
    ck_assert_ptr_null(strchr(err.message, '\x02'));
    write_file(path, "\xff\xfe = 3\n");
    ck_assert_int_eq(tsgs_config_read(path, set_param, &p, &err), TSGS_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(err.message, "byte 0xff"));
    ck_assert_ptr_null(strchr(err.message, '\xfe'));
    /* a UTF-8 byte order mark is skipped, as in data files */
    write_file(path, "\xef\xbb\xbf" "c = 7\n");
    ck_assert_int_eq(tsgs_config_read(path, set_param, &p, &err), TSGS_OK);
    ck_assert_double_eq(p.c, 7);
    remove(path);
    ck_assert_int_eq(tsgs_config_read("no/such.conf", set_param, &p, &err), TSGS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "no/such.conf"));
}
END_TEST

START_TEST(status_names)
{
    for (int s = TSGS_OK; s <= TSGS_ERR_INTERNAL; s++)
        ck_assert_str_ne(tsgs_status_name((tsgs_status)s), "unknown status");
}
END_TEST

Suite *params_suite(void)
{
    Suite *s = suite_create("params");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, defaults_are_valid);
    tcase_add_test(tc, every_key_round_trips);
    tcase_add_test(tc, cost_c_and_c_total);
    tcase_add_test(tc, bad_values_name_the_key);
    tcase_add_test(tc, check_catches_inconsistent_values);
    tcase_add_test(tc, config_file_sets_params);
    tcase_add_test(tc, config_errors_name_file_and_line);
    tcase_add_test(tc, status_names);
    suite_add_tcase(s, tc);
    return s;
}
