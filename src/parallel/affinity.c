/* Thread and memory placement: the only file that talks to hwloc.
 *
 * Planning is a pure function of a topology: the usable (allowed) cores are
 * put in an order (compact: logical order; scatter: round-robin over NUMA
 * nodes, or packages), thread i takes the first PU of the i-th core, then
 * the second PUs of the cores in the same order (hyperthreads), and so on,
 * wrapping around when there are more threads than PUs. Applying a plan
 * binds the threads of an OpenMP team and degrades to a warning where the
 * system does not support binding. */
#include "parallel/parallel.h"

#include <hwloc.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

struct tsgs_topology {
    hwloc_topology_t h;
    int packages, numa_nodes, cores, pus; /* usable ones */
};

/* One place a thread can go: a PU and where it sits. */
typedef struct {
    int os_pu, core, package, numa;
} slot;

/* A usable core: its PUs are pus[first .. first + npu). */
typedef struct {
    int core, package, numa;
    int first, npu;
} unit;

/* ---------------------------------------------------------- topologies */

static int cpuset_usable(hwloc_topology_t h, hwloc_const_cpuset_t set)
{
    return set && hwloc_bitmap_intersects(set,
                                          hwloc_topology_get_allowed_cpuset(h));
}

/* A NUMA node threads can run near: allowed and with allowed PUs. */
static int numa_usable(hwloc_topology_t h, hwloc_obj_t node)
{
    return hwloc_bitmap_isset(hwloc_topology_get_allowed_nodeset(h),
                              node->os_index) &&
           cpuset_usable(h, node->cpuset);
}

static int pu_usable(hwloc_topology_t h, hwloc_obj_t pu)
{
    return hwloc_bitmap_isset(hwloc_topology_get_allowed_cpuset(h),
                              pu->os_index);
}

static void count_usable(struct tsgs_topology *t)
{
    hwloc_topology_t h = t->h;
    t->packages = t->numa_nodes = t->cores = t->pus = 0;
    int n = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PACKAGE);
    for (int i = 0; i < n; i++)
        t->packages +=
            cpuset_usable(h, hwloc_get_obj_by_type(h, HWLOC_OBJ_PACKAGE,
                                                   (unsigned)i)->cpuset);
    n = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < n; i++)
        t->numa_nodes += numa_usable(
            h, hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)i));
    n = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
    for (int i = 0; i < n; i++)
        t->pus += pu_usable(h, hwloc_get_obj_by_type(h, HWLOC_OBJ_PU,
                                                      (unsigned)i));
    n = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE);
    if (n <= 0) {
        t->cores = t->pus; /* no core level: every PU is a core */
        return;
    }
    for (int i = 0; i < n; i++)
        t->cores += cpuset_usable(
            h, hwloc_get_obj_by_type(h, HWLOC_OBJ_CORE, (unsigned)i)->cpuset);
}

/* Loads an initialised topology and wraps it; destroys it on failure. */
static tsgs_status finish_open(hwloc_topology_t h, const char *what_file,
                               const char *what, tsgs_topology **out,
                               tsgs_error *err)
{
    if (hwloc_topology_load(h) != 0) {
        int e = errno;
        hwloc_topology_destroy(h);
        return tsgs__fail(err, TSGS_ERR_PARSE, what_file, 0,
                          "could not load the %s topology (%s)", what,
                          strerror(e));
    }
    struct tsgs_topology *t = calloc(1, sizeof *t);
    if (!t) {
        hwloc_topology_destroy(h);
        return TSGS__NOMEM(err);
    }
    t->h = h;
    count_usable(t);
    if (t->pus < 1) {
        hwloc_topology_destroy(h);
        free(t);
        return tsgs__fail(err, TSGS_ERR_DATA, what_file, 0,
                          "the %s topology has no usable processing unit",
                          what);
    }
    *out = t;
    return TSGS_OK;
}

static tsgs_status init_handle(hwloc_topology_t *h, tsgs_error *err)
{
    if (hwloc_topology_init(h) != 0)
        return tsgs__fail(err, TSGS_ERR_NOMEM, NULL, 0,
                          "could not initialise an hwloc topology");
    return TSGS_OK;
}

tsgs_status tsgs_topology_open(tsgs_topology **out, tsgs_error *err)
{
    if (!out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_topology_open: NULL argument");
    hwloc_topology_t h;
    tsgs_status st = init_handle(&h, err);
    if (st != TSGS_OK)
        return st;
    return finish_open(h, NULL, "machine's", out, err);
}

tsgs_status tsgs_topology_open_xml(const char *path, tsgs_topology **out,
                                   tsgs_error *err)
{
    if (!path || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_topology_open_xml: NULL argument");
    /* hwloc's own message for a missing file is vague: look first. */
    FILE *f = fopen(path, "r");
    if (!f)
        return tsgs__fail(err, TSGS_ERR_IO, path, 0,
                          "cannot open the hwloc XML topology: %s",
                          strerror(errno));
    fclose(f);
    hwloc_topology_t h;
    tsgs_status st = init_handle(&h, err);
    if (st != TSGS_OK)
        return st;
    if (hwloc_topology_set_xml(h, path) != 0) {
        int e = errno;
        hwloc_topology_destroy(h);
        return tsgs__fail(err, TSGS_ERR_PARSE, path, 0,
                          "not a usable hwloc XML topology (%s)",
                          strerror(e));
    }
    return finish_open(h, path, "XML", out, err);
}

tsgs_status tsgs_topology_open_synthetic(const char *description,
                                         tsgs_topology **out,
                                         tsgs_error *err)
{
    if (!description || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_topology_open_synthetic: NULL argument");
    hwloc_topology_t h;
    tsgs_status st = init_handle(&h, err);
    if (st != TSGS_OK)
        return st;
    if (hwloc_topology_set_synthetic(h, description) != 0) {
        hwloc_topology_destroy(h);
        return tsgs__fail(err, TSGS_ERR_PARSE, NULL, 0,
                          "bad hwloc synthetic topology \"%s\" (expected "
                          "e.g. \"pack:2 numa:1 core:8 pu:2\")",
                          description);
    }
    return finish_open(h, NULL, "synthetic", out, err);
}

void tsgs_topology_free(tsgs_topology *t)
{
    if (!t)
        return;
    hwloc_topology_destroy(t->h);
    free(t);
}

void tsgs_topology_counts(const tsgs_topology *t, int *packages,
                          int *numa_nodes, int *cores, int *pus)
{
    if (packages)
        *packages = t ? t->packages : 0;
    if (numa_nodes)
        *numa_nodes = t ? t->numa_nodes : 0;
    if (cores)
        *cores = t ? t->cores : 0;
    if (pus)
        *pus = t ? t->pus : 0;
}

/* ------------------------------------------------------------ planning */

static int package_of(hwloc_topology_t h, hwloc_obj_t obj)
{
    hwloc_obj_t p = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_PACKAGE, obj);
    return p ? (int)p->logical_index : -1;
}

/* The first usable NUMA node (logical order) local to PU os_pu, or -1. */
static int numa_of(hwloc_topology_t h, int os_pu)
{
    int n = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t node =
            hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (numa_usable(h, node) &&
            hwloc_bitmap_isset(node->cpuset, (unsigned)os_pu))
            return (int)node->logical_index;
    }
    return -1;
}

/* The usable cores in logical order with their allowed PUs. */
static tsgs_status collect_units(const tsgs_topology *t, unit **units_out,
                                 int *nunits_out, int **pus_out,
                                 tsgs_error *err)
{
    hwloc_topology_t h = t->h;
    int npu_all = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
    int ncore_all = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE);
    int cap = ncore_all > 0 ? ncore_all : npu_all;
    unit *units = malloc(sizeof *units * (size_t)(cap > 0 ? cap : 1));
    int *pus = malloc(sizeof *pus * (size_t)(npu_all > 0 ? npu_all : 1));
    if (!units || !pus) {
        free(units);
        free(pus);
        return TSGS__NOMEM(err);
    }
    int nunits = 0, npus = 0;
    if (ncore_all > 0) {
        for (int i = 0; i < ncore_all; i++) {
            hwloc_obj_t core =
                hwloc_get_obj_by_type(h, HWLOC_OBJ_CORE, (unsigned)i);
            unit u = {(int)core->logical_index, package_of(h, core), -1,
                      npus, 0};
            hwloc_obj_t pu = NULL;
            while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(
                        h, core->cpuset, HWLOC_OBJ_PU, pu)) != NULL) {
                if (pu_usable(h, pu) && npus < npu_all) {
                    pus[npus++] = (int)pu->os_index;
                    u.npu++;
                }
            }
            if (u.npu > 0) {
                u.numa = numa_of(h, pus[u.first]);
                units[nunits++] = u;
            }
        }
    } else {
        for (int i = 0; i < npu_all; i++) {
            hwloc_obj_t pu = hwloc_get_obj_by_type(h, HWLOC_OBJ_PU,
                                                   (unsigned)i);
            if (!pu_usable(h, pu))
                continue;
            unit u = {(int)pu->logical_index, package_of(h, pu),
                      numa_of(h, (int)pu->os_index), npus, 1};
            pus[npus++] = (int)pu->os_index;
            units[nunits++] = u;
        }
    }
    if (nunits == 0) {
        free(units);
        free(pus);
        return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                          "the topology has no usable core");
    }
    *units_out = units;
    *nunits_out = nunits;
    *pus_out = pus;
    return TSGS_OK;
}

/* A group of cores scatter spreads over: a NUMA node or a package. */
typedef struct {
    long key;
    int package;
    int rank;  /* how many domains of the same package come before */
    int order; /* first appearance */
    int n, next;
    int *members; /* unit indices, logical order */
} domain;

static int domain_cmp(const void *a, const void *b)
{
    const domain *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* Writes into order[] the scatter order of the units: domains (NUMA nodes
 * when there are several, else packages) taken round-robin, one core of
 * each in turn; the domains are arranged so that consecutive ones alternate
 * packages where a package holds several NUMA nodes. */
static tsgs_status scatter_order(const tsgs_topology *t, const unit *units,
                                 int nunits, int *order, tsgs_error *err)
{
    int by_numa = t->numa_nodes >= 2;
    int by_package = !by_numa && t->packages >= 2;
    domain *dom = calloc((size_t)nunits, sizeof *dom);
    int *members = malloc(sizeof *members * (size_t)nunits);
    if (!dom || !members) {
        free(dom);
        free(members);
        return TSGS__NOMEM(err);
    }
    int ndom = 0;
    int *dom_of = order; /* reused as scratch: the domain of each unit */
    for (int i = 0; i < nunits; i++) {
        long key;
        if (by_numa && units[i].numa >= 0)
            key = units[i].numa;
        else if (by_numa || by_package)
            key = (long)INT_MAX + 1 + units[i].package; /* per package */
        else
            key = 0;
        int d = 0;
        while (d < ndom && dom[d].key != key)
            d++;
        if (d == ndom) {
            dom[d].key = key;
            dom[d].package = units[i].package;
            dom[d].order = d;
            for (int e = 0; e < d; e++)
                dom[d].rank += dom[e].package == units[i].package;
            ndom++;
        }
        dom[d].n++;
        dom_of[i] = d;
    }
    int off = 0;
    for (int d = 0; d < ndom; d++) {
        dom[d].members = members + off;
        off += dom[d].n;
        dom[d].n = 0;
    }
    for (int i = 0; i < nunits; i++) {
        domain *dd = &dom[dom_of[i]];
        dd->members[dd->n++] = i;
    }
    qsort(dom, (size_t)ndom, sizeof *dom, domain_cmp);
    int k = 0;
    while (k < nunits) {
        for (int d = 0; d < ndom; d++)
            if (dom[d].next < dom[d].n)
                order[k++] = dom[d].members[dom[d].next++];
    }
    free(dom);
    free(members);
    return TSGS_OK;
}

/* Every usable PU as a slot, in the order threads take them. */
static tsgs_status plan_slots(const tsgs_topology *t, tsgs_bind policy,
                              slot **out, int *nslots, int *ncores,
                              tsgs_error *err)
{
    unit *units = NULL;
    int nunits = 0, *pus = NULL;
    tsgs_status st = collect_units(t, &units, &nunits, &pus, err);
    if (st != TSGS_OK)
        return st;
    int *order = malloc(sizeof *order * (size_t)nunits);
    int total = 0, maxpu = 0;
    for (int i = 0; i < nunits; i++) {
        total += units[i].npu;
        if (units[i].npu > maxpu)
            maxpu = units[i].npu;
    }
    slot *slots = malloc(sizeof *slots * (size_t)total);
    if (!order || !slots) {
        st = TSGS__NOMEM(err);
        goto fail;
    }
    if (policy == TSGS_BIND_SCATTER) {
        if ((st = scatter_order(t, units, nunits, order, err)) != TSGS_OK)
            goto fail;
    } else {
        for (int i = 0; i < nunits; i++)
            order[i] = i;
    }
    int k = 0;
    for (int layer = 0; layer < maxpu; layer++) {
        for (int i = 0; i < nunits; i++) {
            const unit *u = &units[order[i]];
            if (layer >= u->npu)
                continue;
            slots[k].os_pu = pus[u->first + layer];
            slots[k].core = u->core;
            slots[k].package = u->package;
            slots[k].numa = u->numa;
            k++;
        }
    }
    free(units);
    free(pus);
    free(order);
    *out = slots;
    *nslots = total;
    if (ncores)
        *ncores = nunits;
    return TSGS_OK;
fail:
    free(units);
    free(pus);
    free(order);
    free(slots);
    return st;
}

void tsgs_placement_free(tsgs_placement *pl)
{
    if (!pl)
        return;
    free(pl->os_pu);
    free(pl->core);
    free(pl->package);
    free(pl->numa);
    free(pl);
}

tsgs_status tsgs_placement_plan(const tsgs_topology *t, int threads,
                                tsgs_bind policy, tsgs_placement **out,
                                tsgs_error *err)
{
    if (!t || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_placement_plan: NULL argument");
    if (threads < 0)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "threads = %d: must be 0 (one per core) or more",
                          threads);
    if (policy != TSGS_BIND_AUTO && policy != TSGS_BIND_COMPACT &&
        policy != TSGS_BIND_SCATTER && policy != TSGS_BIND_NONE)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "unknown binding policy %d", (int)policy);
    if (policy == TSGS_BIND_AUTO)
        policy = TSGS_BIND_COMPACT; /* the caller resolves AUTO */
    slot *slots = NULL;
    int nslots = 0, ncores = 0;
    tsgs_status st = TSGS_OK;
    if (policy != TSGS_BIND_NONE) {
        st = plan_slots(t, policy, &slots, &nslots, &ncores, err);
        if (st != TSGS_OK)
            return st;
    } else {
        ncores = t->cores > 0 ? t->cores : 1;
    }
    if (threads == 0)
        threads = ncores;
    tsgs_placement *pl = calloc(1, sizeof *pl);
    if (!pl) {
        free(slots);
        return TSGS__NOMEM(err);
    }
    pl->threads = threads;
    pl->os_pu = malloc(sizeof(int) * (size_t)threads);
    pl->core = malloc(sizeof(int) * (size_t)threads);
    pl->package = malloc(sizeof(int) * (size_t)threads);
    pl->numa = malloc(sizeof(int) * (size_t)threads);
    if (!pl->os_pu || !pl->core || !pl->package || !pl->numa) {
        free(slots);
        tsgs_placement_free(pl);
        return TSGS__NOMEM(err);
    }
    for (int i = 0; i < threads; i++) {
        if (policy == TSGS_BIND_NONE) {
            pl->os_pu[i] = pl->core[i] = pl->package[i] = pl->numa[i] = -1;
            continue;
        }
        const slot *s = &slots[i % nslots];
        pl->os_pu[i] = s->os_pu;
        pl->core[i] = s->core;
        pl->package[i] = s->package;
        pl->numa[i] = s->numa;
    }
    free(slots);
    *out = pl;
    return TSGS_OK;
}

/* ---------------------------------------------------------- describing */

typedef struct {
    char *buf;
    size_t size, used;
} sink;

__attribute__((format(printf, 2, 3))) static void put(sink *s,
                                                      const char *fmt, ...)
{
    if (s->size == 0 || s->used >= s->size - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(s->buf + s->used, s->size - s->used, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    s->used += (size_t)k;
    if (s->used > s->size - 1)
        s->used = s->size - 1;
}

static const char *plural(int n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* Which policy would have produced this plan, by planning again. */
static const char *infer_policy(const tsgs_topology *t,
                                const tsgs_placement *pl)
{
    if (pl->threads > 0 && pl->os_pu[0] < 0)
        return "none (threads are not bound)";
    if (!t)
        return "bound";
    static const tsgs_bind cand[] = {TSGS_BIND_COMPACT, TSGS_BIND_SCATTER};
    static const char *const names[] = {"compact", "scatter"};
    for (int c = 0; c < 2; c++) {
        tsgs_placement *q = NULL;
        if (tsgs_placement_plan(t, pl->threads, cand[c], &q, NULL) != TSGS_OK)
            continue;
        int same = q->threads == pl->threads &&
                   memcmp(q->os_pu, pl->os_pu,
                          sizeof(int) * (size_t)pl->threads) == 0;
        tsgs_placement_free(q);
        if (same)
            return names[c];
    }
    return "custom";
}

/* Distinct non-negative values among v[0..n). */
static int distinct(const int *v, int n)
{
    int count = 0;
    for (int i = 0; i < n; i++) {
        if (v[i] < 0)
            continue;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = v[j] == v[i];
        count += !seen;
    }
    return count;
}

tsgs_status tsgs_placement_describe(const tsgs_topology *t,
                                    const tsgs_placement *pl, char *buf,
                                    size_t size)
{
    if (!buf || size == 0)
        return TSGS_ERR_PARAM;
    buf[0] = '\0';
    if (!pl)
        return TSGS_ERR_PARAM;
    sink s = {buf, size, 0};
    if (t)
        put(&s, "machine: %d %s, %d NUMA %s, %d %s, %d %s\n", t->packages,
            plural(t->packages, "package", "packages"), t->numa_nodes,
            plural(t->numa_nodes, "node", "nodes"), t->cores,
            plural(t->cores, "core", "cores"), t->pus,
            plural(t->pus, "PU", "PUs"));
    const char *pol = infer_policy(t, pl);
    put(&s, "policy: %s, %d %s", pol, pl->threads,
        plural(pl->threads, "thread", "threads"));
    if (pl->threads > 0 && pl->os_pu[0] >= 0) {
        int nc = distinct(pl->core, pl->threads);
        int np = distinct(pl->package, pl->threads);
        int nn = distinct(pl->numa, pl->threads);
        put(&s, " on %d %s, %d %s, %d NUMA %s", nc,
            plural(nc, "core", "cores"), np,
            plural(np, "package", "packages"), nn,
            plural(nn, "node", "nodes"));
    }
    put(&s, "\n");
    for (int i = 0; i < pl->threads; i++) {
        if (pl->os_pu[i] < 0) {
            put(&s, "thread %d -> not bound\n", i);
            continue;
        }
        put(&s, "thread %d -> PU %d (core %d", i, pl->os_pu[i], pl->core[i]);
        if (pl->package[i] >= 0)
            put(&s, ", package %d", pl->package[i]);
        if (pl->numa[i] >= 0)
            put(&s, ", NUMA %d", pl->numa[i]);
        put(&s, ")\n");
    }
    return TSGS_OK;
}

/* ------------------------------------------------------ this machine */

/* This machine's topology, loaded once and only read afterwards (hwloc
 * allows concurrent readers of one topology). */
static pthread_once_t machine_once = PTHREAD_ONCE_INIT;
static tsgs_topology *machine;

static void machine_load(void)
{
    tsgs_topology *t = NULL;
    if (tsgs_topology_open(&t, NULL) == TSGS_OK)
        machine = t;
}

static const tsgs_topology *this_machine(void)
{
    pthread_once(&machine_once, machine_load);
    return machine;
}

/* A positive integer at the start of s (the first of a comma list), or 0. */
static int leading_count(const char *s)
{
    if (!s)
        return 0;
    while (*s == ' ' || *s == '\t')
        s++;
    long v = 0;
    const char *p = s;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (*p - '0');
        if (v > INT_MAX)
            return 0;
        p++;
    }
    if (p == s)
        return 0;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '\0' && *p != ',')
        return 0;
    return (int)v;
}

/* Whether OMP_PROC_BIND (other than false) or OMP_PLACES is set. */
static int omp_placed(void)
{
    const char *pb = getenv("OMP_PROC_BIND");
    if (pb) {
        while (*pb == ' ' || *pb == '\t')
            pb++;
        if (*pb && strcasecmp(pb, "false") != 0)
            return 1;
    }
    const char *places = getenv("OMP_PLACES");
    return places && places[strspn(places, " \t")] != '\0';
}

tsgs__omp_env tsgs__omp_env_read(void)
{
    tsgs__omp_env env;
    env.threads = leading_count(getenv("OMP_NUM_THREADS"));
    env.placed = omp_placed();
    return env;
}

int tsgs__machine_cores(void)
{
    const tsgs_topology *t = this_machine();
    if (t && t->cores > 0)
        return t->cores;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n < INT_MAX ? (int)n : 1;
}

int tsgs__threads_resolve(int requested)
{
    if (requested > 0)
        return requested;
    const tsgs__omp_env env = tsgs__omp_env_read();
    return tsgs__threads_in(requested, &env);
}

int tsgs__threads_in(int requested, const tsgs__omp_env *env)
{
    if (requested > 0)
        return requested;
    if (env->threads > 0)
        return env->threads;
    const int team = tsgs__auto_team();
    if (team > 0)
        return team;
    const tsgs_topology *t = this_machine();
    if (t && t->cores > 0)
        return t->cores;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n < INT_MAX ? (int)n : 1;
}

int tsgs__auto_pins(int threads, int cores)
{
    return cores > 1 && threads >= cores;
}

/* AUTO for `threads` threads on t, OpenMP told where to run (placed) or
 * not. */
static tsgs_bind bind_auto(const tsgs_topology *t, int threads, int placed)
{
    if (placed)
        return TSGS_BIND_NONE;
    const int cores = t ? t->cores : 0;
    return tsgs__auto_pins(threads > 0 ? threads : cores, cores)
               ? TSGS_BIND_COMPACT
               : TSGS_BIND_NONE;
}

tsgs_bind tsgs_bind_resolve(const tsgs_topology *t, int threads,
                            tsgs_bind policy)
{
    if (policy != TSGS_BIND_AUTO)
        return policy;
    /* OpenMP told where to run: OMP_PROC_BIND other than false, or
     * OMP_PLACES. */
    return bind_auto(t, threads, omp_placed());
}

static tsgs_bind resolve_policy(tsgs_bind policy, int threads)
{
    if (policy != TSGS_BIND_AUTO)
        return policy;
    return tsgs_bind_resolve(this_machine(), tsgs__threads_resolve(threads),
                             policy);
}

static void warn_errno(void (*warn)(const char *, void *), void *user,
                       int thread, int os_pu, int e)
{
    if (!warn)
        return;
    char why[128];
    if (strerror_r(e, why, sizeof why) != 0)
        snprintf(why, sizeof why, "errno %d", e);
    char msg[320];
    snprintf(msg, sizeof msg,
             "thread binding failed (thread %d to PU %d: %s); threads are "
             "left where the system puts them",
             thread, os_pu, why);
    warn(msg, user);
}

struct tsgs__binding {
    int threads;
    hwloc_bitmap_t *before; /* each team thread's binding before */
};

/* This machine's topology where threads can be bound on it, else NULL
 * (said through warn). */
static const tsgs_topology *bindable_machine(void (*warn)(const char *,
                                                          void *),
                                             void *user)
{
    const tsgs_topology *t = this_machine();
    if (!t) {
        if (warn)
            warn("thread binding skipped: hwloc could not load this "
                 "machine's topology", user);
        return NULL;
    }
    const struct hwloc_topology_support *sup =
        hwloc_topology_get_support(t->h);
    if (!hwloc_topology_is_thissystem(t->h) || !sup || !sup->cpubind ||
        !sup->cpubind->set_thisthread_cpubind) {
        if (warn)
            warn("thread binding is not supported on this system; threads "
                 "are left where the system puts them", user);
        return NULL;
    }
    return t;
}

/* Each thread of a team of `threads` bound to sets[its number], its
 * binding before kept in before[] (the allowed set where it had none),
 * its errno where binding failed in fail_errno[]. */
static void bind_team(const tsgs_topology *t, int threads,
                      hwloc_bitmap_t *sets, hwloc_bitmap_t *before,
                      int *fail_errno)
{
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
    {
        int me = omp_get_thread_num();
        if (me < threads) {
            if (hwloc_get_cpubind(t->h, before[me], HWLOC_CPUBIND_THREAD))
                hwloc_bitmap_copy(before[me],
                                  hwloc_topology_get_allowed_cpuset(t->h));
            if (hwloc_set_cpubind(t->h, sets[me], HWLOC_CPUBIND_THREAD) != 0)
                fail_errno[me] = errno ? errno : ENOSYS;
        }
    }
#else
    (void)threads;
    if (hwloc_get_cpubind(t->h, before[0], HWLOC_CPUBIND_THREAD))
        hwloc_bitmap_copy(before[0], hwloc_topology_get_allowed_cpuset(t->h));
    if (hwloc_set_cpubind(t->h, sets[0], HWLOC_CPUBIND_THREAD) != 0)
        fail_errno[0] = errno ? errno : ENOSYS;
#endif
}

tsgs__binding *tsgs__bind_threads(int threads, tsgs_bind policy,
                                  void (*warn)(const char *, void *),
                                  void *user)
{
    policy = resolve_policy(policy, threads);
    if (policy == TSGS_BIND_NONE)
        return NULL;
    if (threads < 1)
        threads = tsgs__threads_resolve(threads);
    const tsgs_topology *t = bindable_machine(warn, user);
    if (!t)
        return NULL;
    tsgs_placement *pl = NULL;
    if (tsgs_placement_plan(t, threads, policy, &pl, NULL) != TSGS_OK) {
        if (warn)
            warn("thread binding skipped: out of memory while planning",
                 user);
        return NULL;
    }
    tsgs__binding *b = calloc(1, sizeof *b);
    hwloc_bitmap_t *sets = calloc((size_t)threads, sizeof *sets);
    hwloc_bitmap_t *before = calloc((size_t)threads, sizeof *before);
    int *fail_errno = calloc((size_t)threads, sizeof *fail_errno);
    int ok = b && sets && before && fail_errno;
    for (int i = 0; ok && i < threads; i++) {
        sets[i] = hwloc_bitmap_alloc();
        before[i] = hwloc_bitmap_alloc();
        if (!sets[i] || !before[i])
            ok = 0;
        else
            hwloc_bitmap_only(sets[i], (unsigned)pl->os_pu[i]);
    }
    if (!ok) {
        if (warn)
            warn("thread binding skipped: out of memory", user);
        goto done;
    }
    bind_team(t, threads, sets, before, fail_errno);
    for (int i = 0; i < threads; i++) {
        if (fail_errno[i]) {
            warn_errno(warn, user, i, pl->os_pu[i], fail_errno[i]);
            break;
        }
    }
    b->threads = threads;
    b->before = before;
    before = NULL;
done:
    if (sets)
        for (int i = 0; i < threads; i++)
            hwloc_bitmap_free(sets[i]);
    if (before)
        for (int i = 0; i < threads; i++)
            hwloc_bitmap_free(before[i]);
    free(sets);
    free(before);
    free(fail_errno);
    tsgs_placement_free(pl);
    if (b && !b->before) {
        free(b);
        b = NULL;
    }
    return b;
}

tsgs__binding *tsgs__team_bind(const tsgs__team *team)
{
    tsgs_bind policy = team->bind;
    if (policy == TSGS_BIND_AUTO)
        policy = bind_auto(this_machine(), team->threads, team->omp_placed);
    return tsgs__bind_threads(team->threads, policy, team->warn, team->user);
}

void tsgs__keep_binding(tsgs__binding *b)
{
    if (!b)
        return;
    for (int i = 0; i < b->threads; i++)
        hwloc_bitmap_free(b->before[i]);
    free(b->before);
    free(b);
}

void tsgs__restore_binding(tsgs__binding *b)
{
    if (!b)
        return;
    const tsgs_topology *t = this_machine();
    if (t) {
#ifdef _OPENMP
#pragma omp parallel num_threads(b->threads)
        {
            int me = omp_get_thread_num();
            if (me < b->threads)
                (void)hwloc_set_cpubind(t->h, b->before[me],
                                        HWLOC_CPUBIND_THREAD);
        }
#else
        (void)hwloc_set_cpubind(t->h, b->before[0], HWLOC_CPUBIND_THREAD);
#endif
    }
    tsgs__keep_binding(b);
}

/* ---------------------------------------------------- memory placement */

int tsgs__placement_nodes(const tsgs_placement *pl, int *nodes, int max)
{
    if (!pl)
        return 0;
    int n = 0;
    for (int i = 0; i < pl->threads; i++) {
        int v = pl->numa[i];
        if (v < 0)
            continue;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = pl->numa[j] == v;
        if (seen)
            continue;
        if (nodes && n < max)
            nodes[n] = v;
        n++;
    }
    return n;
}

int tsgs__interleave_nodes(const tsgs_topology *t, int threads,
                           tsgs_bind policy, int *os_nodes, int max)
{
    if (!t || threads <= 0 || t->numa_nodes < 2)
        return 0;
    policy = tsgs_bind_resolve(t, threads, policy);
    if (policy == TSGS_BIND_NONE)
        return 0;
    tsgs_placement *pl = NULL;
    if (tsgs_placement_plan(t, threads, policy, &pl, NULL) != TSGS_OK)
        return 0;
    int n = tsgs__placement_nodes(pl, NULL, 0);
    int *logical = n >= 2 ? malloc(sizeof *logical * (size_t)n) : NULL;
    if (!logical) {
        tsgs_placement_free(pl);
        return 0;
    }
    tsgs__placement_nodes(pl, logical, n);
    for (int i = 0; i < n && i < max; i++) {
        hwloc_obj_t node = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_NUMANODE,
                                                 (unsigned)logical[i]);
        os_nodes[i] = node ? (int)node->os_index : -1;
    }
    free(logical);
    tsgs_placement_free(pl);
    return n;
}

void tsgs__place_interleaved(void *addr, size_t len, int threads,
                             tsgs_bind policy)
{
    if (!addr || len == 0 || policy == TSGS_BIND_NONE)
        return;
    const tsgs_topology *t = this_machine();
    if (!t || t->numa_nodes < 2 || !hwloc_topology_is_thissystem(t->h))
        return;
    const struct hwloc_topology_support *sup =
        hwloc_topology_get_support(t->h);
    if (!sup || !sup->membind || !sup->membind->set_area_membind ||
        !sup->membind->interleave_membind)
        return;
    /* at most one entry per usable node */
    int *nodes = malloc(sizeof *nodes * (size_t)t->numa_nodes);
    int n = nodes ? tsgs__interleave_nodes(t, tsgs__threads_resolve(threads),
                                           policy, nodes, t->numa_nodes)
                  : 0;
    hwloc_bitmap_t set = n >= 2 ? hwloc_bitmap_alloc() : NULL;
    if (set) {
        for (int i = 0; i < n && i < t->numa_nodes; i++)
            if (nodes[i] >= 0)
                hwloc_bitmap_set(set, (unsigned)nodes[i]);
        /* Whole pages only: round the start down and the end up. */
        long page = sysconf(_SC_PAGESIZE);
        uintptr_t a = (uintptr_t)addr, ps = page > 0 ? (uintptr_t)page
                                                     : 4096;
        uintptr_t lo = a - a % ps;
        size_t span = len + (size_t)(a - lo);
        int flags = HWLOC_MEMBIND_BYNODESET;
        if (hwloc_set_area_membind(t->h, (void *)lo, span, set,
                                   HWLOC_MEMBIND_INTERLEAVE,
                                   flags | HWLOC_MEMBIND_MIGRATE) != 0)
            (void)hwloc_set_area_membind(t->h, (void *)lo, span, set,
                                         HWLOC_MEMBIND_INTERLEAVE, flags);
    }
    hwloc_bitmap_free(set);
    free(nodes);
}

/* Per-thread buffers carry a 64-byte header that says how they were
 * allocated, so that freeing needs no global state. */
#define LOCAL_HEADER 64
#define LOCAL_MAGIC 0x7473676cu /* "tsgl" */
enum { LOCAL_HWLOC = 1, LOCAL_HEAP = 2 };

typedef struct {
    unsigned magic, kind;
    size_t total;
} local_header;

/* The single NUMA node (OS index) local to every PU of cpus, or -1; nodes
 * gets the nodeset of those PUs. */
static int node_near(const tsgs_topology *t, hwloc_const_cpuset_t cpus,
                     hwloc_nodeset_t nodes)
{
    hwloc_cpuset_to_nodeset(t->h, cpus, nodes);
    return hwloc_bitmap_weight(nodes) == 1 ? hwloc_bitmap_first(nodes) : -1;
}

int tsgs__node_near(const tsgs_topology *t, const int *os_pus, int n)
{
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
    hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
    int node = -1;
    if (t && cpus && nodes && n > 0) {
        for (int i = 0; i < n; i++)
            hwloc_bitmap_set(cpus, (unsigned)os_pus[i]);
        node = node_near(t, cpus, nodes);
    }
    hwloc_bitmap_free(cpus);
    hwloc_bitmap_free(nodes);
    return node;
}

/* The single NUMA node (OS index) the calling thread is bound near, or -1
 * when it is not bound within one node. */
static int current_node(const tsgs_topology *t, hwloc_nodeset_t nodes)
{
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
    int node = -1;
    if (cpus && hwloc_get_cpubind(t->h, cpus, HWLOC_CPUBIND_THREAD) == 0)
        node = node_near(t, cpus, nodes);
    hwloc_bitmap_free(cpus);
    return node;
}

void *tsgs__alloc_local(size_t len)
{
    if (len > SIZE_MAX - 2 * LOCAL_HEADER)
        return NULL;
    size_t total = (len + LOCAL_HEADER + 63) / 64 * 64;
    unsigned char *base = NULL;
    unsigned kind = LOCAL_HEAP;
    const tsgs_topology *t = this_machine();
    if (t && t->numa_nodes >= 2 && hwloc_topology_is_thissystem(t->h)) {
        const struct hwloc_topology_support *sup =
            hwloc_topology_get_support(t->h);
        hwloc_nodeset_t nodes = hwloc_bitmap_alloc();
        if (nodes && sup && sup->membind && sup->membind->alloc_membind &&
            sup->membind->bind_membind && sup->cpubind &&
            sup->cpubind->get_thisthread_cpubind &&
            current_node(t, nodes) >= 0) {
            base = hwloc_alloc_membind(t->h, total, nodes,
                                       HWLOC_MEMBIND_BIND,
                                       HWLOC_MEMBIND_BYNODESET);
            if (base)
                kind = LOCAL_HWLOC;
        }
        hwloc_bitmap_free(nodes);
    }
    if (!base)
        base = aligned_alloc(64, total);
    if (!base)
        return NULL;
    local_header h = {LOCAL_MAGIC, kind, total};
    memcpy(base, &h, sizeof h);
    return base + LOCAL_HEADER;
}

void tsgs__free_local(void *p, size_t len)
{
    (void)len; /* the header knows */
    if (!p)
        return;
    unsigned char *base = (unsigned char *)p - LOCAL_HEADER;
    local_header h;
    memcpy(&h, base, sizeof h);
    if (h.magic == LOCAL_MAGIC && h.kind == LOCAL_HWLOC && machine)
        hwloc_free(machine->h, base, h.total);
    else
        free(base);
}
