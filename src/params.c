/* Parameters: defaults, checks, and one table that maps every key (the
 * long option and config-file name) to its field, range and help. */
#include "train.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tsgs_params tsgs_params_default(void)
{
    tsgs_params p;
    memset(&p, 0, sizeof p);
    p.solver = TSGS_SOLVER_SAFE;
    p.kernel = TSGS_KERNEL_RBF;
    p.sigma = 0.0;
    p.feature_map = TSGS_FEATURES_PAIR;
    p.c = 0.0;
    p.c_star = -1.0;
    p.uloss = TSGS_ULOSS_SSHG;
    p.ramp_s = -0.3;
    p.step = TSGS_STEP_CONSTANT;
    p.eta = 0.0;
    p.theta = 0.5;
    p.t0 = 100.0;
    p.batch_labeled = 256;
    p.batch_unlabeled = 256;
    p.iterations = 0;
    p.passes = 0.0;
    p.block_size = 8;
    p.max_features = -1;
    p.reuse = TSGS_REUSE_UNIFORM;
    p.reuse_candidates = 8;
    p.cache_mb = 1024.0;
    p.balance = -1;
    p.balance_ratio = -1.0;
    p.anneal = 0.3;
    p.warm_start = -1;
    p.scale = TSGS_SCALE_AUTO;
    p.seed = 1;
    p.threads = 0;
    p.bind = TSGS_BIND_AUTO;
    p.unlabeled_sample = 2000;
    p.budget_labeled = 100;
    p.budget_unlabeled = 0;
    p.maintenance = TSGS_BUDGET_REMOVE;
    p.neighbours = 5;
    p.c_prime = -1.0;
    p.edge_width = 0.0;
    p.edges_per_step = 1;
    return p;
}

tsgs_params *tsgs_params_new(void)
{
    tsgs_params *p = malloc(sizeof *p);
    if (p)
        *p = tsgs_params_default();
    return p;
}

void tsgs_params_free(tsgs_params *p) { free(p); }

typedef enum { K_DOUBLE, K_LONG, K_INT, K_U64, K_ENUM, K_WEIGHTS } kind_t;

typedef struct {
    const char *key;
    kind_t kind;
    size_t offset;
    double min, max;          /* inclusive, for numbers */
    const char *const *names; /* K_ENUM: value i is names[i] */
    const char *help;
} entry_t;

static const char *const solver_names[] = {"tsg", "dsg", "frs", "cdsg",
                                           "bs3vm", "safe", NULL};
static const char *const maintenance_names[] = {"remove", "nnp", "rnp",
                                                NULL};
static const char *const reuse_names[] = {"uniform", "check", NULL};
static const char *const kernel_names[] = {"rbf", "laplacian", NULL};
static const char *const fmap_names[] = {"pair", "cos", NULL};
static const char *const directions_names[] = {"auto", "iid", "orthogonal",
                                               NULL};
static const char *const uloss_names[] = {"shg", "sshg", "ramp", "da", NULL};
static const char *const step_names[] = {"constant", "theory", "decaying",
                                         NULL};
static const char *const scale_names[] = {"none", "zscore", "minmax", "class",
                                           "maxabs", "auto", NULL};
static const char *const bind_names[] = {"auto", "compact", "scatter", "none",
                                         NULL};

#define OFF(f) offsetof(tsgs_params, f)
#define BIG 1e300

static const entry_t table[] = {
    {"solver", K_ENUM, OFF(solver), 0, 0, solver_names,
     "tsg: TSGS3VM; dsg: supervised DSG (labeled rows only); frs: SGD on "
     "one fixed set of features; cdsg: DSG with the checking reuse rule; "
     "bs3vm: budgeted semi-supervised kernel SVM (Le et al. 2016); safe "
     "(default): C and gamma by CV on the labeled rows, the supervised SVM, "
     "an annealed semi-supervised path, kept only where CV says it helps"},
    {"kernel", K_ENUM, OFF(kernel), 0, 0, kernel_names,
     "rbf exp(-sigma |x-x'|^2) or laplacian exp(-sigma |x-x'|_1)"},
    {"sigma", K_DOUBLE, OFF(sigma), 0, BIG, NULL,
     "kernel parameter gamma of exp(-gamma |x-x'|^2) (LIBSVM's -g; "
     "--gamma is the same); 0: "
     "picked by CV on the labeled rows (bs3vm: 1 / (2 * total variance))"},
    {"feature-map", K_ENUM, OFF(feature_map), 0, 0, fmap_names,
     "pair: cos and sin of w.x (lower variance); cos: sqrt(2) cos(w.x + b)"},
    {"directions", K_ENUM, OFF(directions), 0, 0, directions_names,
     "random directions: iid Gaussian, or orthogonal in groups of up to "
     "min(d, 128) (a better kernel estimate per feature; rbf only); auto: "
     "orthogonal for rbf, iid for laplacian"},
    {"cost", K_DOUBLE, OFF(c), 0, BIG, NULL,
     "C: the weight of each labeled row's hinge loss, as svm-train's -c "
     "(-c, --c and --cost are the same); 0: picked by CV on the labeled "
     "rows (bs3vm: 1000 / n_l)"},
    {"c-total", K_DOUBLE, OFF(c_total), 0, BIG, NULL,
     "C x n_l, the labeled rows' total weight, given instead of cost: "
     "what `c` meant in config files (still) and in model files before "
     "format 2; 0: unset"},
    {"class-weight", K_WEIGHTS, OFF(n_class_weights), 0, 0, NULL,
     "LABEL:W,...: the C of the labeled rows of class LABEL times W > 0 "
     "(svm-train's -wLABEL W; one-vs-rest: each row its own class's W); "
     "none: every class 1"},
    {"c-star", K_DOUBLE, OFF(c_star), -1, BIG, NULL,
     "weight C* of the mean unlabeled loss (a total, C* / n_u per "
     "unlabeled row); -1: safe C per unlabeled row, the stochastic "
     "solvers C x n_l x n_l / n_u"},
    {"uloss", K_ENUM, OFF(uloss), 0, 0, uloss_names,
     "unlabeled loss: shg, sshg, ramp or da"},
    {"ramp-s", K_DOUBLE, OFF(ramp_s), -BIG, 0.999999, NULL,
     "s of the ramp loss (s < 1)"},
    {"step", K_ENUM, OFF(step), 0, 0, step_names,
     "step size: constant 1/eta, theory theta*T^-3/4, "
     "decaying theta/(1+t/t0)"},
    {"eta", K_DOUBLE, OFF(eta), 0, BIG, NULL,
     "constant step size gamma = 1/eta (eta > 1); 0: eta = C x n_l, so "
     "that a step moves f by about one mean hinge gradient"},
    {"theta", K_DOUBLE, OFF(theta), 1e-300, BIG, NULL,
     "scale of the theory and decaying step sizes"},
    {"t0", K_DOUBLE, OFF(t0), 1e-300, BIG, NULL,
     "iterations over which the decaying step size halves"},
    {"batch-labeled", K_LONG, OFF(batch_labeled), 1, 1e9, NULL,
     "labeled rows per step (capped at the number of labeled rows)"},
    {"batch-unlabeled", K_LONG, OFF(batch_unlabeled), 1, 1e9, NULL,
     "unlabeled rows per step"},
    {"iterations", K_LONG, OFF(iterations), 0, 1e15, NULL,
     "steps T; 0: from passes"},
    {"passes", K_DOUBLE, OFF(passes), 0, 1e9, NULL,
     "passes over the unlabeled rows (labeled if none) when iterations "
     "is 0; dsg/cdsg run as many steps as tsg; 0: one pass and at least "
     "3000 steps"},
    {"block-size", K_LONG, OFF(block_size), 1, 1e6, NULL,
     "random features r added per step (even for pair)"},
    {"max-features", K_LONG, OFF(max_features), -1, 1e12, NULL,
     "feature budget M; -1: safe 1024 (2048 on rows of more than 64 "
     "features; 4 times that on its cluster path under 100 labels), "
     "others max(1024, ceil(sqrt(n))); 0: no budget"},
    {"reuse", K_ENUM, OFF(reuse), 0, 0, reuse_names,
     "once the budget is full, update an old block chosen uniformly (UDSG) "
     "or by the checking rule (CDSG)"},
    {"reuse-candidates", K_LONG, OFF(reuse_candidates), 1, 1e6, NULL,
     "old blocks the checking rule examines per step"},
    {"cache-mb", K_DOUBLE, OFF(cache_mb), 0, 1e9, NULL,
     "keep feature directions cached up to this size, else regenerate"},
    {"balance", K_INT, OFF(balance), -1, 2, NULL,
     "1: hold the share of unlabeled rows predicted positive to the ratio "
     "(safe: the mean output; the stochastic solvers: a quantile of it, "
     "which sets their bias); 2 (stochastic solvers): centre the unlabeled "
     "loss's weights in each mini-batch, so that it cannot push every row "
     "to one class, the bias learned; 0: off (the papers' gradient, the "
     "bias learned); -1: safe 1, the others 2"},
    {"balance-ratio", K_DOUBLE, OFF(balance_ratio), -1, 0.999999, NULL,
     "positive fraction for balance; -1: that of the labeled rows"},
    {"anneal", K_DOUBLE, OFF(anneal), 0, 1, NULL,
     "fraction of the steps over which C* ramps up from 0"},
    {"scale", K_ENUM, OFF(scale), 0, 0, scale_names,
     "feature scaling fitted on the training rows: none, zscore, minmax, "
     "class (z-score, then each feature stretched by sqrt(total / pooled "
     "within-class variance) of the labeled rows, 1 to 4; none while a "
     "class has under 10 labels), maxabs (x / max |x|: keeps zeros zero; "
     "sparse rows always get it unless none); auto (the default): class "
     "for the safe solver on two classes, zscore otherwise, and in both "
     "a column zero on at least half the rows divided by its max |x|"},
    {"seed", K_U64, OFF(seed), 0, 0, NULL,
     "seed of every random choice"},
    {"threads", K_INT, OFF(threads), 0, TSGS_MAX_THREADS, NULL,
     "threads; 0: OMP_NUM_THREADS, else one per core (for a training of "
     "over 4M values, one per core that other processes leave free)"},
    {"bind", K_ENUM, OFF(bind), 0, 0, bind_names,
     "thread pinning: auto, compact, scatter, none"},
    {"probability", K_INT, OFF(probability), 0, 1, NULL,
     "1: fit probability outputs (LIBSVM's -b 1): Platt's sigmoid on "
     "decision values from 5-fold cross-validation on the labeled rows, "
     "five more fits"},
    {"warm-start", K_INT, OFF(warm_start), -1, 1, NULL,
     "stochastic solvers: 1 start from the exact supervised SVM on the "
     "labeled rows over the model's first features (the steps then refine "
     "it); 0 from zero, as the papers; -1: 1 up to 5,000 labeled rows whose "
     "features fit in 256 MB"},
    {"unlabeled-sample", K_LONG, OFF(unlabeled_sample), 0, 1e12, NULL,
     "safe: unlabeled rows (a seeded sample) its semi-supervised phase "
     "uses; 0: all"},
    {"budget-labeled", K_LONG, OFF(budget_labeled), 0, 1e12, NULL,
     "bs3vm: budget B_l of labeled support vectors; 0: every labeled row"},
    {"budget-unlabeled", K_LONG, OFF(budget_unlabeled), 0, 1e12, NULL,
     "bs3vm: budget B_u of unlabeled support vectors; 0: ceil(0.2 n_u)"},
    {"maintenance", K_ENUM, OFF(maintenance), 0, 0, maintenance_names,
     "bs3vm: on a full budget remove the smallest |alpha|, or project it "
     "onto its nearest (nnp) or random (rnp) support vectors"},
    {"neighbours", K_LONG, OFF(neighbours), 1, 1e4, NULL,
     "bs3vm: support vectors k that nnp / rnp project onto"},
    {"c-prime", K_DOUBLE, OFF(c_prime), -1, BIG, NULL,
     "bs3vm: weight C' of the mean graph term mu |f(xu) - f(xv)|; -1: "
     "C x n_l"},
    {"edge-width", K_DOUBLE, OFF(edge_width), 0, BIG, NULL,
     "bs3vm: w of the edge weights exp(-|xu-xv|^2 / (2 w^2)); 0: "
     "1 / (2 w^2) = sigma"},
    {"edges-per-step", K_LONG, OFF(edges_per_step), 1, 1e6, NULL,
     "bs3vm: graph edges sampled per step (their mean enters the step)"},
};

#define NENTRIES (sizeof table / sizeof table[0])

const char *tsgs__param_alias(const char *key)
{
    if (strcmp(key, "gamma") == 0) /* LIBSVM's name for it */
        return "sigma";
    if (strcmp(key, "c") == 0) /* svm-train's -c */
        return "cost";
    return key;
}

static const entry_t *find(const char *key)
{
    key = tsgs__param_alias(key);
    for (size_t i = 0; i < NENTRIES; i++)
        if (strcmp(table[i].key, key) == 0)
            return &table[i];
    return NULL;
}

static void format_value(const entry_t *e, const tsgs_params *p, char *buf,
                         size_t size)
{
    const char *base = (const char *)p + e->offset;
    switch (e->kind) {
    case K_DOUBLE: snprintf(buf, size, "%.17g", *(const double *)base); break;
    case K_LONG: snprintf(buf, size, "%ld", *(const long *)base); break;
    case K_INT: snprintf(buf, size, "%d", *(const int *)base); break;
    case K_U64:
        snprintf(buf, size, "%llu",
                 (unsigned long long)*(const uint64_t *)base);
        break;
    case K_WEIGHTS: tsgs__class_weights_format(p, buf, size); break;
    case K_ENUM: {
        int v = *(const int *)base;
        int n = 0;
        while (e->names[n])
            n++;
        snprintf(buf, size, "%s", v >= 0 && v < n ? e->names[v] : "?");
        break;
    }
    }
    /* Shortest form that reads back the same, for help and model files. */
    if (e->kind == K_DOUBLE) {
        double v = *(const double *)base;
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(buf, size, "%.*g", prec, v);
            if (strtod(buf, NULL) == v)
                break;
        }
    }
}

const char *tsgs_params_key(size_t index, const tsgs_params *p, char *value,
                            size_t value_size, const char **help)
{
    if (index >= NENTRIES)
        return NULL;
    const entry_t *e = &table[index];
    if (value && value_size > 0)
        format_value(e, p, value, value_size);
    if (help)
        *help = e->help;
    return e->key;
}

/* eta is 0 (derived from C) or above 1: a step 1/eta >= 1 would flip or
 * zero every coefficient through the decay 1 - 1/eta. */
static int eta_too_small(double eta)
{
    return eta > 0.0 && eta <= 1.0;
}

static tsgs_status bad(tsgs_error *err, const entry_t *e, const char *value,
                       const char *why)
{
    return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0, "%s = \"%s\": %s", e->key,
                      value, why);
}

tsgs_status tsgs_params_set(tsgs_params *p, const char *key,
                            const char *value, tsgs_error *err)
{
    const entry_t *e = find(key);
    if (!e)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "unknown parameter \"%s\"", key);
    char *base = (char *)p + e->offset;
    char *end = NULL;
    char range[128];
    snprintf(range, sizeof range, "expected a number in [%g, %g]", e->min,
             e->max);
    errno = 0;
    switch (e->kind) {
    case K_DOUBLE: {
        double v = strtod(value, &end);
        if (end == value || *end != '\0' || !isfinite(v) || errno)
            return bad(err, e, value, "not a finite number");
        if (v < e->min || v > e->max)
            return bad(err, e, value, range);
        if (e->offset == OFF(eta) && eta_too_small(v))
            return bad(err, e, value,
                       "expected 0 (derived from C) or a number above 1 "
                       "(the step 1/eta must be below 1)");
        *(double *)base = v;
        /* C per row and C x n_l are one setting: the later one wins */
        if (e->offset == OFF(c) && v > 0.0)
            p->c_total = 0.0;
        if (e->offset == OFF(c_total) && v > 0.0)
            p->c = 0.0;
        return TSGS_OK;
    }
    case K_LONG:
    case K_INT: {
        long v = strtol(value, &end, 10);
        if (end == value || *end != '\0' || errno)
            return bad(err, e, value, "not an integer");
        if ((double)v < e->min || (double)v > e->max)
            return bad(err, e, value, range);
        if (e->kind == K_LONG)
            *(long *)base = v;
        else
            *(int *)base = (int)v;
        return TSGS_OK;
    }
    case K_U64: {
        if (value[0] == '-')
            return bad(err, e, value, "not a non-negative integer");
        unsigned long long v = strtoull(value, &end, 10);
        if (end == value || *end != '\0' || errno)
            return bad(err, e, value, "not a non-negative integer");
        *(uint64_t *)base = (uint64_t)v;
        return TSGS_OK;
    }
    case K_WEIGHTS:
        return tsgs__class_weights_parse(p, value, err);
    case K_ENUM:
        for (int i = 0; e->names[i]; i++)
            if (strcmp(e->names[i], value) == 0) {
                *(int *)base = i;
                return TSGS_OK;
            }
        char names[160] = "";
        for (int i = 0; e->names[i]; i++) {
            strncat(names, i ? ", " : "one of ", sizeof names - strlen(names) - 1);
            strncat(names, e->names[i], sizeof names - strlen(names) - 1);
        }
        return bad(err, e, value, names);
    }
    return TSGS_ERR_INTERNAL;
}

tsgs_status tsgs_params_check(const tsgs_params *p, tsgs_error *err)
{
    if (!p)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0, "params: NULL");
    for (size_t i = 0; i < NENTRIES; i++) {
        const entry_t *e = &table[i];
        const char *base = (const char *)p + e->offset;
        double v;
        switch (e->kind) {
        case K_DOUBLE: v = *(const double *)base; break;
        case K_LONG: v = (double)*(const long *)base; break;
        case K_INT: v = (double)*(const int *)base; break;
        case K_ENUM: {
            int x = *(const int *)base, n = 0;
            while (e->names[n])
                n++;
            if (x < 0 || x >= n)
                return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                                  "%s: value %d is not one of the %d choices",
                                  e->key, x, n);
            continue;
        }
        default: continue;
        }
        if (!(v >= e->min && v <= e->max))
            return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                              "%s = %g: expected a number in [%g, %g]",
                              e->key, v, e->min, e->max);
    }
    if (p->feature_map == TSGS_FEATURES_PAIR && p->block_size % 2 != 0)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "block-size = %ld: pair features come two per "
                          "direction, so the block size must be even",
                          p->block_size);
    if (p->directions == TSGS_DIRECTIONS_ORTHOGONAL &&
        p->kernel != TSGS_KERNEL_RBF)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "directions = orthogonal: only the rbf kernel's "
                          "Gaussian directions can be made orthogonal; use "
                          "directions = iid or auto with the laplacian "
                          "kernel");
    if (p->balance == TSGS__BALANCE_CENTRED && p->solver == TSGS_SOLVER_SAFE)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "balance = 2: centred weights are the stochastic "
                          "solvers' rule; the safe solver holds the mean "
                          "output (1) or nothing (0)");
    if (p->step == TSGS_STEP_DECAYING && p->theta >= 1.0)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "theta = %g: the decaying step size theta must be "
                          "below 1 (the decay factor is 1 - gamma)",
                          p->theta);
    if (eta_too_small(p->eta))
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "eta = %g: the constant step 1/eta must be below "
                          "1 (the decay factor is 1 - 1/eta); give eta > 1, "
                          "or 0 to derive it from C",
                          p->eta);
    tsgs_status st = tsgs__class_weights_check(p, err);
    if (st != TSGS_OK)
        return st;
    if (p->c > 0.0 && p->c_total > 0.0)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "cost = %g and c-total = %g: both give C (per "
                          "labeled row, and times the labeled rows); set "
                          "one and leave the other 0",
                          p->c, p->c_total);
    if (p->balance_ratio >= 0.0 && p->balance_ratio <= 0.0)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "balance-ratio = 0: give a positive fraction in "
                          "(0, 1), or -1 for the labeled ratio");
    return TSGS_OK;
}
