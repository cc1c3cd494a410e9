/* Checkpoints of the stochastic solvers (tsgs_train_checkpointed, issue
 * #34): the state a run needs to go on after step t, written to a file
 * and read back, so that a run resumed from it makes the same model, bit
 * for bit, as the run that was not interrupted.
 *
 * What is saved is what the steps accumulate and cannot regenerate: the
 * step, the pass over the unlabeled rows (its number and position: the
 * order is the seed's shuffles replayed), the blocks' coefficients, the
 * lazy scale, the bias, the labeled rows' cached sums (sums kept current
 * step by step: recomputed, their bits would differ) and batch order (a
 * partial shuffle per step), the balance rule's threshold; with the run's
 * resolved C and sigma (a grid is not run again), its settings as text
 * and a fingerprint of its rows (a checkpoint of another run is refused).
 * Random features and every cache are regenerated from the seed.
 *
 * The file: "TSGSCKPT", a format version and a byte-order mark (32-bit
 * words), then records (a 16-byte name, a type, a count, the values as
 * 64-bit words), an "end" record, and a checksum of everything before it.
 * Written through a temporary renamed over the target (tempfile.c). */
#include "solvers/sgd/sgd_step.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CKPT_MAGIC "TSGSCKPT"
#define CKPT_VERSION 1u
#define CKPT_BOM 0x01020304u
#define NAME_LEN 16
/* the header: magic, version, byte-order mark; a record's head: name,
 * type, reserved word, count */
#define HEAD_BYTES 16
#define REC_BYTES (NAME_LEN + 16)

enum { T_U64 = 1, T_F64 = 2, T_TEXT = 3 };

/* ------------------------------------------------------------ hashing */

/* A 64-bit hash of bytes (4 lanes of multiply-xorshift over 64-bit words,
 * then the tail and the length): each step is a bijection of the lane, so
 * a changed word always changes the result. Not cryptographic. */
static uint64_t mix(uint64_t h, uint64_t w)
{
    h ^= w;
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

static uint64_t hash_bytes(uint64_t seed, const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h[4] = {seed, seed ^ 0x243F6A8885A308D3ull,
                     seed ^ 0x13198A2E03707344ull,
                     seed ^ 0xA4093822299F31D0ull};
    size_t i = 0;
    for (; i + 32 <= len; i += 32)
        for (int k = 0; k < 4; k++) {
            uint64_t w;
            memcpy(&w, p + i + 8 * (size_t)k, 8);
            h[k] = mix(h[k], w);
        }
    uint64_t tail = 0, r = mix(h[0], h[1]);
    r = mix(mix(r, h[2]), h[3]);
    for (; i < len; i++) {
        tail = tail << 8 | p[i];
        if ((i & 7) == 7) {
            r = mix(r, tail);
            tail = 0;
        }
    }
    return mix(mix(r, tail), (uint64_t)len);
}

/* ------------------------------------------- the run's fingerprint */

/* Settings that leave the model's bits alone: not part of it. */
static int ignored_key(const char *key)
{
    return !strcmp(key, "threads") || !strcmp(key, "bind") ||
           !strcmp(key, "cache-mb");
}

char *tsgs__ckpt_settings_text(const tsgs_params *p)
{
    size_t cap = 4096, used = 0;
    char *s = malloc(cap), value[TSGS_PARAM_VALUE_MAX];
    const char *key;
    if (!s)
        return NULL;
    s[0] = '\0';
    for (size_t i = 0; (key = tsgs_params_key(i, p, value, sizeof value,
                                              NULL));
         i++) {
        if (ignored_key(key))
            continue;
        size_t need = strlen(key) + strlen(value) + 3;
        if (used + need > cap) {
            cap = 2 * (used + need);
            char *t = realloc(s, cap);
            if (!t) {
                free(s);
                return NULL;
            }
            s = t;
        }
        used += (size_t)snprintf(s + used, cap - used, "%s %s\n", key, value);
    }
    return s;
}

/* Row i's hash (its features; sparse: its columns and values). */
static uint64_t row_hash(const tsgs_dataset *ds, size_t i)
{
    const uint64_t seed = 0x7473677333766dull;
    if (ds->x)
        return hash_bytes(seed, ds->x + i * ds->d, sizeof(float) * ds->d);
    const size_t a = ds->ptr[i], len = ds->ptr[i + 1] - a;
    return hash_bytes(hash_bytes(seed, ds->col + a, sizeof(uint32_t) * len),
                      ds->val + a, sizeof(float) * len);
}

/* n, d, labeled rows and a hash of the labels and of every row's hash in
 * order: the same value whichever process holds which rows (a dataset
 * read in shares, issue #34: each hashes its own rows and the hashes are
 * exchanged, so a run over any number of ranks, or the tool alone,
 * resumes another's checkpoint). Collective over the processes of such a
 * dataset; returns non-zero where the memory or the exchange failed. */
static int data_fingerprint(const tsgs_dataset *ds, size_t nl,
                            uint64_t out[4])
{
    const size_t n = ds->n;
    uint64_t *rh = malloc(sizeof(uint64_t) * (n ? n : 1));
    const tsgs__held *held = ds->held;
    const size_t lo = held ? held->row0[held->rank] : 0;
    const size_t hi = held ? held->row0[held->rank + 1] : n;
    for (size_t i = lo; rh && i < hi; i++)
        rh[i] = row_hash(ds, i);
    const int bad = held ? held->pieces(held->ctx, rh, sizeof(uint64_t),
                                        held->row0, !rh)
                         : !rh;
    if (!bad) {
        uint64_t h = hash_bytes(0x7473677333766dull, ds->y,
                                sizeof(double) * n);
        out[3] = hash_bytes(h, rh, sizeof(uint64_t) * n);
    }
    free(rh);
    out[0] = n;
    out[1] = ds->d;
    out[2] = nl;
    return bad;
}

/* ------------------------------------------------------- the file */

/* A record as read: where its values lie in the file's bytes. */
typedef struct {
    char name[NAME_LEN + 1];
    uint32_t type;
    uint64_t count;
    const unsigned char *data;
} record;

#define MAX_RECORDS 32

struct tsgs__ckpt {
    char *path;
    unsigned char *bytes; /* the whole file */
    size_t size;
    record rec[MAX_RECORDS];
    int nrec;
};

void tsgs__ckpt_free(tsgs__ckpt *c)
{
    if (!c)
        return;
    free(c->path);
    free(c->bytes);
    free(c);
}

static tsgs_status bad(const tsgs__ckpt *c, const char *field,
                       tsgs_error *err, const char *what)
{
    return tsgs__fail(err, TSGS_ERR_FORMAT, c->path, 0,
                      "checkpoint field '%s': %s", field, what);
}

/* The whole of path into c->bytes. */
static tsgs_status read_whole(tsgs__ckpt *c, tsgs_error *err)
{
    FILE *f = fopen(c->path, "rb");
    if (!f)
        return tsgs__fail(err, TSGS_ERR_IO, c->path, 0,
                          "cannot open the checkpoint: %s", strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(f);
        return tsgs__fail(err, TSGS_ERR_IO, c->path, 0,
                          "the checkpoint is not a regular file");
    }
    c->size = (size_t)sb.st_size;
    c->bytes = malloc(c->size ? c->size : 1);
    if (!c->bytes) {
        fclose(f);
        return TSGS__NOMEM(err);
    }
    size_t got = fread(c->bytes, 1, c->size, f);
    int e = ferror(f) ? errno : 0;
    fclose(f);
    if (got != c->size)
        return tsgs__fail(err, TSGS_ERR_IO, c->path, 0,
                          "reading the checkpoint failed: %s",
                          e ? strerror(e) : "it changed while read");
    return TSGS_OK;
}

static uint32_t get32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Bytes of a record's values: words, the text padded to 8. */
static uint64_t value_bytes(uint32_t type, uint64_t count)
{
    return type == T_TEXT ? (count + 7) / 8 * 8 : count * 8;
}

/* The header, then the records up to "end", then the checksum. */
static tsgs_status parse(tsgs__ckpt *c, tsgs_error *err)
{
    if (c->size < 8 || memcmp(c->bytes, CKPT_MAGIC, 8) != 0)
        return tsgs__fail(err, TSGS_ERR_FORMAT, c->path, 0,
                          "not a tsgs3vm checkpoint (it does not begin "
                          "with %s)",
                          CKPT_MAGIC);
    if (c->size < HEAD_BYTES)
        return bad(c, "version", err, "the file ends inside the header "
                                      "(truncated)");
    const uint32_t version = get32(c->bytes + 8);
    if (get32(c->bytes + 12) != CKPT_BOM)
        return bad(c, "byte-order", err, "written on a machine of another "
                                         "byte order, or corrupt");
    if (version != CKPT_VERSION)
        return tsgs__fail(err, TSGS_ERR_FORMAT, c->path, 0,
                          "checkpoint field 'version': format %u, this "
                          "build reads format %u",
                          version, CKPT_VERSION);
    size_t pos = HEAD_BYTES;
    for (;;) {
        const char *last = c->nrec ? c->rec[c->nrec - 1].name : "version";
        if (c->size - pos < REC_BYTES) {
            char what[96];
            snprintf(what, sizeof what, "the file ends after it (truncated "
                                        "at byte %zu)",
                     c->size);
            return bad(c, last, err, what);
        }
        record r;
        memcpy(r.name, c->bytes + pos, NAME_LEN);
        r.name[NAME_LEN] = '\0';
        r.type = get32(c->bytes + pos + NAME_LEN);
        r.count = get64(c->bytes + pos + NAME_LEN + 8);
        pos += REC_BYTES;
        if (strlen(r.name) == 0 || (r.type != T_U64 && r.type != T_F64 &&
                                    r.type != T_TEXT))
            return bad(c, last, err, "the record after it is corrupt");
        if (strcmp(r.name, "end") == 0)
            break;
        const uint64_t nb = value_bytes(r.type, r.count);
        if (r.count > c->size || nb > c->size - pos) {
            char what[160];
            snprintf(what, sizeof what,
                     "%llu %s need %llu bytes, the file has %zu left "
                     "(truncated or corrupt)",
                     (unsigned long long)r.count,
                     r.type == T_TEXT ? "characters" : "values",
                     (unsigned long long)nb, c->size - pos);
            return bad(c, r.name, err, what);
        }
        if (c->nrec == MAX_RECORDS)
            return bad(c, r.name, err, "too many records (corrupt)");
        r.data = c->bytes + pos;
        c->rec[c->nrec++] = r;
        pos += nb;
    }
    if (c->size - pos < 8)
        return bad(c, "checksum", err, "missing: the file ends before it "
                                       "(truncated)");
    if (c->size - pos > 8)
        return bad(c, "checksum", err, "bytes follow it (corrupt)");
    if (get64(c->bytes + pos) != hash_bytes(CKPT_BOM, c->bytes, pos))
        return bad(c, "checksum", err, "does not match the contents: the "
                                       "file is corrupt");
    return TSGS_OK;
}

tsgs_status tsgs__ckpt_read(const char *path, tsgs__ckpt **out,
                            tsgs_error *err)
{
    tsgs__ckpt *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        return TSGS__NOMEM(err);
    }
    tsgs_status st = read_whole(c, err);
    if (st == TSGS_OK)
        st = parse(c, err);
    if (st != TSGS_OK) {
        tsgs__ckpt_free(c);
        return st;
    }
    *out = c;
    return TSGS_OK;
}

/* Record `name` of `type` with exactly `count` values (count < 0: any),
 * or an error naming it. */
static tsgs_status field(const tsgs__ckpt *c, const char *name,
                         uint32_t type, long long count, const record **out,
                         tsgs_error *err)
{
    for (int i = 0; i < c->nrec; i++) {
        const record *r = &c->rec[i];
        if (strcmp(r->name, name) != 0)
            continue;
        if (r->type != type)
            return bad(c, name, err, "values of another type");
        if (count >= 0 && r->count != (uint64_t)count) {
            char what[96];
            snprintf(what, sizeof what, "%llu values where %lld were "
                                        "expected",
                     (unsigned long long)r->count, count);
            return bad(c, name, err, what);
        }
        *out = r;
        return TSGS_OK;
    }
    return bad(c, name, err, "missing");
}

static double f64_at(const record *r, size_t i)
{
    double v;
    memcpy(&v, r->data + 8 * i, 8);
    return v;
}

/* ------------------------------------------------ matching a run */

/* The first line of two settings texts that differs, as a message. */
static void settings_diff(const char *mine, const char *theirs, char *out,
                          size_t size)
{
    while (*mine || *theirs) {
        const char *me = strchr(mine, '\n'), *te = strchr(theirs, '\n');
        size_t ml = me ? (size_t)(me - mine) : strlen(mine);
        size_t tl = te ? (size_t)(te - theirs) : strlen(theirs);
        if (ml != tl || memcmp(mine, theirs, ml) != 0) {
            snprintf(out, size, "'%.*s' here, '%.*s' in the checkpoint",
                     (int)(ml < 200 ? ml : 200), mine,
                     (int)(tl < 200 ? tl : 200), theirs);
            return;
        }
        mine += ml + (me != NULL);
        theirs += tl + (te != NULL);
    }
    snprintf(out, size, "(no line differs)");
}

tsgs_status tsgs__ckpt_match(run_t *r, const tsgs__train_job *job,
                             tsgs_error *err)
{
    const tsgs__ckpt *c = r->opt.resume;
    /* every process of a run over several (rank 0 alone writes): the
     * fingerprint is collective */
    if (!r->opt.ckpt_write && !r->opt.ckpt_settings && !c)
        return TSGS_OK;
    r->ckpt.settings = r->opt.ckpt_settings ? strdup(r->opt.ckpt_settings)
                                            : tsgs__ckpt_settings_text(&job->p);
    if (!r->ckpt.settings)
        return TSGS__NOMEM(err);
    if (data_fingerprint(job->ds, r->labeled.n, r->ckpt.data))
        return TSGS__NOMEM(err);
    if (!c)
        return TSGS_OK;
    const record *s, *d, *res;
    tsgs_status st;
    if ((st = field(c, "settings", T_TEXT, -1, &s, err)) != TSGS_OK ||
        (st = field(c, "data", T_U64, 4, &d, err)) != TSGS_OK ||
        (st = field(c, "resolved", T_F64, 2, &res, err)) != TSGS_OK)
        return st;
    if (s->count != strlen(r->ckpt.settings) ||
        memcmp(s->data, r->ckpt.settings, s->count) != 0) {
        char *theirs = malloc(s->count + 1);
        if (!theirs)
            return TSGS__NOMEM(err);
        memcpy(theirs, s->data, s->count);
        theirs[s->count] = '\0';
        char diff[480];
        settings_diff(r->ckpt.settings, theirs, diff, sizeof diff);
        free(theirs);
        return tsgs__fail(err, TSGS_ERR_PARAM, c->path, 0,
                          "checkpoint field 'settings': written by a run "
                          "with other settings: %s",
                          diff);
    }
    uint64_t v[4];
    for (int i = 0; i < 4; i++)
        v[i] = get64(d->data + 8 * i);
    if (memcmp(v, r->ckpt.data, sizeof v) != 0) {
        const char *same = v[0] == r->ckpt.data[0] && v[1] == r->ckpt.data[1] &&
                                   v[2] == r->ckpt.data[2]
                               ? "; as many, other values or labels"
                               : "";
        return tsgs__fail(err, TSGS_ERR_DATA, c->path, 0,
                          "checkpoint field 'data': written for other rows: "
                          "%llu rows of %llu features (%llu labeled) there, "
                          "%llu of %llu (%llu) here%s",
                          (unsigned long long)v[0], (unsigned long long)v[1],
                          (unsigned long long)v[2],
                          (unsigned long long)r->ckpt.data[0],
                          (unsigned long long)r->ckpt.data[1],
                          (unsigned long long)r->ckpt.data[2], same);
    }
    /* the grid's choice, not made again */
    r->p.c = f64_at(res, 0);
    r->p.sigma = f64_at(res, 1);
    if (!(r->p.c > 0.0) || !(r->p.sigma > 0.0) || !isfinite(r->p.c) ||
        !isfinite(r->p.sigma))
        return bad(c, "resolved", err, "C or sigma not positive");
    return TSGS_OK;
}

/* ------------------------------------------------ restoring a run */

/* 0 when v[0 .. n) is a permutation of 0 .. n - 1. */
static int not_permutation(const record *r, size_t n, size_t *out)
{
    unsigned char *seen = calloc(n ? n : 1, 1);
    if (!seen)
        return -1;
    int badv = 0;
    for (size_t i = 0; i < n && !badv; i++) {
        uint64_t k = get64(r->data + 8 * i);
        if (k >= n || seen[k])
            badv = 1;
        else
            seen[k] = 1, out[i] = (size_t)k;
    }
    free(seen);
    return badv;
}

tsgs_status tsgs__ckpt_restore(run_t *r, tsgs_model *m, long T,
                               long max_blocks, long *t_done,
                               tsgs_error *err)
{
    const tsgs__ckpt *c = r->opt.resume;
    const record *steps, *pass, *shape, *state, *ac, *as, *hl, *lo;
    tsgs_status st;
    if ((st = field(c, "steps", T_U64, 3, &steps, err)) != TSGS_OK ||
        (st = field(c, "pass", T_U64, 2, &pass, err)) != TSGS_OK ||
        (st = field(c, "shape", T_U64, 3, &shape, err)) != TSGS_OK ||
        (st = field(c, "state", T_F64, 3, &state, err)) != TSGS_OK)
        return st;
    const uint64_t t = get64(steps->data), cT = get64(steps->data + 8),
                   cmax = get64(steps->data + 16);
    if (cT != (uint64_t)T || cmax != (uint64_t)max_blocks || t > cT) {
        char what[200];
        snprintf(what, sizeof what, "step %llu of %llu, %llu blocks at most "
                                    "there; %ld steps, %ld blocks here",
                 (unsigned long long)t, (unsigned long long)cT,
                 (unsigned long long)cmax, T, max_blocks);
        return bad(c, "steps", err, what);
    }
    const uint64_t nb = get64(shape->data), dirs = get64(shape->data + 8),
                   pair = get64(shape->data + 16);
    if (dirs != (uint64_t)m->fs.dirs || pair != (uint64_t)r->settings.cos_sin ||
        nb > (uint64_t)max_blocks || (r->frs.on && nb != (uint64_t)m->nblocks))
        return bad(c, "shape", err, "blocks or directions that this run's "
                                    "model cannot have");
    const long long ncoef = (long long)(nb * dirs);
    if ((st = field(c, "coef_cos", T_F64, ncoef, &ac, err)) != TSGS_OK ||
        (st = field(c, "coef_sin", T_F64, pair ? ncoef : 0, &as, err)) !=
            TSGS_OK ||
        (st = field(c, "labeled_sums", T_F64, (long long)r->labeled.n, &hl,
                    err)) != TSGS_OK ||
        (st = field(c, "labeled_order", T_U64, (long long)r->labeled.n, &lo,
                    err)) != TSGS_OK)
        return st;
    const uint64_t epoch = get64(pass->data), upos = get64(pass->data + 8);
    if (upos > r->unlabeled.n || epoch > (uint64_t)T)
        return bad(c, "pass", err, "a position outside the unlabeled rows");
    int np = not_permutation(lo, r->labeled.n, r->labeled.order);
    if (np < 0)
        return TSGS__NOMEM(err);
    if (np)
        return bad(c, "labeled_order", err, "not an order of the labeled "
                                            "rows");
    /* the model: its blocks, their directions cached, the coefficients */
    while (m->nblocks < (long)nb)
        if ((st = tsgs__model_add_block(m, err)) != TSGS_OK)
            return st;
    if ((st = tsgs__model_cache_sync(m, err)) != TSGS_OK)
        return st;
    for (long long g = 0; g < ncoef; g++) {
        m->ac[g] = f64_at(ac, (size_t)g);
        if (pair)
            m->as[g] = f64_at(as, (size_t)g);
    }
    m->scale = f64_at(state, 0);
    m->bias = f64_at(state, 1);
    r->unlabeled.balance_threshold = f64_at(state, 2);
    if (!(m->scale > 0.0) || !isfinite(m->bias) ||
        !isfinite(r->unlabeled.balance_threshold))
        return bad(c, "state", err, "a scale, bias or threshold out of "
                                    "range");
    for (size_t i = 0; i < r->labeled.n; i++)
        r->labeled.sums[i] = f64_at(hl, i);
    /* the pass order: the seed's shuffles replayed up to the pass */
    for (long e = 1; e <= (long)epoch; e++) {
        r->unlabeled.pass = e;
#ifdef _OPENMP
#pragma omp parallel num_threads(r->threads) if (r->threads > 1)
#endif
        tsgs__sgd_shuffle_pass(r);
    }
    r->unlabeled.pass_position = (size_t)upos;
    *t_done = (long)t;
    return TSGS_OK;
}

/* ------------------------------------------------ writing a run */

/* The file being made, in memory: a checkpoint is small beside the rows
 * (the coefficients and two numbers per labeled row). */
typedef struct {
    unsigned char *p;
    size_t n, cap;
    int failed;
} buffer;

static void put(buffer *b, const void *data, size_t len)
{
    if (b->failed || !len)
        return;
    if (b->n + len > b->cap) {
        size_t cap = 2 * (b->n + len);
        unsigned char *q = realloc(b->p, cap);
        if (!q) {
            b->failed = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
}

static void put_record(buffer *b, const char *name, uint32_t type,
                       uint64_t count, const void *data)
{
    static const unsigned char zero[8] = {0};
    unsigned char head[REC_BYTES];
    memset(head, 0, sizeof head);
    memcpy(head, name, strlen(name));
    memcpy(head + NAME_LEN, &type, 4);
    memcpy(head + NAME_LEN + 8, &count, 8);
    put(b, head, sizeof head);
    const size_t nb = (size_t)value_bytes(type, count);
    if (type == T_TEXT) {
        put(b, data, (size_t)count);
        put(b, zero, nb - (size_t)count);
    } else {
        put(b, data, nb);
    }
}

/* The state after step t, then its checksum. */
static void put_state(buffer *b, const run_t *r, const tsgs_model *m, long t,
                      const uint64_t *lorder)
{
    const uint64_t nb = (uint64_t)m->nblocks, dirs = (uint64_t)m->fs.dirs;
    /* the rows of step t + 1 taken ahead go back to the pass (a resumed
     * run takes them again) */
    const uint64_t upos =
        r->unlabeled.pass_position -
        (r->ahead.step == t + 1 ? r->unlabeled.batch_size : 0);
    const uint64_t steps[3] = {(uint64_t)t, (uint64_t)r->T,
                               (uint64_t)r->settings.max_blocks};
    const uint64_t pass[2] = {(uint64_t)r->unlabeled.pass, upos};
    const uint64_t shape[3] = {nb, dirs, (uint64_t)r->settings.cos_sin};
    const double state[3] = {m->scale, m->bias, r->unlabeled.balance_threshold};
    const double resolved[2] = {r->p.c, r->p.sigma};
    const uint32_t version = CKPT_VERSION, bom = CKPT_BOM;
    put(b, CKPT_MAGIC, 8);
    put(b, &version, 4);
    put(b, &bom, 4);
    put_record(b, "settings", T_TEXT, strlen(r->ckpt.settings),
               r->ckpt.settings);
    put_record(b, "data", T_U64, 4, r->ckpt.data);
    put_record(b, "resolved", T_F64, 2, resolved);
    put_record(b, "steps", T_U64, 3, steps);
    put_record(b, "pass", T_U64, 2, pass);
    put_record(b, "shape", T_U64, 3, shape);
    put_record(b, "state", T_F64, 3, state);
    put_record(b, "coef_cos", T_F64, nb * dirs, m->ac);
    put_record(b, "coef_sin", T_F64, r->settings.cos_sin ? nb * dirs : 0,
               m->as);
    put_record(b, "labeled_sums", T_F64, r->labeled.n, r->labeled.sums);
    put_record(b, "labeled_order", T_U64, r->labeled.n, lorder);
    put_record(b, "end", T_U64, 0, NULL);
    if (!b->failed) {
        const uint64_t sum = hash_bytes(CKPT_BOM, b->p, b->n);
        put(b, &sum, 8);
    }
}

tsgs_status tsgs__ckpt_write(const run_t *r, const tsgs_model *m, long t,
                             tsgs_error *err)
{
    const char *path = r->opt.ckpt_write->path;
    buffer b = {NULL, 0, 0, 0};
    uint64_t *lorder =
        malloc(sizeof(uint64_t) * (r->labeled.n ? r->labeled.n : 1));
    if (lorder) {
        for (size_t i = 0; i < r->labeled.n; i++)
            lorder[i] = r->labeled.order[i];
        put_state(&b, r, m, t, lorder);
    }
    free(lorder);
    if (!lorder || b.failed) {
        free(b.p);
        return TSGS__NOMEM(err);
    }
    FILE *f = NULL;
    char *tmp = NULL;
    tsgs_status st = tsgs_temp_open(path, &f, &tmp, err);
    if (st != TSGS_OK) {
        free(b.p);
        return st;
    }
    int bad_io = fwrite(b.p, 1, b.n, f) != b.n;
    free(b.p);
    bad_io |= fflush(f) != 0;
    bad_io |= fsync(fileno(f)) != 0;
    int e = errno;
    bad_io |= fclose(f) != 0;
    if (!bad_io && rename(tmp, path) != 0) {
        bad_io = 1;
        e = errno;
    }
    if (bad_io) {
        unlink(tmp);
        free(tmp);
        return tsgs__fail(err, TSGS_ERR_IO, path, 0,
                          "writing the checkpoint failed: %s", strerror(e));
    }
    free(tmp);
    return TSGS_OK;
}
