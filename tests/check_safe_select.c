/* The safe solver's selection rules on hand-made held-out records: the
 * path kept only beyond its margin, its choice of temperature paid for on
 * the other repeat (against a brute-force count), the hot temperatures
 * never candidates, and the majority class only where the candidate adds
 * nothing or is clearly worse. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/safe/safe_select.h"

#define NL 20
#define REPS 2
#define NC 6 /* the supervised SVM, then 5 temperatures */
#define FIRST 3

static unsigned char ok[NC * REPS * NL];

static unsigned char *rec(int c, int rep)
{
    return ok + ((size_t)c * REPS + (size_t)rep) * NL;
}

/* Candidate c right on the first k rows of repeat rep, wrong on the rest. */
static void right_first(int c, int rep, int k)
{
    for (int i = 0; i < NL; i++)
        rec(c, rep)[i] = i < k;
}

static tsgs__heldout records(void)
{
    tsgs__heldout h = {ok, NL, REPS, NC, FIRST};
    return h;
}

START_TEST(path_kept_only_beyond_its_margin)
{
    /* every candidate as the supervised SVM (14 of 20 right per repeat),
     * then candidate 4 right on 2 more rows per repeat */
    for (int c = 0; c < NC; c++)
        for (int r = 0; r < REPS; r++)
            right_first(c, r, 14);
    for (int r = 0; r < REPS; r++)
        right_first(4, r, 16);
    tsgs__heldout h = records();
    tsgs__path_choice pc;
    tsgs__choose_path(&h, 0.5, &pc);
    ck_assert_int_eq(pc.best, 4);
    ck_assert_uint_eq(pc.right_sup, 28);
    ck_assert_uint_eq(pc.right_path, 32);
    ck_assert_uint_eq(pc.discordant, 4);
    ck_assert_int_eq(pc.kept, 4); /* 32 > 28 + 0.5 * 2 */
    /* a margin of 2 SD (28 + 4) is not beaten */
    tsgs__choose_path(&h, 2.0, &pc);
    ck_assert_int_eq(pc.kept, 0);
    /* one more row right in total against 9 discordant ones: every path
     * candidate, in repeat 0, right on rows 14-18 where the supervised SVM
     * is wrong and wrong on rows 0-3 where it is right; 29 is not above
     * 28 + 0.5 * 3 */
    for (int c = FIRST; c < NC; c++) {
        for (int r = 0; r < REPS; r++)
            right_first(c, r, 14);
        for (int i = 0; i < 4; i++)
            rec(c, 0)[i] = 0;
        for (int i = 14; i < 19; i++)
            rec(c, 0)[i] = 1;
    }
    tsgs__choose_path(&h, 0.5, &pc);
    ck_assert_int_eq(pc.best, NC - 1);
    ck_assert_uint_eq(pc.right_path, 29);
    ck_assert_uint_eq(pc.discordant, 9);
    ck_assert_int_eq(pc.kept, 0);
    tsgs__choose_path(&h, 0.0, &pc); /* without a margin it would win */
    ck_assert_int_eq(pc.kept, NC - 1);
}
END_TEST

START_TEST(hot_temperatures_are_not_candidates)
{
    for (int r = 0; r < REPS; r++) {
        right_first(0, r, 15);
        right_first(1, r, 20); /* T = 10 and 3: every row right */
        right_first(2, r, 20);
        for (int c = FIRST; c < NC; c++)
            right_first(c, r, 12);
    }
    tsgs__heldout h = records();
    tsgs__path_choice pc;
    tsgs__choose_path(&h, 0.5, &pc);
    ck_assert_int_eq(pc.best, NC - 1); /* a tie goes to the most annealed */
    ck_assert_int_eq(pc.kept, 0);
    ck_assert_uint_eq(pc.right_path, 24);
}
END_TEST

START_TEST(same_answers_keep_the_path)
{
    for (int c = 0; c < NC; c++)
        for (int r = 0; r < REPS; r++)
            right_first(c, r, 20);
    tsgs__heldout h = records();
    tsgs__path_choice pc;
    tsgs__choose_path(&h, 0.5, &pc);
    ck_assert_uint_eq(pc.discordant, 0);
    ck_assert_int_eq(pc.kept, NC - 1);
}
END_TEST

/* An infinite margin (a class with fewer labels than folds): a clear win
 * keeps the supervised SVM, the same answers on every row still keep the
 * path. */
START_TEST(infinite_margin_keeps_only_same_answers)
{
    for (int c = 0; c < NC; c++)
        for (int r = 0; r < REPS; r++)
            right_first(c, r, c >= FIRST ? 20 : 10);
    tsgs__heldout h = records();
    tsgs__path_choice pc;
    tsgs__choose_path(&h, 0.5, &pc);
    ck_assert_int_eq(pc.kept, NC - 1); /* 40 against 20 */
    tsgs__choose_path(&h, INFINITY, &pc);
    ck_assert_uint_eq(pc.right_path, 40);
    ck_assert_int_eq(pc.kept, 0);
    for (int c = 0; c < NC; c++)
        for (int r = 0; r < REPS; r++)
            right_first(c, r, 17);
    tsgs__choose_path(&h, INFINITY, &pc);
    ck_assert_uint_eq(pc.discordant, 0);
    ck_assert_int_eq(pc.kept, NC - 1);
}
END_TEST

/* A repeat's tie goes to the candidate with the most right over every
 * repeat, not to the later one: candidates 3 and 5 tie in repeat 0 (15 of
 * 20), candidate 3 is right on 15 of repeat 1 and candidate 5 on 5. Repeat
 * 0 picks 3, scored on repeat 1 (15), repeat 1 picks 3, scored on repeat 0
 * (15): 30 (with the later one, 5 + 15 = 20). */
START_TEST(a_tie_goes_to_the_most_right_over_every_repeat)
{
    for (int c = 0; c < NC; c++)
        for (int r = 0; r < REPS; r++)
            right_first(c, r, 10);
    right_first(3, 0, 15);
    right_first(3, 1, 15);
    right_first(5, 0, 15);
    right_first(5, 1, 5);
    tsgs__heldout h = records();
    tsgs__path_choice pc;
    tsgs__choose_path(&h, 0.5, &pc);
    ck_assert_int_eq(pc.best, 3);
    ck_assert_uint_eq(pc.right_path, 30);
    ck_assert_int_eq(pc.kept, 3); /* 30 > 20 + 0.5 * sqrt(10) */
    /* where the totals tie too, the later candidate */
    right_first(5, 1, 15);
    tsgs__choose_path(&h, 0.5, &pc);
    ck_assert_int_eq(pc.best, 5);
    ck_assert_uint_eq(pc.right_path, 30);
}
END_TEST

/* The rule counted row by row, as plainly as it reads. */
static int brute_kept(double margin, size_t *path, size_t *disc)
{
    int best = FIRST, pick[REPS];
    size_t most = 0, sup = 0, differ = 0, total[NC] = {0};
    for (int c = FIRST; c < NC; c++) {
        for (int r = 0; r < REPS; r++)
            for (int i = 0; i < NL; i++)
                total[c] += rec(c, r)[i];
        if (c == FIRST || total[c] >= most) {
            most = total[c];
            best = c;
        }
    }
    /* each repeat's pick: the most right in it; ties to the most right
     * over every repeat, then to the later candidate */
    for (int r = 0; r < REPS; r++) {
        size_t top = 0;
        for (int c = FIRST; c < NC; c++) {
            size_t n = 0;
            for (int i = 0; i < NL; i++)
                n += rec(c, r)[i];
            if (c == FIRST || n > top ||
                (n == top && total[c] >= total[pick[r]])) {
                top = n;
                pick[r] = c;
            }
        }
    }
    *path = *disc = 0;
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < NL; i++) {
            const int o = (r + 1) % REPS;
            *path += rec(pick[r], o)[i];
            *disc += rec(pick[r], o)[i] != rec(0, o)[i];
            sup += rec(0, r)[i];
            differ += rec(best, r)[i] != rec(0, r)[i];
        }
    return (double)*path > (double)sup + margin * sqrt((double)*disc) ||
                   differ == 0
               ? best
               : 0;
}

START_TEST(cross_fitted_choice_against_brute_force)
{
    srand(7);
    int kept_path = 0, kept_sup = 0;
    for (int t = 0; t < 2000; t++) {
        /* candidates right with their own rate, so that all outcomes occur */
        for (int c = 0; c < NC; c++) {
            const int rate = 55 + rand() % 40;
            for (int r = 0; r < REPS; r++)
                for (int i = 0; i < NL; i++)
                    rec(c, r)[i] = rand() % 100 < rate;
        }
        if (t % 50 == 0) /* now and then the path gives the same answers */
            for (int c = 1; c < NC; c++)
                memcpy(rec(c, 0), rec(0, 0), sizeof(unsigned char) * NL * REPS);
        const double margin = (t % 3) * 0.5;
        size_t path, disc;
        const int want = brute_kept(margin, &path, &disc);
        tsgs__heldout h = records();
        tsgs__path_choice pc;
        tsgs__choose_path(&h, margin, &pc);
        ck_assert_int_eq(pc.kept, want);
        ck_assert_uint_eq(pc.right_path, path);
        ck_assert_uint_eq(pc.discordant, disc);
        kept_path += want > 0;
        kept_sup += want == 0;
    }
    ck_assert_int_gt(kept_path, 100);
    ck_assert_int_gt(kept_sup, 100);
}
END_TEST

/* The path a few answers behind: kept only where even its pessimistic
 * deficit (behind + 2 sqrt(discordant)) is a small share of the answers. */
START_TEST(no_worse_only_where_the_deficit_is_bounded)
{
    tsgs__path_choice pc = {4, 0, 70, 70, 27};
    /* level or ahead: always, however much the two disagree */
    ck_assert_int_eq(tsgs__path_no_worse(&pc, 1, 0.10, 100), 1);
    pc.right_path = 75;
    ck_assert_int_eq(tsgs__path_no_worse(&pc, 1, 0.10, 100), 1);
    /* one behind: 1 + 2 sqrt(16) = 9 <= 10 of 100; 1 + 2 sqrt(25) = 11 */
    pc.right_path = 69;
    pc.discordant = 16;
    ck_assert_int_eq(tsgs__path_no_worse(&pc, 1, 0.10, 100), 1);
    pc.discordant = 25;
    ck_assert_int_eq(tsgs__path_no_worse(&pc, 1, 0.10, 100), 0);
    ck_assert_int_eq(tsgs__path_no_worse(&pc, 1, 0.11, 100), 1);
    /* the SUSY draw that lost 19.8 points: 27 discordant of 100 */
    pc.discordant = 27;
    ck_assert_int_eq(tsgs__path_no_worse(&pc, 1, 0.10, 100), 0);
    /* two behind is beyond one answer whatever the discordance */
    pc.right_path = 68;
    pc.discordant = 2;
    ck_assert_int_eq(tsgs__path_no_worse(&pc, 1, 0.10, 100), 0);
    ck_assert_int_eq(tsgs__path_no_worse(&pc, 2, 0.10, 100), 1);
    /* 10 labels, 20 answers: no path behind can be within 10% (2 of 20:
     * one behind with one discordant row is 3), so the bound is not
     * applied and one answer behind is kept as before, two are not */
    tsgs__path_choice ten = {4, 0, 17, 16, 4};
    ck_assert_int_eq(tsgs__path_no_worse(&ten, 1, 0.10, 20), 1);
    ten.right_path = 15;
    ck_assert_int_eq(tsgs__path_no_worse(&ten, 1, 0.10, 20), 0);
    /* with 15% (3 of 20) it applies: 1 + 2 sqrt(4) = 5 > 3 */
    ten.right_path = 16;
    ck_assert_int_eq(tsgs__path_no_worse(&ten, 1, 0.15, 20), 0);
    ten.discordant = 1;
    ck_assert_int_eq(tsgs__path_no_worse(&ten, 1, 0.15, 20), 1);
}
END_TEST

START_TEST(majority_only_where_the_candidate_adds_nothing)
{
    double y[NL];
    for (int i = 0; i < NL; i++)
        y[i] = i < 3 ? 1.0 : -1.0; /* 3 positive: the majority is -1 */
    tsgs__heldout h = records();
    size_t major;
    /* candidate 0 predicts -1 on every held-out row */
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < NL; i++)
            rec(0, r)[i] = y[i] < 0;
    ck_assert(tsgs__majority_instead(&h, 0, y, 1.0, &major) == -1.0);
    ck_assert_uint_eq(major, 34);
    /* it predicts +1 on rows 0-4 of each repeat: right on the 3
     * positives, wrong on 2 negatives: 36 right, 10 rows differ */
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < 5; i++)
            rec(0, r)[i] = i < 3;
    ck_assert_uint_eq(tsgs__heldout_right(&h, 0), 36);
    ck_assert(tsgs__majority_instead(&h, 0, y, 1.0, &major) == 0.0);
    /* +1 on rows 3-4 only: 30 right, 4 rows differ, 30 < 34 - 2 */
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < 3; i++)
            rec(0, r)[i] = 0;
    ck_assert_uint_eq(tsgs__heldout_right(&h, 0), 30);
    ck_assert(tsgs__majority_instead(&h, 0, y, 1.0, &major) == -1.0);
    /* one row below the majority class with 11 rows differing: kept */
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < NL; i++)
            rec(0, r)[i] = y[i] < 0;
    for (int i = 0; i < 5; i++) /* repeat 0: +1 on the 3 positives and 2 */
        rec(0, 0)[i] = i < 3;
    rec(0, 1)[0] = rec(0, 1)[1] = 1; /* repeat 1: +1 on 2 positives */
    for (int i = 3; i < 7; i++)       /* and on 4 negatives */
        rec(0, 1)[i] = 0;
    ck_assert_uint_eq(tsgs__heldout_right(&h, 0), 33);
    ck_assert(tsgs__majority_instead(&h, 0, y, 1.0, &major) == 0.0);
    /* with no margin, one row below is enough */
    ck_assert(tsgs__majority_instead(&h, 0, y, 0.0, &major) == -1.0);
    /* a positive majority gives +1; balanced classes give nothing */
    for (int i = 0; i < NL; i++)
        y[i] = -y[i];
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < NL; i++)
            rec(0, r)[i] = y[i] > 0;
    ck_assert(tsgs__majority_instead(&h, 0, y, 1.0, &major) == 1.0);
    for (int i = 0; i < NL; i++)
        y[i] = i % 2 ? 1.0 : -1.0;
    ck_assert(tsgs__majority_instead(&h, 0, y, 1.0, &major) == 0.0);
    ck_assert_uint_eq(major, 0);
}
END_TEST

Suite *safe_select_suite(void)
{
    Suite *s = suite_create("safe_select");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, path_kept_only_beyond_its_margin);
    tcase_add_test(tc, hot_temperatures_are_not_candidates);
    tcase_add_test(tc, same_answers_keep_the_path);
    tcase_add_test(tc, a_tie_goes_to_the_most_right_over_every_repeat);
    tcase_add_test(tc, cross_fitted_choice_against_brute_force);
    tcase_add_test(tc, infinite_margin_keeps_only_same_answers);
    tcase_add_test(tc, majority_only_where_the_candidate_adds_nothing);
    tcase_add_test(tc, no_worse_only_where_the_deficit_is_bounded);
    suite_add_tcase(s, tc);
    return s;
}
