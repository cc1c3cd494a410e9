/* safe_select.c: the safe solver's choice among its candidates (the
 * supervised SVM, the annealed path's solutions, the majority class) from
 * their records on the held-out rows of a repeated cross-validation. Pure
 * counting, apart from the fits that made the records. */
#ifndef TSGS_SAFE_SELECT_H
#define TSGS_SAFE_SELECT_H

#include <stddef.h>

/* Who got which held-out row right: ok[(c * repeats + r) * nl + i] is 1
 * when candidate c got labeled row i right in CV repeat r (each row is
 * held out once per repeat). Candidate 0 is the supervised SVM, 1 .. nc-1
 * the path's solutions from the hottest to the coldest; the path's
 * candidates are first .. nc-1. */
typedef struct {
    const unsigned char *ok;
    size_t nl;
    int repeats, nc, first;
} tsgs__heldout;

typedef struct {
    int best;          /* the path's candidate with the most rows right
                          (ties to the most annealed) */
    int kept;          /* best, or 0: the supervised SVM */
    size_t right_sup;  /* the supervised SVM's rows right */
    size_t right_path; /* the path's, its candidate chosen on the other
                          repeat (cross-fitted) */
    size_t discordant; /* rows where exactly one of those two is right */
} tsgs__path_choice;

/* Rows right of candidate c over every repeat. */
size_t tsgs__heldout_right(const tsgs__heldout *h, int c);

/* The path is kept where its cross-fitted count beats the supervised
 * SVM's by more than margin_sd * sqrt(discordant), or where its best
 * candidate gave the supervised SVM's answer on every held-out row (the
 * records hold no evidence against the path's bet on the unlabeled rows'
 * structure). margin_sd INFINITY: only the second keeps the path. Needs
 * repeats >= 2. */
void tsgs__choose_path(const tsgs__heldout *h, double margin_sd,
                       tsgs__path_choice *out);

/* Whether the path of pc may be kept though its cross-fitted count is up
 * to `answers` below the supervised SVM's: where it is not behind, or
 * behind by at most `answers` with its pessimistic deficit -- the rows
 * behind plus two SDs of the paired difference (sqrt(discordant)) -- at
 * most worst_share of the held-out answers (nl x repeats, `total`).
 * Where even one answer behind with one discordant row (3) is beyond that
 * share, the bound is not applied: up to `answers` behind. */
int tsgs__path_no_worse(const tsgs__path_choice *pc, size_t answers,
                        double worst_share, size_t total);

/* The class of most of the labels y (+1 / -1, nl of them; 0 on a tie)
 * where it should replace candidate c: c predicted that class on every
 * held-out row, or got fewer rows right than that class does by more
 * than margin_sd * sqrt(the rows where exactly one of the two is right);
 * else 0. *major_right: that class's rows right (0 on a tie). */
double tsgs__majority_instead(const tsgs__heldout *h, int c, const double *y,
                              double margin_sd, size_t *major_right);

#endif
