/* The model: what every kind shares (creation, freeing, the labels and
 * the scaler, prediction's checks), and the random-feature kind: seeds
 * and coefficients of the random feature blocks, the lazy decay scale,
 * the balance bias; the optional cache of packed directions, prediction,
 * and its model-file section. */
#include "model/model_file.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static long round_up(long n, long k) { return (n + k - 1) / k * k; }

long tsgs__model_dirs(const tsgs_model *m)
{
    return round_up(m->nblocks * m->fs.dirs, TSGS__LANES);
}

static tsgs_status grow_coefficients(tsgs_model *m, long cap_blocks,
                                     tsgs_error *err)
{
    long old = round_up(m->cap_blocks * m->fs.dirs, TSGS__LANES);
    long cap = round_up(cap_blocks * m->fs.dirs, TSGS__LANES);
    double *ac = realloc(m->ac, sizeof(double) * (size_t)(cap ? cap : 1));
    if (!ac)
        return TSGS__NOMEM(err);
    m->ac = ac;
    memset(ac + old, 0, sizeof(double) * (size_t)(cap - old));
    if (m->fs.map == TSGS_FEATURES_PAIR) {
        double *as = realloc(m->as, sizeof(double) * (size_t)(cap ? cap : 1));
        if (!as)
            return TSGS__NOMEM(err);
        m->as = as;
        memset(as + old, 0, sizeof(double) * (size_t)(cap - old));
    }
    m->cap_blocks = cap_blocks;
    return TSGS_OK;
}

double tsgs__model_cache_bytes(const tsgs__fspec *fs, long blocks)
{
    /* in double: blocks x dirs x d overflows no integer here */
    const double dirs = ceil((double)blocks * (double)fs->dirs /
                             TSGS__LANES) * TSGS__LANES;
    return dirs * ((double)fs->d + 1.0) * sizeof(float);
}

/* What a model file's counts commit its reader to, before anything is
 * allocated for them (rf_read below): the coefficients, the direction cache
 * the model packs at load when it fits cache-mb, and for orthogonal
 * directions the dense row, the group orthonormalised in double and,
 * without the cache, the tile predict regenerates directions into. Sparse
 * rows of iid directions need nothing d-wide, so nothing else is counted:
 * a lower bound. In double: no product of the counts overflows it. */
double tsgs__model_bytes(const tsgs_params *p, size_t d, long blocks)
{
    const tsgs__fspec fs = tsgs__fspec_of(p, d);
    const double dd = (double)d, f4 = sizeof(float), f8 = sizeof(double);
    const long nb = blocks > 0 ? blocks : 1; /* as tsgs__model_new */
    const double dirs = ceil((double)nb * (double)fs.dirs / TSGS__LANES) *
                        TSGS__LANES;
    double total = dirs * f8 * (fs.map == TSGS_FEATURES_PAIR ? 2 : 1);
    if (blocks == 0)
        return total + (fs.orthogonal ? dd * f4 : 0.0);
    const double cache = tsgs__model_cache_bytes(&fs, nb);
    const int cached = cache <= p->cache_mb * 1048576.0;
    if (cached) /* the directions and their phases */
        total += cache;
    if (fs.orthogonal) {
        total += dd * f4 + (double)fs.group * dd * f8 + dd * f4;
        if (!cached)
            total += tsgs__kernel_ws_bytes(d);
    }
    return total;
}

tsgs_status tsgs__model_new(const tsgs_params *p, size_t d, long cap_blocks,
                            tsgs_model **out, tsgs_error *err)
{
    tsgs_model *m = calloc(1, sizeof *m);
    if (!m)
        return TSGS__NOMEM(err);
    m->kind = &tsgs__kind_rf;
    m->params = *p;
    m->d = d;
    m->fs = tsgs__fspec_of(p, d);
    m->scale = 1.0;
    m->norm = p->feature_map == TSGS_FEATURES_PAIR ? 1.0 : sqrt(2.0);
    m->label_pos = 1.0;
    m->label_neg = -1.0;
    if (cap_blocks < 1)
        cap_blocks = 1;
    tsgs_status st = grow_coefficients(m, cap_blocks, err);
    if (st != TSGS_OK) {
        tsgs_model_free(m);
        return st;
    }
    /* Cache the directions when the planned model fits the budget. */
    m->cache_enabled = tsgs__model_cache_bytes(&m->fs, cap_blocks) <=
                       p->cache_mb * 1048576.0;
    *out = m;
    return TSGS_OK;
}

void tsgs_model_free(tsgs_model *m)
{
    if (!m)
        return;
    m->kind->free(m);
    tsgs__scaler_clear(&m->scaler);
    free(m);
}

void tsgs__model_adopt(tsgs_model *m, double label_neg, double label_pos,
                       tsgs__scaler *sc)
{
    m->label_neg = label_neg;
    m->label_pos = label_pos;
    m->scaler = *sc;
    memset(sc, 0, sizeof *sc);
}

/* What the random features own. */
static void rf_free(tsgs_model *m)
{
    free(m->ac);
    free(m->as);
    free(m->panel);
    free(m->phase);
    tsgs__colcache_free(m->cc);
    tsgs__colcache_free(m->pcc);
}

tsgs_status tsgs__model_add_block(tsgs_model *m, tsgs_error *err)
{
    if (m->nblocks == m->cap_blocks) {
        tsgs_status st = grow_coefficients(m, 2 * m->cap_blocks, err);
        if (st != TSGS_OK)
            return st;
    }
    m->nblocks++;
    return TSGS_OK;
}

tsgs_status tsgs__model_cache_sync(tsgs_model *m, tsgs_error *err)
{
    /* the sparse rows' column cache (serial: called once per block) */
    tsgs__colcache_fill(m->cc, &m->fs, m->nblocks * m->fs.dirs, 1);
    if (!m->cache_enabled)
        return TSGS_OK;
    long ndirs = m->nblocks * m->fs.dirs;
    if (ndirs == m->cached_dirs)
        return TSGS_OK;
    long need = round_up(ndirs, TSGS__LANES);
    if (need > m->cap_cached_dirs) {
        long cap = need > 2 * m->cap_cached_dirs ? need : 2 * m->cap_cached_dirs;
        float *panel = realloc(m->panel, sizeof(float) * (size_t)cap *
                                             (m->d > 0 ? m->d : 1));
        if (!panel)
            return TSGS__NOMEM(err);
        m->panel = panel;
        float *phase = realloc(m->phase, sizeof(float) * (size_t)cap);
        if (!phase)
            return TSGS__NOMEM(err);
        m->phase = phase;
        m->cap_cached_dirs = cap;
    }
    /* Repack from the start of the last partly filled group. */
    long g0 = m->cached_dirs / TSGS__LANES * TSGS__LANES;
    if (tsgs__pack_directions(&m->fs, g0, ndirs - g0,
                              m->panel + (size_t)g0 * m->d, m->phase + g0))
        return TSGS__NOMEM(err);
    m->cached_dirs = ndirs;
    return TSGS_OK;
}

int tsgs__model_block_directions(const tsgs_model *m, long b, float *panel,
                                 float *phase)
{
    const long dirs = m->fs.dirs, g0 = b * dirs;
    const size_t d = m->d;
    if (!m->cache_enabled || m->cached_dirs < g0 + dirs)
        return tsgs__pack_directions(&m->fs, g0, dirs, panel, phase);
    /* Lane by lane out of the cache's packing into the block's own. */
    const long ngroups = (dirs + TSGS__LANES - 1) / TSGS__LANES;
    memset(panel, 0, sizeof(float) * (size_t)ngroups * d * TSGS__LANES);
    memset(phase, 0, sizeof(float) * (size_t)ngroups * TSGS__LANES);
    for (long j = 0; j < dirs; j++) {
        const long g = g0 + j;
        const float *src = m->panel + (size_t)(g / TSGS__LANES) * d *
                                          TSGS__LANES + g % TSGS__LANES;
        float *dst = panel + (size_t)(j / TSGS__LANES) * d * TSGS__LANES +
                     j % TSGS__LANES;
        for (size_t k = 0; k < d; k++)
            dst[k * TSGS__LANES] = src[k * TSGS__LANES];
        phase[j] = m->phase[g];
    }
    return 0;
}

tsgs_status tsgs__model_set_weights(tsgs_model *m, long blocks,
                                    const double *w, double b,
                                    tsgs_error *err)
{
    tsgs_status st;
    while (m->nblocks < blocks)
        if ((st = tsgs__model_add_block(m, err)) != TSGS_OK)
            return st;
    /* Feature rows are phi = norm * (cos | sin) / sqrt(ndirs), the model
     * f = scale * norm * sum (ac cos + as sin) + bias: ac = w / sqrt(ndirs)
     * at scale 1. */
    tsgs__model_fold_scale(m);
    const size_t ndirs = (size_t)(blocks * m->fs.dirs);
    const int pair = m->fs.map == TSGS_FEATURES_PAIR;
    const double k = 1.0 / sqrt((double)ndirs);
    for (size_t g = 0; g < ndirs; g++) {
        m->ac[g] = k * w[g];
        if (pair)
            m->as[g] = k * w[ndirs + g];
    }
    m->bias = b;
    return tsgs__model_cache_sync(m, err);
}

tsgs__fview tsgs__model_view(const tsgs_model *m)
{
    tsgs__fview v = tsgs__model_view_blocks(m, m->nblocks);
    if (m->cached_dirs != v.ndirs) /* a cache not yet in step */
        v.panel = v.phase = NULL;
    return v;
}

tsgs__fview tsgs__model_view_blocks(const tsgs_model *m, long nblocks)
{
    tsgs__fview v;
    v.fs = &m->fs;
    v.ndirs = nblocks * m->fs.dirs;
    int cached = m->cache_enabled && m->cached_dirs >= v.ndirs;
    v.panel = cached ? m->panel : NULL;
    v.phase = cached ? m->phase : NULL;
    v.ac = m->ac;
    v.as = m->fs.map == TSGS_FEATURES_PAIR ? m->as : NULL;
    return v;
}

void tsgs__model_fold_scale(tsgs_model *m)
{
    long n = tsgs__model_dirs(m);
    for (long g = 0; g < n; g++) {
        m->ac[g] *= m->scale;
        if (m->as)
            m->as[g] *= m->scale;
    }
    m->scale = 1.0;
}

tsgs_status tsgs__model_decision(const tsgs_model *m, const float *X,
                                 size_t n, int threads, double *out,
                                 tsgs_error *err)
{
    tsgs__fview v = tsgs__model_view(m);
    tsgs_status st = tsgs__eval_sums(&v, X, n, threads, out, err);
    if (st != TSGS_OK)
        return st;
    const double k = m->scale * m->norm;
    for (size_t i = 0; i < n; i++)
        out[i] = k * out[i] + m->bias;
    return TSGS_OK;
}

tsgs_status tsgs__model_decision_rows(const tsgs_model *m,
                                      const tsgs__colcache *cc,
                                      const tsgs__rows *R, int threads,
                                      double *out, tsgs_error *err)
{
    if (R->x)
        return tsgs__model_decision(m, R->x, R->n, threads, out, err);
    tsgs__fview v = tsgs__model_view(m);
    tsgs_status st = tsgs__sparse_sums(&v, cc ? cc : m->cc, R, threads, out,
                                       err);
    if (st != TSGS_OK)
        return st;
    const double k = m->scale * m->norm;
    for (size_t i = 0; i < R->n; i++)
        out[i] = k * out[i] + m->bias;
    return TSGS_OK;
}

#define PREDICT_CHUNK 16384 /* rows scaled into a buffer at a time */

/* buf = ds's rows [i0, i0 + n), scaled (idx: n entries of scratch). */
static int gather_range(tsgs__rows *buf, const tsgs_dataset *ds,
                        const tsgs__scaler *sc, size_t *idx, size_t i0,
                        size_t n)
{
    for (size_t i = 0; i < n; i++)
        idx[i] = i0 + i;
    return tsgs__rows_gather(buf, ds, sc, idx, n);
}

size_t tsgs__predict_chunk(const tsgs_model *m, const tsgs_dataset *ds,
                           int dense)
{
    size_t chunk = ds->n < PREDICT_CHUNK ? ds->n : PREDICT_CHUNK;
    /* sparse rows made dense: a few at a time */
    if (tsgs__sparse(ds) && dense) {
        size_t most = ((size_t)1 << 26) / (m->d ? m->d : 1);
        chunk = chunk < most ? chunk : most ? most : 1;
    }
    return chunk;
}

tsgs_status tsgs__predict_chunks(const tsgs_model *m, const tsgs_dataset *ds,
                                 tsgs__rows *buf, size_t chunk,
                                 tsgs__decide_fn decide, const void *arg,
                                 int threads, double *out, tsgs_error *err)
{
    tsgs_status st = TSGS_OK;
    for (size_t i0 = 0; i0 < ds->n && st == TSGS_OK; i0 += chunk) {
        size_t n = ds->n - i0 < chunk ? ds->n - i0 : chunk;
        size_t *idx = malloc(sizeof(size_t) * n);
        if (!idx || gather_range(buf, ds, &m->scaler, idx, i0, n)) {
            free(idx);
            return TSGS__NOMEM(err);
        }
        free(idx);
        st = decide(m, arg, buf, threads, out + i0, err);
    }
    return st;
}

/* Guards every model's pcc while it is made: predictions of one model
 * may run on several threads at once (one lock for all models: a cache
 * is made once per model, so they seldom wait on each other). */
static pthread_mutex_t kept_cache_lock = PTHREAD_MUTEX_INITIALIZER;

/* m's kept column cache for sparse rows, with ds's columns made in it:
 * *out NULL when the model's columns do not fit in `bytes` (the caller
 * then makes a cache of ds's most frequent columns for this call only). */
static tsgs_status kept_cache(const tsgs_model *m, const tsgs_dataset *ds,
                              double bytes, int threads,
                              const tsgs__colcache **out, tsgs_error *err)
{
    tsgs_model *w = (tsgs_model *)m; /* the cache only: never the model */
    tsgs_status st = TSGS_OK;
    pthread_mutex_lock(&kept_cache_lock);
    if (!w->pcc_tried) {
        st = tsgs__colcache_all(m->d, m->nblocks * m->fs.dirs, bytes,
                                &w->pcc, err);
        w->pcc_tried = st == TSGS_OK;
    }
    /* a model still growing (training) has more directions than made */
    const int ready = w->pcc && w->pcc->filled >= m->nblocks * m->fs.dirs;
    if (st == TSGS_OK && ready)
        st = tsgs__colcache_make_for(w->pcc, &m->fs, ds, threads, err);
    *out = ready ? w->pcc : NULL;
    pthread_mutex_unlock(&kept_cache_lock);
    return st;
}

/* m's direction panel (where its size allows one) in step with its
 * directions, made under the cache lock by the first call that needs it. */
static tsgs_status panel_in_step(const tsgs_model *m, tsgs_error *err)
{
    tsgs_model *w = (tsgs_model *)m; /* the cache only: never the model */
    tsgs_status st = TSGS_OK;
    pthread_mutex_lock(&kept_cache_lock);
    if (w->cache_enabled && w->cached_dirs != tsgs__model_dirs(w))
        st = tsgs__model_cache_sync(w, err);
    pthread_mutex_unlock(&kept_cache_lock);
    return st;
}

tsgs_status tsgs_predict(const tsgs_model *m, const tsgs_dataset *ds,
                         int threads, double *decision, tsgs_error *err)
{
    return tsgs__predict_within(m, ds, threads,
                                m ? m->params.cache_mb * 1048576.0 : 0.0,
                                decision, err);
}

tsgs_status tsgs__predict_within(const tsgs_model *m, const tsgs_dataset *ds,
                                 int threads, double cache_bytes,
                                 double *decision, tsgs_error *err)
{
    if (!m || !ds || !decision)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_predict: NULL argument");
    if (m->kind->per_class)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_predict: a model of %d classes has one "
                          "decision value per class: use "
                          "tsgs_predict_scores",
                          m->nclass);
    if (ds->d != m->d)
        return tsgs__fail(err, TSGS_ERR_DIM, NULL, 0,
                          "the data has %zu features but the model was "
                          "trained on %zu",
                          ds->d, m->d);
    int nt = tsgs__threads_resolve(threads > 0 ? threads : m->params.threads);
    return m->kind->decision(m, ds, nt, cache_bytes, decision, err);
}

static tsgs_status rf_rows(const tsgs_model *m, const void *cc,
                           const tsgs__rows *R, int threads, double *out,
                           tsgs_error *err)
{
    return tsgs__model_decision_rows(m, cc, R, threads, out, err);
}

/* Random features: sparse rows stay sparse for a model of iid
 * directions; orthogonal groups need them dense, a few at a time. */
static tsgs_status rf_decision(const tsgs_model *m, const tsgs_dataset *ds,
                               int nt, double cache_bytes, double *decision,
                               tsgs_error *err)
{
    const int dense = m->fs.orthogonal;
    const size_t chunk = tsgs__predict_chunk(m, ds, dense);
    tsgs__rows buf;
    const tsgs__colcache *cc = NULL;
    tsgs_status st = TSGS_OK;
    if (dense ? tsgs__rows_init_dense(&buf, m->d, chunk)
              : tsgs__rows_init(&buf, ds, &m->scaler, chunk))
        return TSGS__NOMEM(err);
    /* dense rows: the model's direction panel, made on first use (a
     * loaded model has none yet) */
    if (buf.x && (st = panel_in_step(m, err)) != TSGS_OK) {
        tsgs__rows_free(&buf);
        return st;
    }
    /* sparse rows: the directions of their columns from the model's kept
     * cache (made once per column, not once per call: a file predicted in
     * blocks made them again for each), else, when the model's columns
     * do not fit the budget, of their most frequent ones that two rows
     * or more share, for this call (a column of one row is made by its
     * task) */
    tsgs__colcache *own = NULL;
    if (!buf.x &&
        (st = kept_cache(m, ds, cache_bytes, nt, &cc, err)) == TSGS_OK &&
        !cc &&
        (st = tsgs__colcache_new_shared(ds, tsgs__model_dirs(m), cache_bytes,
                                        &own, err)) == TSGS_OK) {
        tsgs__colcache_fill(own, &m->fs, m->nblocks * m->fs.dirs, nt);
        cc = own;
    }
    if (st == TSGS_OK)
        st = tsgs__predict_chunks(m, ds, &buf, chunk, rf_rows, cc, nt,
                                  decision, err);
    tsgs__colcache_free(own);
    tsgs__rows_free(&buf);
    return st;
}

double tsgs_model_label(const tsgs_model *m, double decision)
{
    return decision > 0.0 ? m->label_pos : m->label_neg;
}

size_t tsgs_model_features_in(const tsgs_model *m) { return m->d; }

void tsgs_model_layout(const tsgs_model *m, tsgs_data_layout *out)
{
    if (!out)
        return;
    if (m)
        *out = m->layout;
    else
        memset(out, 0, sizeof *out);
}

long tsgs_model_feature_count(const tsgs_model *m)
{
    return m->kind->feature_count(m);
}

const tsgs_params *tsgs_model_params(const tsgs_model *m)
{
    return &m->params;
}

const char *tsgs_model_note(const tsgs_model *m) { return m->note; }

/* ------------------------------------------------------- model files */

tsgs_status tsgs__model_of_header(tsgs__mheader *h, long blocks,
                                  tsgs_model **out, tsgs_error *err)
{
    tsgs_model *m;
    tsgs_status st = tsgs__model_new(&h->p, (size_t)h->d, blocks, &m, err);
    if (st != TSGS_OK)
        return st;
    m->nblocks = blocks;
    m->scale = h->scale;
    m->bias = h->bias;
    m->has_prob = !isnan(h->prob_ab[0]);
    m->prob_a = h->prob_ab[0];
    m->prob_b = h->prob_ab[1];
    m->layout = h->layout;
    tsgs__scaler sc;
    memset(&sc, 0, sizeof sc);
    sc.kind = h->scaling;
    sc.d = (size_t)h->d;
    sc.shift = h->shift;
    sc.mul = h->mul;
    h->shift = h->mul = NULL;
    /* a scaler-maxabs line beside another scaler kind: parsed, unused */
    if (h->scaling == TSGS_SCALE_MAXABS) {
        sc.nsc = h->nsc;
        sc.scol = h->scol;
        sc.smul = h->smul;
        h->scol = NULL;
        h->smul = NULL;
    }
    tsgs__model_adopt(m, h->labels[0], h->labels[1], &sc);
    *out = m;
    return TSGS_OK;
}

/* The header, then "coefficients N", one line per direction (the cos
 * coefficient, and the sin one for PAIR features), "end". */
static void rf_write(FILE *f, const tsgs_model *m,
                     const tsgs_data_layout *lay)
{
    tsgs__mheader_write(f, m, lay);
    long ndirs = m->nblocks * m->fs.dirs;
    fprintf(f, "coefficients %ld\n", ndirs);
    for (long g = 0; g < ndirs; g++) {
        tsgs__mfile_put(f, m->ac[g]);
        if (m->fs.map == TSGS_FEATURES_PAIR) {
            fputc(' ', f);
            tsgs__mfile_put(f, m->as[g]);
        }
        fputc('\n', f);
    }
    fputs("end\n", f);
}

/* The counts against each other and the memory they commit the process
 * to, before anything is sized by them. */
static tsgs_status rf_check_counts(tsgs__mfile *r, const tsgs__mheader *h,
                                   tsgs_error *err)
{
    const tsgs__fspec fs = tsgs__fspec_of(&h->p, (size_t)h->d);
    if (h->count != h->blocks * fs.dirs)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                          "coefficients: %ld lines announced, but %ld "
                          "blocks of %ld directions need %ld",
                          h->count, h->blocks, fs.dirs, h->blocks * fs.dirs);
    char what[160];
    snprintf(what, sizeof what,
             "%ld features-in x %ld random features (%ld blocks, %s "
             "directions, cache-mb %g)",
             h->d, h->blocks * fs.block_size, h->blocks,
             fs.orthogonal ? "orthogonal" : "iid", h->p.cache_mb);
    return tsgs__mfile_take(r, "features-in", h->d_line,
                            tsgs__mheader_scaler_bytes(h) +
                                tsgs__model_bytes(&h->p, (size_t)h->d,
                                                  h->blocks),
                            what, err);
}

/* The ncoef coefficient lines into m (its lazy scale already read). */
static tsgs_status read_coefficients(tsgs__mfile *r, tsgs_model *m,
                                     long ncoef, tsgs_error *err)
{
    const int pair = m->fs.map == TSGS_FEATURES_PAIR;
    /* A file stores the coefficients divided by the lazy scale, which a
     * run stopped before it folds the scale in leaves tiny (an interrupted
     * tsg run saved 4e114 beside its scale), so the bound is on their
     * product with it: what the decision value sums. */
    const double cmax = TSGS__MODEL_VALUE_MAX / m->scale;
    char *line;
    tsgs_status st;
    for (long g = 0; g < ncoef; g++) {
        if ((st = tsgs__mfile_line(r, &line, err)) != TSGS_OK)
            return st;
        if (!line)
            return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, r->line,
                              "truncated: %ld of %ld coefficient lines", g,
                              ncoef);
        double v[2];
        if ((st = tsgs__mfile_doubles(r, "coefficient", line, v,
                                      pair ? 2 : 1, cmax, err)) != TSGS_OK)
            return st;
        m->ac[g] = v[0];
        if (pair)
            m->as[g] = v[1];
    }
    return TSGS_OK;
}

/* The model the header describes, its coefficients and "end". The
 * direction panel is made where dense rows are predicted
 * (tsgs__predict_within), not here: sparse rows read the column cache,
 * and a panel of 200,000 columns x 1,024 directions took 6 s to make. */
static tsgs_status rf_read(tsgs__mfile *r, tsgs__mheader *h, int last,
                           tsgs_model **out, tsgs_error *err)
{
    tsgs_model *m = NULL;
    tsgs_status st = rf_check_counts(r, h, err);
    if (st == TSGS_OK)
        st = tsgs__model_of_header(h, h->blocks, &m, err);
    if (st == TSGS_OK)
        st = read_coefficients(r, m, h->count, err);
    if (st == TSGS_OK)
        st = tsgs__mfile_end(r, h->count, "coefficients", last, err);
    if (st != TSGS_OK) {
        tsgs_model_free(m);
        return st;
    }
    *out = m;
    return TSGS_OK;
}

static long rf_feature_count(const tsgs_model *m)
{
    return m->nblocks * m->fs.block_size;
}

const tsgs__model_kind tsgs__kind_rf = {
    .name = "random features",
    .section = "coefficients",
    .per_class = 0,
    .decision = rf_decision,
    .write = rf_write,
    .read = rf_read,
    .free = rf_free,
    .feature_count = rf_feature_count,
};
