/* Multi-class data, one-vs-rest: the model's predictions are those of K
 * binary models trained by hand on the relabeled rows (class k +1, the
 * rest -1), in the file's own label values; the classes share the (sigma,
 * C) the multi-class CV chose; files round-trip; the binary calls refuse
 * such a model by name; a 3- and a 10-class set are learned; stratified
 * folds of K classes are stratified; the joint choice keeps an option
 * only beyond its margin over the supervised one (against a brute-force
 * count). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "internal.h"
#include "model/ovr_train.h"

/* K Gaussian clusters (sd 1) in d dimensions, centres 4 apart on the axes
 * (+e_k, then -e_k), labels[k] for cluster k; the first `per_class`
 * rows of each cluster keep their label, the others are unlabeled. */
static tsgs_dataset *clusters(int k, size_t d, size_t per_cluster,
                              size_t per_class, const double *labels,
                              double **truth)
{
    const size_t n = (size_t)k * per_cluster;
    float *x = malloc(sizeof(float) * n * d);
    double *y = malloc(sizeof(double) * n);
    *truth = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++) {
        int c = (int)(i % (size_t)k);
        size_t rank = i / (size_t)k;
        for (size_t j = 0; j < d; j++) {
            double z0, z1;
            tsgs__normal_pair(tsgs__philox(77, (uint32_t)i, (uint32_t)j, 0, 9),
                              &z0, &z1);
            double centre = (size_t)c % d == j ? (c < (int)d ? 4.0 : -4.0) : 0.0;
            x[i * d + j] = (float)(centre + z0);
        }
        (*truth)[i] = labels[c];
        y[i] = rank < per_class ? labels[c] : TSGS_UNLABELED;
    }
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(n, d, x, y, &ds, NULL), TSGS_OK);
    free(x);
    free(y);
    return ds;
}

static double accuracy(const tsgs_model *m, const double *scores,
                       const double *truth, size_t n)
{
    const size_t k = tsgs_model_score_columns(m);
    size_t right = 0;
    for (size_t i = 0; i < n; i++)
        right += tsgs_model_label_of(m, scores + i * k) == truth[i];
    return (double)right / (double)n;
}

/* A copy of ds's labels (NaN: unlabeled), as train.c hands them to the
 * classes of one-vs-rest. */
static double *truth_labels_of(const tsgs_dataset *ds)
{
    const size_t n = tsgs_dataset_rows(ds);
    double *y = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++)
        y[i] = tsgs_dataset_label(ds, i);
    return y;
}

/* ds's labeled rows' labels, in row order (as the joint choice takes
 * them). */
static double *labeled_labels_of(const tsgs_dataset *ds)
{
    const size_t n = tsgs_dataset_rows(ds);
    double *y = malloc(sizeof(double) * n);
    size_t nl = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(tsgs_dataset_label(ds, i)))
            y[nl++] = tsgs_dataset_label(ds, i);
    return y;
}

/* The classes of ds (labels[0..k), relabeled as rels[c]) trained by hand
 * through one share as the multi-class layer trains them (class jobs),
 * then its joint choice: into sub. */
static void train_classes_by_hand(const tsgs_dataset *ds, int k,
                                  const double *labels,
                                  tsgs_dataset *const *rels,
                                  const tsgs_params *q,
                                  tsgs__class_share *share, tsgs_model **sub)
{
    tsgs__train_opts opt = {.scale_floor = 1e-150, .labeled_cache = -1};
    tsgs__class_candidates cands[10];
    memset(cands, 0, sizeof cands);
    for (int c = 0; c < k; c++) {
        const tsgs__class_job cls = {share, (size_t)c, &cands[c]};
        sub[c] = NULL;
        ck_assert_int_eq(tsgs__train_class_ex(rels[c], q, NULL, &opt, &cls,
                                              &sub[c], NULL, NULL),
                         TSGS_OK);
    }
    double *lab = labeled_labels_of(ds);
    ck_assert_int_eq(tsgs__ovr_joint_choice(cands, (size_t)k, labels, lab,
                                            sub, NULL),
                     TSGS_OK);
    free(lab);
    for (int c = 0; c < k; c++)
        tsgs__class_candidates_clear(&cands[c]);
}

/* ds's rows relabeled by hand: `positive` +1, the other labeled rows -1,
 * unlabeled rows kept (a dataset of its own, dense). */
static tsgs_dataset *relabeled(const tsgs_dataset *ds, double positive)
{
    const size_t n = tsgs_dataset_rows(ds), d = tsgs_dataset_features(ds);
    float *x = malloc(sizeof(float) * n * d);
    double *y = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++) {
        memcpy(x + i * d, tsgs_dataset_row(ds, i), sizeof(float) * d);
        double l = tsgs_dataset_label(ds, i);
        y[i] = isnan(l) ? l : l == positive ? 1.0 : -1.0;
    }
    tsgs_dataset *rel = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(n, d, x, y, &rel, NULL), TSGS_OK);
    free(x);
    free(y);
    return rel;
}

/* The one-vs-rest model against K binary models trained by hand. */
static void check_against_by_hand(int k, const tsgs_params *p)
{
    static const double labels10[] = {2, 5, 7, 11, 13, 17, 19, 23, 29, 31};
    const size_t d = 5, n = (size_t)k * 60;
    double *truth;
    tsgs_dataset *ds = clusters(k, d, 60, 6, labels10, &truth);
    tsgs_model *m = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_train(ds, p, NULL, &m, NULL, &err) == TSGS_OK, "%s",
                  err.message);
    ck_assert_uint_eq(tsgs_model_classes(m, NULL), (size_t)k);
    ck_assert_uint_eq(tsgs_model_score_columns(m), (size_t)k);
    double classes[10];
    tsgs_model_classes(m, classes);
    for (int c = 0; c < k; c++)
        ck_assert(classes[c] == labels10[c]);
    double *s = malloc(sizeof(double) * n * (size_t)k);
    ck_assert_int_eq(tsgs_predict_scores(m, ds, 1, s, &err), TSGS_OK);

    /* by hand: class c +1, every other labeled row -1, z-scored (scale
     * auto's choice for one-vs-rest); the grid's choice shared as
     * one-vs-rest shares it (the first class makes it by the multi-class
     * CV, the others take it), then the safe solver's joint choice of the
     * candidates over all classes */
    double *dec = malloc(sizeof(double) * n);
    /* each class computes its own feature rows here, where tsgs_train's
     * classes take the first's: the scores compared below are the same
     * bits either way */
    tsgs__class_share share = {.y = truth_labels_of(ds),
                               .fresh_features = 1};
    tsgs_params q = *p;
    if (q.scale == TSGS_SCALE_AUTO)
        q.scale = TSGS_SCALE_ZSCORE;
    tsgs_model *by_hand[10];
    tsgs_dataset *rels[10];
    for (int c = 0; c < k; c++)
        rels[c] = relabeled(ds, labels10[c]);
    train_classes_by_hand(ds, k, classes, rels, &q, &share, by_hand);
    ck_assert_uint_eq(share.features_reused, 0);
    ck_assert_ptr_null(share.kept);
    for (int c = 0; c < k; c++) {
        /* the safe default: one kernel width and C for every class */
        ck_assert(p->solver != TSGS_SOLVER_SAFE ||
                  (m->ovr[c]->params.sigma == m->ovr[0]->params.sigma &&
                   m->ovr[c]->params.c == m->ovr[0]->params.c));
        ck_assert_int_eq(tsgs_predict(by_hand[c], rels[c], 1, dec, NULL),
                         TSGS_OK);
        for (size_t i = 0; i < n; i++)
            ck_assert_msg(dec[i] == s[i * (size_t)k + (size_t)c],
                          "class %d row %zu: %g by hand, %g", c, i, dec[i],
                          s[i * (size_t)k + (size_t)c]);
        tsgs_model_free(by_hand[c]);
        tsgs_dataset_free(rels[c]);
    }
    free((void *)share.y);
    double acc = accuracy(m, s, truth, n);
    printf("%d clusters, 6 labels each: one-vs-rest accuracy %.3f\n", k, acc);
    ck_assert_double_gt(acc, 0.9);

    /* the binary calls refuse it, naming the way */
    ck_assert_int_eq(tsgs_predict(m, ds, 1, dec, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "tsgs_predict_scores"));

    /* saved and loaded: the same scores, and files that lose a class or a
     * line are refused */
    ck_assert_int_eq(tsgs_model_save(m, "tmp_ovr.model", &err), TSGS_OK);
    tsgs_model *back = NULL;
    ck_assert_msg(tsgs_model_load("tmp_ovr.model", &back, &err) == TSGS_OK,
                  "%s", err.message);
    double *s2 = malloc(sizeof(double) * n * (size_t)k);
    ck_assert_int_eq(tsgs_predict_scores(back, ds, 2, s2, NULL), TSGS_OK);
    ck_assert_int_eq(memcmp(s, s2, sizeof(double) * n * (size_t)k), 0);
    tsgs_model_free(back);
    size_t len;
    char *text = test_read_file("tmp_ovr.model", &len);
    ck_assert_ptr_nonnull(text);
    ck_assert(strncmp(text, "tsgs3vm-ovr 1\n", 14) == 0);
    FILE *f;
    /* truncated (short of the last byte: a file that lacks only its final
     * newline still ends with "end" and is whole) */
    for (size_t cut = len / 3; cut + 1 < len; cut += len / 3) {
        f = fopen("tmp_bad.model", "wb");
        fwrite(text, 1, cut, f);
        fclose(f);
        back = NULL;
        ck_assert_int_eq(tsgs_model_load("tmp_bad.model", &back, &err),
                         TSGS_ERR_FORMAT);
        ck_assert_ptr_null(back);
        ck_assert_ptr_nonnull(strstr(err.message, "tmp_bad.model"));
    }
    char *classes_line = strstr(text, "\nclasses ");
    classes_line[9] = '9'; /* a class count the file does not hold */
    f = fopen("tmp_bad.model", "wb");
    fwrite(text, 1, len, f);
    fclose(f);
    ck_assert_int_eq(tsgs_model_load("tmp_bad.model", &back, &err),
                     TSGS_ERR_FORMAT);
    remove("tmp_ovr.model");
    remove("tmp_bad.model");
    free(text);
    free(s);
    free(s2);
    free(dec);
    free(truth);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
}

START_TEST(three_classes_safe_default)
{
    tsgs_params p = tsgs_params_default();
    p.threads = 1;
    check_against_by_hand(3, &p);
}
END_TEST

/* Two threads and two classes after the first: those train side by side,
 * one thread each, and give the same bits as one after another. */
START_TEST(three_classes_side_by_side)
{
    tsgs_params p = tsgs_params_default();
    p.threads = 2;
    check_against_by_hand(3, &p);
}
END_TEST

START_TEST(ten_classes_tsg)
{
    tsgs_params p = tsgs_params_default();
    p.solver = TSGS_SOLVER_TSG;
    p.threads = 1;
    check_against_by_hand(10, &p);
}
END_TEST

/* The rows are checked once, before the classes split (they borrow
 * them): a non-finite value is refused naming its row and feature. */
START_TEST(non_finite_rows_refused_before_the_classes)
{
    static const double labels[] = {1, 2, 3};
    double *truth;
    tsgs_dataset *ds = clusters(3, 4, 20, 5, labels, &truth);
    ds->x[37 * 4 + 2] = NAN; /* row 38, feature 3: unlabeled */
    tsgs_params p = tsgs_params_default();
    p.threads = 2;
    tsgs_model *m = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, &err), TSGS_ERR_DATA);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(err.message, "row 38, feature 3"));
    free(truth);
    tsgs_dataset_free(ds);
}
END_TEST

/* Classes trained through one share as train.c trains them, with the
 * given scaling: how many took the feature rows of the class before. */
static size_t classes_reusing_features(tsgs_scaling scale)
{
    static const double labels[] = {1, 2, 3};
    double *truth;
    tsgs_dataset *ds = clusters(3, 4, 40, 15, labels, &truth);
    tsgs__class_share share = {.y = truth_labels_of(ds)};
    tsgs_params q = tsgs_params_default();
    q.threads = 1;
    q.scale = scale;
    tsgs_model *sub[3];
    tsgs_dataset *rels[3];
    for (int c = 0; c < 3; c++)
        rels[c] = relabeled(ds, labels[c]);
    train_classes_by_hand(ds, 3, labels, rels, &q, &share, sub);
    tsgs__class_share_clear(&share);
    for (int c = 0; c < 3; c++) {
        tsgs_model_free(sub[c]);
        tsgs_dataset_free(rels[c]);
    }
    free((void *)share.y);
    free(truth);
    tsgs_dataset_free(ds);
    return share.features_reused;
}

/* The classes share their feature rows where their scaled rows are the
 * same (one z-score for all: the second and third class take the first's)
 * and not where each class has its own scaler (the class stretch). */
START_TEST(classes_share_feature_rows_only_when_the_same)
{
    ck_assert_uint_eq(classes_reusing_features(TSGS_SCALE_ZSCORE), 2);
    ck_assert_uint_eq(classes_reusing_features(TSGS_SCALE_CLASS), 0);
}
END_TEST

/* SYNTHETIC, three classes across two blobs side by side along x1 with a
 * wide gap: in the left blob class 1 below x2 = -0.5 and class 2 above,
 * in the right blob class 2 below x2 = 0.5 and class 3 above; class 2
 * spans the gap, so the gap between clusters is no class boundary and the
 * annealed paths that follow it mislead. The first nl rows labeled. */
static tsgs_dataset *misleading_three(size_t n, size_t nl, unsigned seed,
                                      double **truth)
{
    float *x = malloc(sizeof(float) * n * 2);
    double *y = malloc(sizeof(double) * n), *t = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++) {
        double z0, z1;
        tsgs__normal_pair(tsgs__philox(seed, (uint32_t)i, 0, 0, 78), &z0, &z1);
        int left = i % 2 == 0;
        x[2 * i] = (float)((left ? -4.0 : 4.0) + 0.5 * z0);
        x[2 * i + 1] = (float)z1;
        t[i] = left ? (z1 < -0.5 ? 1.0 : 2.0) : (z1 < 0.5 ? 2.0 : 3.0);
        y[i] = i < nl ? t[i] : TSGS_UNLABELED;
    }
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(n, 2, x, y, &ds, NULL), TSGS_OK);
    free(x);
    free(y);
    *truth = t;
    return ds;
}

/* The accuracy of m on rows from..n of ds against truth. */
static double accuracy_from(const tsgs_model *m, const tsgs_dataset *ds,
                            const double *truth, size_t from)
{
    const size_t n = tsgs_dataset_rows(ds), k = tsgs_model_score_columns(m);
    double *s = malloc(sizeof(double) * n * k);
    ck_assert_int_eq(tsgs_predict_scores(m, ds, 1, s, NULL), TSGS_OK);
    size_t right = 0;
    for (size_t i = from; i < n; i++)
        right += tsgs_model_label_of(m, s + i * k) == truth[i];
    free(s);
    return (double)right / (double)(n - from);
}

/* The safe default on multi-class data where the unlabeled rows mislead
 * is not clearly worse than the supervised default on the same labels
 * (seeds 1-5: 96.4% against 96.6% on average, 93.4% against 95.4% at
 * worst, seed 4), and its note says what the joint choice kept. */
START_TEST(misleading_unlabeled_rows_do_not_hurt_multiclass)
{
    const int seeds = 5;
    const size_t n = 560, nl = 60;
    double sum_safe = 0.0, sum_sup = 0.0;
    for (int seed = 1; seed <= seeds; seed++) {
        double *truth = NULL;
        tsgs_dataset *ds = misleading_three(n, nl, (unsigned)seed, &truth);
        size_t lab[60];
        for (size_t i = 0; i < nl; i++)
            lab[i] = i;
        tsgs_dataset *only = NULL;
        ck_assert_int_eq(tsgs_dataset_select(ds, lab, nl, &only, NULL),
                         TSGS_OK);
        tsgs_params p = tsgs_params_default();
        tsgs_model *safe = NULL, *sup = NULL;
        tsgs_error err;
        ck_assert_msg(tsgs_train(ds, &p, NULL, &safe, NULL, &err) == TSGS_OK,
                      "%s", err.message);
        ck_assert_int_eq(tsgs_train(only, &p, NULL, &sup, NULL, NULL), TSGS_OK);
        double a_safe = accuracy_from(safe, ds, truth, nl);
        double a_sup = accuracy_from(sup, ds, truth, nl);
        printf("misleading 3 classes, seed %d: safe %.3f, supervised %.3f\n",
               seed, a_safe, a_sup);
        ck_assert_msg(a_sup > 0.85, "seed %d: supervised %g", seed, a_sup);
        ck_assert_msg(a_safe >= a_sup - 0.05, "seed %d: safe %g, supervised "
                      "%g (%s)", seed, a_safe, a_sup, tsgs_model_note(safe));
        ck_assert_ptr_nonnull(strstr(tsgs_model_note(safe), "one-vs-rest kept"));
        sum_safe += a_safe;
        sum_sup += a_sup;
        tsgs_model_free(safe);
        tsgs_model_free(sup);
        tsgs_dataset_free(only);
        tsgs_dataset_free(ds);
        free(truth);
    }
    ck_assert_msg(sum_safe >= sum_sup - 0.01 * seeds, "mean safe %g, "
                  "supervised %g", sum_safe / seeds, sum_sup / seeds);
}
END_TEST

/* A class with fewer labeled rows than the selection's folds keeps its
 * supervised SVM (C* 0) whatever the joint choice keeps for the others:
 * the held-out answers cannot show what its path does to it (8x8 digits,
 * 5 random labels a class: the classes with 2 labels were predicted on no
 * unlabeled row). Four clusters, 10 labels each but class 2's 2. */
START_TEST(a_class_with_few_labels_stays_supervised)
{
    const double labels[] = {1, 2, 3, 4};
    double *truth = NULL;
    tsgs_dataset *ds = clusters(4, 4, 100, 10, labels, &truth);
    size_t kept = 0;
    for (size_t i = 0; i < ds->n; i++)
        if (ds->y[i] == 3.0 && kept++ >= 2)
            ds->y[i] = TSGS_UNLABELED;
    tsgs_params p = tsgs_params_default();
    tsgs_model *m = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_train(ds, &p, NULL, &m, NULL, &err) == TSGS_OK, "%s",
                  err.message);
    ck_assert_int_eq(m->nclass, 4);
    printf("few labels of class 3: %s\n", tsgs_model_note(m));
    ck_assert_msg(m->ovr[2]->params.c_star == 0.0, "class 3: C* %g (%s)",
                  m->ovr[2]->params.c_star, tsgs_model_note(m));
    /* the others took the unlabeled rows (four clear clusters) */
    ck_assert_msg(m->ovr[0]->params.c_star > 0.0, "%s", tsgs_model_note(m));
    ck_assert_ptr_nonnull(strstr(tsgs_model_note(m), "but supervised for "
                                                     "the 1 with fewer"));
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
    free(truth);
}
END_TEST

/* Folds of K classes: each class dealt round-robin over the folds, so
 * every fold holds floor or ceil of its share of each class; +1 / -1
 * labels are dealt as they always were (per class a seeded shuffle, -1
 * first, tags tag * 2 and tag * 2 + 1). */
START_TEST(stratified_folds_of_k_classes)
{
    enum { N = 103, K = 4 };
    static const double values[] = {3.0, -2.0, 7.5, 11.0};
    double y[N];
    size_t scratch[N];
    int fold[N];
    for (size_t i = 0; i < N; i++) /* classes of 41, 21, 21 and 21 rows */
        y[i] = values[i % 5 == 4 ? 0 : i % 5];
    tsgs__stratified_folds(y, N, K, 5, 16, scratch, fold);
    for (int v = 0; v < 4; v++) {
        int per[K] = {0}, total = 0;
        for (size_t i = 0; i < N; i++)
            if (y[i] == values[v]) {
                ck_assert(fold[i] >= 0 && fold[i] < K);
                per[fold[i]]++;
                total++;
            }
        for (int f = 0; f < K; f++)
            ck_assert_msg(per[f] == total / K || per[f] == total / K + 1,
                          "class %g fold %d: %d of %d", values[v], f, per[f],
                          total);
    }
    /* binary: the deal by hand */
    double yb[N];
    int by_hand[N], next = 0;
    for (size_t i = 0; i < N; i++)
        yb[i] = i % 3 ? -1.0 : 1.0;
    tsgs__stratified_folds(yb, N, K, 5, 16, scratch, fold);
    for (int c = 0; c < 2; c++) {
        size_t m = 0;
        for (size_t i = 0; i < N; i++)
            if (yb[i] == (c ? 1.0 : -1.0))
                scratch[m++] = i;
        tsgs__seeded_shuffle(scratch, m, 5, 16 * 2 + (uint64_t)c, 1);
        for (size_t i = 0; i < m; i++) {
            by_hand[scratch[i]] = next;
            next = (next + 1) % K;
        }
    }
    for (size_t i = 0; i < N; i++)
        ck_assert_int_eq(fold[i], by_hand[i]);
}
END_TEST

/* Joint options (n answers each): option o right on answers [lo, lo + k)
 * of its row of the record. */
#define JN 100
#define JO 4
static unsigned char jok[JO * JN];
static size_t jright[JO];

static void joint_option(int o, int lo, int k)
{
    for (int i = 0; i < JN; i++)
        jok[o * JN + i] = i >= lo && i < lo + k;
    jright[o] = (size_t)k;
}

START_TEST(joint_option_kept_only_beyond_its_margin)
{
    /* option 1 the supervised one: 68 of 100 right (answers 0-67) */
    joint_option(0, 0, 68);
    joint_option(1, 0, 68);
    joint_option(2, 0, 60);
    joint_option(3, 0, 10);
    /* ties go to the supervised option */
    ck_assert_int_eq(tsgs__joint_best(jok, jright, JO, 1, JN, 0.5), 1);
    /* option 0 one answer ahead, 9 discordant (4 lost, 5 won): 69 <
     * 68 + 0.5 * 3, the supervised option stays; with no margin it goes */
    joint_option(0, 4, 69);
    ck_assert_uint_eq(jright[0], 69);
    ck_assert_int_eq(tsgs__joint_best(jok, jright, JO, 1, JN, 0.5), 1);
    ck_assert_int_eq(tsgs__joint_best(jok, jright, JO, 1, JN, 0.0), 0);
    /* two ahead with 2 discordant (0 lost, 2 won): 70 >= 68 + 0.5 * 1.41 */
    joint_option(0, 0, 70);
    ck_assert_int_eq(tsgs__joint_best(jok, jright, JO, 1, JN, 0.5), 0);
    /* a later option with more right takes it, if beyond the margin too */
    joint_option(3, 0, 75);
    ck_assert_int_eq(tsgs__joint_best(jok, jright, JO, 1, JN, 0.5), 3);
    joint_option(3, 20, 71); /* 71 right, 20 + 23 discordant: not enough */
    ck_assert_int_eq(tsgs__joint_best(jok, jright, JO, 1, JN, 0.5), 0);
    /* against brute force over random records and margins */
    unsigned seed = 7;
    for (int t = 0; t < 200; t++) {
        for (int o = 0; o < JO; o++) {
            jright[o] = 0;
            for (int i = 0; i < JN; i++) {
                seed = seed * 1103515245u + 12345u;
                jok[o * JN + i] = (seed >> 16) % 10 < 7;
                jright[o] += jok[o * JN + i];
            }
        }
        const int sup = t % JO;
        const double m = (t % 3) * 0.5;
        int want = sup;
        for (int o = 0; o < JO; o++) {
            size_t d = 0;
            for (int i = 0; i < JN; i++)
                d += jok[o * JN + i] != jok[sup * JN + i];
            const int beyond =
                (double)jright[o] - (double)jright[sup] >= m * sqrt((double)d);
            if (o != sup && jright[o] > jright[want] && beyond)
                want = o;
        }
        ck_assert_int_eq(tsgs__joint_best(jok, jright, JO, sup, JN, m), want);
    }
}
END_TEST

Suite *multiclass_suite(void)
{
    Suite *s = suite_create("multiclass");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, joint_option_kept_only_beyond_its_margin);
    tcase_add_test(tc, three_classes_safe_default);
    tcase_add_test(tc, classes_share_feature_rows_only_when_the_same);
    tcase_add_test(tc, non_finite_rows_refused_before_the_classes);
    tcase_add_test(tc, ten_classes_tsg);
    tcase_add_test(tc, a_class_with_few_labels_stays_supervised);
    tcase_add_test(tc, stratified_folds_of_k_classes);
    tcase_add_test(tc, misleading_unlabeled_rows_do_not_hurt_multiclass);
    suite_add_tcase(s, tc);
    /* the classes side by side on a team: also run under TSan
     * (tests/hardening.mk) */
    TCase *threads = tcase_create("threads");
    tcase_set_timeout(threads, 120);
    tcase_add_test(threads, three_classes_side_by_side);
    suite_add_tcase(s, threads);
    return s;
}
