/* Class weights as parameters (class_weight.c): set one at a time (the
 * tool's -wLABEL W), the "class-weight" key's text both ways, and every
 * value refused with the entry and the reason. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* p's "class-weight" value as tsgs_params_key writes it. */
static const char *weights_text(const tsgs_params *p, char *buf, size_t size)
{
    const char *key;
    for (size_t i = 0; (key = tsgs_params_key(i, p, buf, size, NULL)); i++)
        if (strcmp(key, "class-weight") == 0)
            return buf;
    ck_abort_msg("no class-weight key");
    return NULL;
}

START_TEST(set_replaces_or_adds)
{
    tsgs_params p = tsgs_params_default();
    char buf[TSGS_PARAM_VALUE_MAX];
    ck_assert_int_eq(p.n_class_weights, 0);
    ck_assert_str_eq(weights_text(&p, buf, sizeof buf), "none");
    ck_assert_int_eq(tsgs_params_set_class_weight(&p, 1, 5, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs_params_set_class_weight(&p, -1, 0.5, NULL),
                     TSGS_OK);
    ck_assert_int_eq(tsgs_params_set_class_weight(&p, 1, 3, NULL), TSGS_OK);
    ck_assert_int_eq(p.n_class_weights, 2);
    ck_assert_str_eq(weights_text(&p, buf, sizeof buf), "1:3,-1:0.5");
    ck_assert_double_eq(tsgs__class_weight_of(&p, 1), 3);
    ck_assert_double_eq(tsgs__class_weight_of(&p, -1), 0.5);
    ck_assert_double_eq(tsgs__class_weight_of(&p, 2), 1); /* unlisted */
    ck_assert_int_eq(tsgs_params_check(&p, NULL), TSGS_OK);
}
END_TEST

START_TEST(set_refuses_bad_pairs)
{
    tsgs_params p = tsgs_params_default();
    tsgs_error err;
    static const double bad[][2] = {{1, 0},   {1, -2},        {1, NAN},
                                    {1, INFINITY}, {NAN, 1}, {INFINITY, 2}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(tsgs_params_set_class_weight(&p, bad[i][0],
                                                      bad[i][1], &err),
                         TSGS_ERR_PARAM);
        ck_assert_ptr_nonnull(strstr(err.message, "class-weight"));
    }
    ck_assert_int_eq(p.n_class_weights, 0);
    ck_assert_int_eq(tsgs_params_set_class_weight(NULL, 1, 1, &err),
                     TSGS_ERR_PARAM);
    for (int k = 0; k < TSGS_MAX_CLASS_WEIGHTS; k++)
        ck_assert_int_eq(tsgs_params_set_class_weight(&p, k, 2, NULL),
                         TSGS_OK);
    ck_assert_int_eq(tsgs_params_set_class_weight(&p, 1000, 2, &err),
                     TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "at most 64"));
    /* an existing label is still replaced when the list is full */
    ck_assert_int_eq(tsgs_params_set_class_weight(&p, 3, 7, NULL), TSGS_OK);
    ck_assert_double_eq(tsgs__class_weight_of(&p, 3), 7);
}
END_TEST

/* The key's text reads back to the same list, a full list of long
 * numbers included. */
START_TEST(text_round_trips)
{
    tsgs_params p = tsgs_params_default(), q = tsgs_params_default();
    tsgs_error err;
    ck_assert_int_eq(tsgs_params_set(&p, "class-weight", "+1:5,-1:0.25,2.5:1e3",
                                     &err),
                     TSGS_OK);
    ck_assert_int_eq(p.n_class_weights, 3);
    ck_assert_double_eq(p.class_weights[0].label, 1);
    ck_assert_double_eq(p.class_weights[2].label, 2.5);
    ck_assert_double_eq(p.class_weights[2].weight, 1000);
    char buf[TSGS_PARAM_VALUE_MAX];
    ck_assert_str_eq(weights_text(&p, buf, sizeof buf), "1:5,-1:0.25,2.5:1e+03");
    p = tsgs_params_default();
    for (int k = 0; k < TSGS_MAX_CLASS_WEIGHTS; k++)
        ck_assert_int_eq(tsgs_params_set_class_weight(
                             &p, -1e-300 * (k + 1) / 3.0,
                             3.141592653589793 * (k + 1), NULL),
                         TSGS_OK);
    weights_text(&p, buf, sizeof buf);
    ck_assert_int_eq(tsgs_params_set(&q, "class-weight", buf, &err), TSGS_OK);
    ck_assert_int_eq(q.n_class_weights, p.n_class_weights);
    ck_assert_int_eq(memcmp(q.class_weights, p.class_weights,
                            sizeof p.class_weights),
                     0);
    ck_assert_int_eq(tsgs_params_set(&q, "class-weight", "none", &err),
                     TSGS_OK);
    ck_assert_int_eq(q.n_class_weights, 0);
}
END_TEST

/* Each bad text is refused naming the key, the entry and why; the list
 * is left as it was. */
START_TEST(bad_text_refused)
{
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"1", "entry 1: expected LABEL:WEIGHT"},
        {"1:", "entry 1: expected LABEL:WEIGHT"},
        {"1:2,", "entry 2: expected LABEL:WEIGHT"},
        {"1:2,,3:4", "entry 2"},
        {"a:1", "entry 1"},
        {"1:x", "entry 1"},
        {"1:2x", "entry 1"},
        {"1:0", "the weight must be a positive finite number"},
        {"1:-3", "the weight must be a positive finite number"},
        {"1:nan", "the weight must be a positive finite number"},
        {"-1:1,1:inf", "entry 2: the weight must be"},
        {"nan:1", "the label must be a finite number"},
        {"1:2,1:3", "entry 2: the label is given twice"},
        {"1:1e999", "entry 1"},
        {"", "entry 1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tsgs_params p = tsgs_params_default();
        ck_assert_int_eq(tsgs_params_set_class_weight(&p, 7, 2, NULL),
                         TSGS_OK);
        tsgs_error err;
        ck_assert_int_eq(tsgs_params_set(&p, "class-weight", bad[i].text,
                                         &err),
                         TSGS_ERR_PARAM);
        ck_assert_msg(strstr(err.message, "class-weight") &&
                          strstr(err.message, bad[i].says),
                      "\"%s\": %s", bad[i].text, err.message);
        ck_assert_int_eq(p.n_class_weights, 1);
        ck_assert_double_eq(p.class_weights[0].label, 7);
    }
    /* 65 entries: one too many */
    char text[TSGS_PARAM_VALUE_MAX] = "";
    for (int k = 0; k <= TSGS_MAX_CLASS_WEIGHTS; k++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%d:1",
                 k ? "," : "", k);
    tsgs_params p = tsgs_params_default();
    tsgs_error err;
    ck_assert_int_eq(tsgs_params_set(&p, "class-weight", text, &err),
                     TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "entry 65"));
}
END_TEST

/* A list written into the struct by hand is checked as the text is. */
START_TEST(check_refuses_bad_lists)
{
    tsgs_params p = tsgs_params_default();
    tsgs_error err;
    p.n_class_weights = TSGS_MAX_CLASS_WEIGHTS + 1;
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "65 entries"));
    p.n_class_weights = -1;
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_ERR_PARAM);
    p.n_class_weights = 2;
    p.class_weights[0] = (tsgs_class_weight){1, 2};
    p.class_weights[1] = (tsgs_class_weight){1, 3};
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "entry 2 (1:3): the label is "
                                              "given twice"));
    p.class_weights[1] = (tsgs_class_weight){-1, 0};
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "entry 2"));
    p.class_weights[1] = (tsgs_class_weight){-1, 0.5};
    ck_assert_int_eq(tsgs_params_check(&p, &err), TSGS_OK);
}
END_TEST

Suite *class_weight_suite(void)
{
    Suite *s = suite_create("class_weight");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, set_replaces_or_adds);
    tcase_add_test(tc, set_refuses_bad_pairs);
    tcase_add_test(tc, text_round_trips);
    tcase_add_test(tc, bad_text_refused);
    tcase_add_test(tc, check_refuses_bad_lists);
    suite_add_tcase(s, tc);
    return s;
}
