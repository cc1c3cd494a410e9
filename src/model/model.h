/* model.h: the model (random features, support vectors, one-vs-rest),
 * its prediction and probability outputs.
 * Internal (tsgs__ names), not installed; internal.h includes every
 * layer. */
#ifndef TSGS_MODEL_MODEL_H
#define TSGS_MODEL_MODEL_H

#include "kernel/kernel.h"

/* -------------------------------------------------------- core: model.c */

/* A model is one of three kinds, its tag the kind's table of operations
 * (tsgs_model.kind): random features (model.c), support vectors
 * (bs3vm_model.c) or one-vs-rest over binary models (multiclass.c).
 * Model files (model_file.h): the binary kinds' files share a header,
 * whose last line names the kind's section ("section N"). */
typedef struct tsgs__mfile tsgs__mfile;     /* a model file being read */
typedef struct tsgs__mheader tsgs__mheader; /* its header, as read */
typedef struct tsgs__model_kind {
    const char *name;    /* in words */
    const char *section; /* the key of the file line that announces the
                          * kind's section (NULL: one-vs-rest, a file of
                          * its own) */
    int per_class;       /* one decision value per class and row */
    /* Decision values of ds's rows (raw: the model scales them), one a
     * row, or one per class and row (per_class); threads already
     * resolved; cache_bytes: what the kept column cache may take. */
    tsgs_status (*decision)(const tsgs_model *m, const tsgs_dataset *ds,
                            int threads, double cache_bytes, double *out,
                            tsgs_error *err);
    /* The model as a file, recording the layout lay. */
    void (*write)(FILE *f, const tsgs_model *m, const tsgs_data_layout *lay);
    /* The model from r: for a binary kind, h read up to and including
     * its section line; for one-vs-rest, h NULL and r before its first
     * line (which it reads). last: nothing but blank lines may follow
     * the model. */
    tsgs_status (*read)(tsgs__mfile *r, tsgs__mheader *h, int last,
                        tsgs_model **out, tsgs_error *err);
    /* Frees what the kind owns (tsgs_model_free the rest). */
    void (*free)(tsgs_model *m);
    /* Random features, support vectors, or all the classes' together. */
    long (*feature_count)(const tsgs_model *m);
} tsgs__model_kind;

extern const tsgs__model_kind tsgs__kind_rf;  /* model.c */
extern const tsgs__model_kind tsgs__kind_sv;  /* bs3vm_model.c */
extern const tsgs__model_kind tsgs__kind_ovr; /* multiclass.c */

struct tsgs_model {
    const tsgs__model_kind *kind; /* the tag: which of the three */
    /* every kind */
    tsgs_params params; /* as trained, with derived values resolved */
    size_t d;
    char note[320];     /* what training chose, in words (not saved) */
    /* The training file's layout (tsgs_train copies the dataset's; saved
     * as the data-* lines); a one-vs-rest model's is the top model's. */
    tsgs_data_layout layout;
    /* binary kinds (tsgs__model_adopt) */
    double label_pos, label_neg; /* raw labels of the two classes */
    tsgs__scaler scaler;
    /* Platt scaling (probability.c): P(+1 | f) = 1 / (1 + exp(A f + B)) */
    int has_prob;
    double prob_a, prob_b;
    /* random features (kind rf; the support-vector kind keeps an empty
     * block of them, and its blocks, scale and bias are in its file) */
    tsgs__fspec fs;
    long nblocks;       /* random feature blocks in the model */
    long cap_blocks;    /* blocks allocated */
    double *ac, *as;    /* coefficients, (cap_blocks * dirs rounded up) */
    double scale;       /* lazy global decay: f = scale * norm * sum + bias */
    double norm;        /* sqrt(2) for COS features, 1 for PAIR */
    double bias;
    /* omega cache (not saved): packed directions [0, cached_dirs) */
    float *panel, *phase;
    long cached_dirs, cap_cached_dirs;
    int cache_enabled;
    /* sparse training rows: directions of their most frequent columns
     * (not saved; NULL otherwise), kept up to the model's directions */
    struct tsgs__colcache *cc;
    /* sparse rows predicted: a slot for every column, each made when
     * rows first use it (under model.c's lock) and kept for every later
     * call, so that a file scored in blocks makes a column once;
     * pcc_tried: made or found not to fit (pcc NULL) */
    struct tsgs__colcache *pcc;
    int pcc_tried;
    /* support vectors (kind sv) */
    struct tsgs__bs3vm *bs3vm;
    /* One-vs-rest over nclass > 2 classes (kind ovr): ovr[k] is the
     * binary model of classes[k] (+1) against the rest (-1); then only
     * d, params, layout, note and the labels (the first and last class)
     * are used here. 0 / NULL for a binary model. */
    int nclass;
    double *classes;    /* ascending */
    tsgs_model **ovr;
};

/* m takes the labels of its two classes and the scaler (which sc then
 * no longer holds): what every solver and the loader give a new binary
 * model. */
void tsgs__model_adopt(tsgs_model *m, double label_neg, double label_pos,
                       tsgs__scaler *sc);
/* An empty random-feature model (kind rf) for d inputs with room for
 * cap_blocks blocks. */
tsgs_status tsgs__model_new(const tsgs_params *p, size_t d, long cap_blocks,
                            tsgs_model **out, tsgs_error *err);
/* Bytes of the packed direction cache of `blocks` blocks of fs (which a
 * model keeps when they fit its cache-mb). */
double tsgs__model_cache_bytes(const tsgs__fspec *fs, long blocks);
/* Bytes a random-feature model of these counts certainly takes to load
 * and predict one row on one thread (model.c): a lower bound, so that a
 * model refused for it could never have been used. */
double tsgs__model_bytes(const tsgs_params *p, size_t d, long blocks);
/* tsgs_model_load with the memory the model may commit the process to
 * given (bytes) in place of the process's own limit (tests, fuzzing). */
tsgs_status tsgs__model_load_within(const char *path, double max_bytes,
                                    tsgs_model **out, tsgs_error *err);
/* Makes room for one more block (zero coefficients) and returns its index. */
tsgs_status tsgs__model_add_block(tsgs_model *m, tsgs_error *err);
/* Extends the omega cache to every direction in the model, when enabled. */
tsgs_status tsgs__model_cache_sync(tsgs_model *m, tsgs_error *err);
/* Directions in the model, rounded up to whole groups. */
long tsgs__model_dirs(const tsgs_model *m);
/* The view the kernel evaluates. */
/* m's first `blocks` blocks (added as needed) take the weights w of a
 * linear model on the feature rows tsgs__feature_rows builds over their
 * directions (PAIR: the cos then the sin columns), and b its bias: the
 * scale folded to 1, the direction cache synced. */
tsgs_status tsgs__model_set_weights(tsgs_model *m, long blocks,
                                    const double *w, double b,
                                    tsgs_error *err);
/* Block b's directions packed as tsgs__pack_directions packs them: copied
 * from the cache when it holds them, else regenerated. 0, or -1 when out
 * of memory. */
int tsgs__model_block_directions(const tsgs_model *m, long b, float *panel,
                                 float *phase);
tsgs__fview tsgs__model_view(const tsgs_model *m);
/* The view of the model's first nblocks blocks only (a solver predicting
 * with the blocks before the one it has just added); it uses the cache
 * when that holds them. */
tsgs__fview tsgs__model_view_blocks(const tsgs_model *m, long nblocks);
/* Folds the lazy scale into the coefficients. */
void tsgs__model_fold_scale(tsgs_model *m);
/* Decision values of rows X already scaled (n x d). */
tsgs_status tsgs__model_decision(const tsgs_model *m, const float *X,
                                 size_t n, int threads, double *out,
                                 tsgs_error *err);
/* The same for scaled rows of any storage; cc: a column cache for sparse
 * rows (NULL: m's own, if any). */
tsgs_status tsgs__model_decision_rows(const tsgs_model *m,
                                      const struct tsgs__colcache *cc,
                                      const tsgs__rows *R, int threads,
                                      double *out, tsgs_error *err);
/* tsgs_predict of a binary model whose kept column cache (tsgs_model's
 * pcc) may take at most cache_bytes: a one-vs-rest model's classes share
 * its budget. */
tsgs_status tsgs__predict_within(const tsgs_model *m, const tsgs_dataset *ds,
                                 int threads, double cache_bytes,
                                 double *decision, tsgs_error *err);
/* For the binary kinds' decision: rows of ds scaled into a buffer at a
 * time (dense: rows made dense, fewer of a sparse file's), and ds's rows
 * scaled by m's scaler into buf, `chunk` at a time, each chunk's values
 * from decide (arg: its own). */
typedef tsgs_status (*tsgs__decide_fn)(const tsgs_model *m, const void *arg,
                                       const tsgs__rows *R, int threads,
                                       double *out, tsgs_error *err);
size_t tsgs__predict_chunk(const tsgs_model *m, const tsgs_dataset *ds,
                           int dense);
tsgs_status tsgs__predict_chunks(const tsgs_model *m, const tsgs_dataset *ds,
                                 tsgs__rows *buf, size_t chunk,
                                 tsgs__decide_fn decide, const void *arg,
                                 int threads, double *out, tsgs_error *err);

/* ------------------------------------------------------ bs3vm_model.c */

/* The BS3VM model (Le et al., UAI 2016): f(x) = sum_i alpha_i k(sv_i, x)
 * over support vectors kept as scaled rows; the kernel and sigma are the
 * model's parameters. */
typedef struct tsgs__bs3vm {
    size_t d, n_sv, cap;
    tsgs_kernel kernel;
    double sigma;
    float *x;      /* n_sv x d scaled rows */
    double *alpha; /* n_sv */
} tsgs__bs3vm;

/* A support-vector model (kind sv) for d inputs with room for cap
 * vectors. */
tsgs_status tsgs__model_new_sv(const tsgs_params *p, size_t d, size_t cap,
                               tsgs_model **out, tsgs_error *err);
/* An empty expansion for d-float rows with room for cap vectors. */
tsgs_status tsgs__bs3vm_new(size_t d, size_t cap, tsgs_kernel kernel,
                            double sigma, tsgs__bs3vm **out, tsgs_error *err);
/* Room for cap vectors (never shrinks). */
tsgs_status tsgs__bs3vm_reserve(tsgs__bs3vm *b, size_t cap, tsgs_error *err);
void tsgs__bs3vm_free(tsgs__bs3vm *b);
/* f of n rows X already scaled, rows spread over `threads` threads; each
 * row's sum runs in support-vector order whatever the thread count. */
void tsgs__bs3vm_decision(const tsgs__bs3vm *b, const float *X, size_t n,
                          int threads, double *out);
/* The kernel k(a, b) of two d-float rows, and their squared distance. */
double tsgs__bs3vm_kernel(tsgs_kernel kernel, double sigma, const float *a,
                          const float *b, size_t d);
double tsgs__bs3vm_sqdist(const float *a, const float *b, size_t d);
/* Model file section: "support-vectors N", N lines "alpha x_1 ... x_d",
 * "end". Reading continues f after the header (whose last line, number
 * *line, announced n_sv) and is strict: errors name path and line. */
void tsgs__bs3vm_write(FILE *f, const tsgs__bs3vm *b);
/* The largest magnitude a model file's coefficients (times its lazy
 * scale: model.c's read_coefficients), support-vector weights, bias,
 * lazy-scale, sigma, scaler values and Platt parameters may have
 * (model_file.c, model.c, bs3vm_model.c). A trained model stays far below
 * it (a scaler's shift is a float's size, its multiplier at most 1 / the
 * least float, about 1e45); up to it, a decision value (scale times at
 * most 2^60 coefficients times features of magnitude <= 1, plus the
 * bias) stays finite in double, where a coefficient of 1e308 gave inf. */
#define TSGS__MODEL_VALUE_MAX 1e100
/* Bytes a bs3vm model of n_sv support vectors over d features takes to
 * load and predict one (dense) row. */
double tsgs__bs3vm_bytes(long n_sv, size_t d);
tsgs_status tsgs__bs3vm_read(FILE *f, const char *path, long *line,
                             long n_sv, size_t d, tsgs_kernel kernel,
                             double sigma, tsgs__bs3vm **out,
                             tsgs_error *err);

/* --------------------------------------------------- core: multiclass.c */

/* ds's rows with a copy of its labels, to change: a view that borrows the
 * rows (free it with tsgs__view_free, never tsgs_dataset_free). */
tsgs_status tsgs__label_view(const tsgs_dataset *ds, tsgs_dataset **out,
                             tsgs_error *err);
/* The same with labels +1 for `positive`, -1 for the other labeled rows,
 * unlabeled ones kept. */
tsgs_status tsgs__ovr_view(const tsgs_dataset *ds, double positive,
                           tsgs_dataset **out, tsgs_error *err);
void tsgs__view_free(tsgs_dataset *view);
/* How many of one-vs-rest's k classes train at once on `threads` threads
 * with `solver`: after the first, the safe solver's classes side by side,
 * one thread each, when there are at least as many of them as threads
 * (its per-class memory is bounded by the unlabeled sample); otherwise,
 * and for the stochastic solvers (whose caches grow with the rows), one. */
size_t tsgs__ovr_at_once(size_t k, int threads, tsgs_solver solver);
/* A one-vs-rest model that takes over the k binary models subs (subs[i]
 * for classes[i]; both arrays copied, the models owned from here). */
tsgs_status tsgs__model_ovr(tsgs_model **subs, const double *classes,
                            size_t k, tsgs_model **out, tsgs_error *err);
/* Accuracy of m on ds's labeled rows, any number of classes; -1 on
 * failure (err set). */
double tsgs__accuracy_on(const tsgs_model *m, const tsgs_dataset *ds,
                         int threads, tsgs_error *err);

/* -------------------------------------------------- core: probability.c */

/* Platt's sigmoid fitted to decision values f[0..n) of rows of classes
 * y (+1 / -1): P(+1 | f) = 1 / (1 + exp(A f + B)). */
void tsgs__platt_fit(const double *f, const double *y, size_t n, double *a,
                     double *b);
double tsgs__platt_prob(double a, double b, double f);
/* m's sigmoid (prob_a, prob_b, has_prob) fitted to held-out decision
 * values f[r * nl + i] of nl labeled rows of classes y (+1 / -1), each
 * held out once in each of `repeats` CV repeats. */
tsgs_status tsgs__platt_fit_heldout(const double *f, const double *y,
                                    size_t nl, int repeats, tsgs_model *m,
                                    tsgs_error *err);

#endif /* TSGS_MODEL_MODEL_H */
