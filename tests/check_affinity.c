/* Thread placement plans on synthetic and real (XML) topologies, thread
 * count resolution, binding on this machine, memory placement helpers.
 *
 * OpenMP runs only inside test bodies (the forked children): the runner's
 * parent process must never start libgomp's threads. */
#define _GNU_SOURCE /* sched_setaffinity for the busy child */
#include "fixtures.h"
#include "internal.h"

#include <check.h>
#include <hwloc.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define TOPO_DIR "data/topologies/"

static tsgs_topology *synthetic(const char *desc)
{
    tsgs_topology *t = NULL;
    tsgs_error err;
    tsgs_status st = tsgs_topology_open_synthetic(desc, &t, &err);
    ck_assert_msg(st == TSGS_OK, "%s: %s", desc, err.message);
    return t;
}

static tsgs_placement *plan(const tsgs_topology *t, int threads,
                            tsgs_bind policy)
{
    tsgs_placement *pl = NULL;
    tsgs_error err;
    tsgs_status st = tsgs_placement_plan(t, threads, policy, &pl, &err);
    ck_assert_msg(st == TSGS_OK, "plan: %s", err.message);
    ck_assert_ptr_nonnull(pl);
    return pl;
}

/* Nonzero when the first n threads sit on n different cores. */
static int distinct_cores(const tsgs_placement *pl, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (pl->core[i] == pl->core[j])
                return 0;
    return 1;
}

static int count_value(const int *v, int n, int value)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += v[i] == value;
    return c;
}

/* ------------------------------------------------ synthetic: 2 x 16 x 2 */

#define XEON "pack:2 numa:1 core:16 pu:2"

START_TEST(test_synthetic_counts)
{
    tsgs_topology *t = synthetic(XEON);
    int p, n, c, u;
    tsgs_topology_counts(t, &p, &n, &c, &u);
    ck_assert_int_eq(p, 2);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(c, 32);
    ck_assert_int_eq(u, 64);
    tsgs_topology_free(t);
    tsgs_topology_free(NULL);
}
END_TEST

START_TEST(test_compact_fills_package_0_first)
{
    tsgs_topology *t = synthetic(XEON);
    tsgs_placement *pl = plan(t, 32, TSGS_BIND_COMPACT);
    ck_assert_int_eq(pl->threads, 32);
    for (int i = 0; i < 32; i++) {
        ck_assert_int_eq(pl->package[i], i < 16 ? 0 : 1);
        ck_assert_int_eq(pl->numa[i], i < 16 ? 0 : 1);
        ck_assert_int_eq(pl->core[i], i); /* logical order */
    }
    ck_assert(distinct_cores(pl, 32));
    tsgs_placement_free(pl);
    tsgs_topology_free(t);
}
END_TEST

START_TEST(test_scatter_alternates_packages)
{
    tsgs_topology *t = synthetic(XEON);
    tsgs_placement *pl = plan(t, 32, TSGS_BIND_SCATTER);
    for (int i = 0; i < 32; i++) {
        ck_assert_int_eq(pl->package[i], i % 2);
        ck_assert_int_eq(pl->numa[i], i % 2);
    }
    ck_assert(distinct_cores(pl, 32));
    tsgs_placement_free(pl);
    tsgs_topology_free(t);
}
END_TEST

START_TEST(test_scatter_8_threads_4_per_package)
{
    tsgs_topology *t = synthetic(XEON);
    tsgs_placement *pl = plan(t, 8, TSGS_BIND_SCATTER);
    ck_assert_int_eq(count_value(pl->package, 8, 0), 4);
    ck_assert_int_eq(count_value(pl->package, 8, 1), 4);
    ck_assert(distinct_cores(pl, 8));
    tsgs_placement_free(pl);
    /* compact keeps 8 threads on package 0 */
    pl = plan(t, 8, TSGS_BIND_COMPACT);
    ck_assert_int_eq(count_value(pl->package, 8, 0), 8);
    tsgs_placement_free(pl);
    tsgs_topology_free(t);
}
END_TEST

START_TEST(test_hyperthreads_after_cores_then_wrap)
{
    tsgs_topology *t = synthetic(XEON);
    for (int pol = 0; pol < 2; pol++) {
        tsgs_bind b = pol ? TSGS_BIND_SCATTER : TSGS_BIND_COMPACT;
        tsgs_placement *pl = plan(t, 70, b);
        /* 32..63: the second PU of the cores of threads 0..31 */
        for (int i = 0; i < 32; i++) {
            ck_assert_int_eq(pl->core[32 + i], pl->core[i]);
            ck_assert_int_eq(pl->package[32 + i], pl->package[i]);
            ck_assert_int_ne(pl->os_pu[32 + i], pl->os_pu[i]);
        }
        /* 64 threads use 64 different PUs */
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < i; j++)
                ck_assert_int_ne(pl->os_pu[i], pl->os_pu[j]);
        /* then wrap around */
        for (int i = 64; i < 70; i++)
            ck_assert_int_eq(pl->os_pu[i], pl->os_pu[i - 64]);
        tsgs_placement_free(pl);
    }
    tsgs_topology_free(t);
}
END_TEST

START_TEST(test_default_threads_and_policies)
{
    tsgs_topology *t = synthetic(XEON);
    tsgs_placement *pl = plan(t, 0, TSGS_BIND_COMPACT);
    ck_assert_int_eq(pl->threads, 32); /* one per core */
    tsgs_placement *auto_pl = plan(t, 0, TSGS_BIND_AUTO);
    ck_assert_int_eq(auto_pl->threads, 32);
    ck_assert_mem_eq(auto_pl->os_pu, pl->os_pu, 32 * sizeof(int));
    tsgs_placement_free(auto_pl);
    tsgs_placement_free(pl);

    pl = plan(t, 5, TSGS_BIND_NONE);
    ck_assert_int_eq(pl->threads, 5);
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(pl->os_pu[i], -1);
        ck_assert_int_eq(pl->core[i], -1);
        ck_assert_int_eq(pl->package[i], -1);
        ck_assert_int_eq(pl->numa[i], -1);
    }
    tsgs_placement_free(pl);

    tsgs_placement *bad = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_placement_plan(t, -1, TSGS_BIND_COMPACT, &bad, &err),
                     TSGS_ERR_PARAM);
    ck_assert_ptr_null(bad);
    tsgs_placement_free(NULL);
    tsgs_topology_free(t);
}
END_TEST

START_TEST(test_plan_is_pure)
{
    tsgs_topology *t = synthetic(XEON);
    tsgs_placement *a = plan(t, 24, TSGS_BIND_SCATTER);
    tsgs_placement *b = plan(t, 24, TSGS_BIND_SCATTER);
    ck_assert_mem_eq(a->os_pu, b->os_pu, 24 * sizeof(int));
    ck_assert_mem_eq(a->core, b->core, 24 * sizeof(int));
    tsgs_placement_free(a);
    tsgs_placement_free(b);
    tsgs_topology_free(t);
}
END_TEST

/* Several NUMA nodes per package: scatter alternates packages first. */
START_TEST(test_scatter_numa_inside_packages)
{
    tsgs_topology *t = synthetic("pack:2 numa:2 core:4 pu:1");
    int n;
    tsgs_topology_counts(t, NULL, &n, NULL, NULL);
    ck_assert_int_eq(n, 4);
    tsgs_placement *pl = plan(t, 4, TSGS_BIND_SCATTER);
    ck_assert_int_ne(pl->package[0], pl->package[1]);
    for (int node = 0; node < 4; node++)
        ck_assert_int_eq(count_value(pl->numa, 4, node), 1);
    tsgs_placement_free(pl);
    pl = plan(t, 16, TSGS_BIND_SCATTER);
    for (int node = 0; node < 4; node++)
        ck_assert_int_eq(count_value(pl->numa, 16, node), 4);
    ck_assert(distinct_cores(pl, 16));
    tsgs_placement_free(pl);
    tsgs_topology_free(t);
}
END_TEST

/* One NUMA node but several packages: scatter spreads over packages. */
START_TEST(test_scatter_packages_one_numa)
{
    tsgs_topology *t = synthetic("pack:4 core:2 pu:2");
    int p, n;
    tsgs_topology_counts(t, &p, &n, NULL, NULL);
    ck_assert_int_eq(p, 4);
    ck_assert_int_eq(n, 1);
    tsgs_placement *pl = plan(t, 4, TSGS_BIND_SCATTER);
    for (int pk = 0; pk < 4; pk++)
        ck_assert_int_eq(count_value(pl->package, 4, pk), 1);
    tsgs_placement_free(pl);
    tsgs_topology_free(t);
}
END_TEST

START_TEST(test_describe)
{
    tsgs_topology *t = synthetic(XEON);
    tsgs_placement *pl = plan(t, 4, TSGS_BIND_SCATTER);
    char buf[4096];
    ck_assert_int_eq(tsgs_placement_describe(t, pl, buf, sizeof buf),
                     TSGS_OK);
    ck_assert_ptr_nonnull(
        strstr(buf, "machine: 2 packages, 2 NUMA nodes, 32 cores, 64 PUs\n"));
    ck_assert_ptr_nonnull(strstr(buf, "policy: scatter, 4 threads"));
    ck_assert_ptr_nonnull(strstr(buf, "thread 1 -> PU "));
    ck_assert_ptr_nonnull(strstr(buf, "package 1, NUMA 1)"));
    /* truncation keeps a terminated prefix */
    char small[16];
    memset(small, 'x', sizeof small);
    ck_assert_int_eq(tsgs_placement_describe(t, pl, small, sizeof small),
                     TSGS_OK);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
    ck_assert_int_eq(strncmp(small, buf, sizeof small - 1), 0);
    tsgs_placement_free(pl);

    pl = plan(t, 2, TSGS_BIND_COMPACT);
    tsgs_placement_describe(t, pl, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "policy: compact, 2 threads"));
    tsgs_placement_free(pl);
    pl = plan(t, 2, TSGS_BIND_NONE);
    tsgs_placement_describe(t, pl, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "policy: none"));
    ck_assert_ptr_nonnull(strstr(buf, "thread 1 -> not bound"));
    tsgs_placement_free(pl);
    tsgs_topology_free(t);
}
END_TEST

/* ------------------------------------------------------ real topologies */

static const struct {
    const char *file;
    int packages, numa, cores, pus;
} machines[] = {
    {"32em64t-2n8c2t-pci-noio.xml", 2, 2, 16, 32},
    {"24em64t-2n6c2t-pci.xml", 2, 2, 12, 24},
    {"16em64t-4s2c2t.xml", 4, 1, 8, 16},
    {"192em64t-24n8c2t.xml", 24, 24, 192, 384},
    /* restricted cpuset: hwloc keeps 5 allowed NUMA nodes, of which 3 have
     * allowed PUs (the other 2 are memory only); PUs 0-3, 5, 6, 12-15. */
    {"16amd64-8n2c-cpusets.xml", 6, 3, 10, 10},
};
#define NMACHINES ((int)(sizeof machines / sizeof machines[0]))

static tsgs_topology *open_xml(const char *file)
{
    char path[512];
    snprintf(path, sizeof path, TOPO_DIR "%s", file);
    tsgs_topology *t = NULL;
    tsgs_error err;
    tsgs_status st = tsgs_topology_open_xml(path, &t, &err);
    ck_assert_msg(st == TSGS_OK, "%s: %s", path, err.message);
    return t;
}

START_TEST(test_xml_counts)
{
    tsgs_topology *t = open_xml(machines[_i].file);
    int p, n, c, u;
    tsgs_topology_counts(t, &p, &n, &c, &u);
    ck_assert_msg(p == machines[_i].packages && n == machines[_i].numa &&
                      c == machines[_i].cores && u == machines[_i].pus,
                  "%s: %d packages, %d NUMA, %d cores, %d PUs",
                  machines[_i].file, p, n, c, u);
    tsgs_topology_free(t);
}
END_TEST

START_TEST(test_xml_plans_distinct_cores)
{
    tsgs_topology *t = open_xml(machines[_i].file);
    int cores = machines[_i].cores;
    for (int pol = 0; pol < 2; pol++) {
        tsgs_bind b = pol ? TSGS_BIND_SCATTER : TSGS_BIND_COMPACT;
        for (int n = 1; n <= cores; n += (n < 8 ? 1 : 7)) {
            tsgs_placement *pl = plan(t, n, b);
            ck_assert_msg(distinct_cores(pl, n), "%s: %d threads",
                          machines[_i].file, n);
            tsgs_placement_free(pl);
        }
        tsgs_placement *pl = plan(t, 0, b);
        ck_assert_int_eq(pl->threads, cores);
        ck_assert(distinct_cores(pl, cores));
        tsgs_placement_free(pl);
    }
    tsgs_topology_free(t);
}
END_TEST

/* Scatter gives every NUMA node the same number of threads when the count
 * is a multiple (machines whose nodes hold the same number of cores). */
START_TEST(test_xml_scatter_even)
{
    if (_i == NMACHINES - 1)
        return; /* uneven nodes: see test_xml_cpuset_restricted */
    tsgs_topology *t = open_xml(machines[_i].file);
    int nodes = machines[_i].numa;
    int domains = nodes >= 2 ? nodes : machines[_i].packages;
    int per = machines[_i].cores / domains;
    for (int k = 1; k <= per; k++) {
        int n = k * domains;
        tsgs_placement *pl = plan(t, n, TSGS_BIND_SCATTER);
        for (int d = 0; d < domains; d++) {
            const int *v = nodes >= 2 ? pl->numa : pl->package;
            ck_assert_msg(count_value(v, n, d) == k, "%s: %d threads: "
                          "domain %d has %d", machines[_i].file, n, d,
                          count_value(v, n, d));
        }
        tsgs_placement_free(pl);
    }
    tsgs_topology_free(t);
}
END_TEST

START_TEST(test_xml_2n8c_scatter_4)
{
    tsgs_topology *t = open_xml("32em64t-2n8c2t-pci-noio.xml");
    tsgs_placement *pl = plan(t, 4, TSGS_BIND_SCATTER);
    ck_assert_int_eq(count_value(pl->numa, 4, 0), 2);
    ck_assert_int_eq(count_value(pl->numa, 4, 1), 2);
    ck_assert_int_eq(pl->numa[0], 0);
    ck_assert_int_eq(pl->numa[1], 1);
    tsgs_placement_free(pl);
    pl = plan(t, 4, TSGS_BIND_COMPACT);
    ck_assert_int_eq(count_value(pl->numa, 4, 0), 4);
    tsgs_placement_free(pl);
    tsgs_topology_free(t);
}
END_TEST

START_TEST(test_xml_cpuset_restricted)
{
    static const int allowed[] = {0, 1, 2, 3, 5, 6, 12, 13, 14, 15};
    tsgs_topology *t = open_xml("16amd64-8n2c-cpusets.xml");
    for (int pol = 0; pol < 2; pol++) {
        tsgs_bind b = pol ? TSGS_BIND_SCATTER : TSGS_BIND_COMPACT;
        tsgs_placement *pl = plan(t, 25, b);
        for (int i = 0; i < 25; i++) {
            int ok = 0;
            for (int k = 0; k < 10; k++)
                ok |= pl->os_pu[i] == allowed[k];
            ck_assert_msg(ok, "thread %d on disallowed PU %d", i,
                          pl->os_pu[i]);
        }
        ck_assert(distinct_cores(pl, 10));
        tsgs_placement_free(pl);
    }
    /* scatter: the 3 NUMA nodes with PUs and the 3 packages without a
     * usable node are each served before any gets a second thread */
    tsgs_placement *pl = plan(t, 6, TSGS_BIND_SCATTER);
    int pk_seen[8] = {0};
    for (int i = 0; i < 6; i++) {
        ck_assert_int_ge(pl->package[i], 0);
        ck_assert_int_lt(pl->package[i], 8);
        pk_seen[pl->package[i]]++;
    }
    for (int k = 0; k < 8; k++)
        ck_assert_int_le(pk_seen[k], 1);
    tsgs_placement_free(pl);
    tsgs_topology_free(t);
}
END_TEST

/* -------------------------------------------------------------- errors */

START_TEST(test_error_missing_xml)
{
    tsgs_topology *t = NULL;
    tsgs_error err;
    const char *path = TOPO_DIR "no-such-machine.xml";
    tsgs_status st = tsgs_topology_open_xml(path, &t, &err);
    ck_assert_int_eq(st, TSGS_ERR_IO);
    ck_assert_ptr_null(t);
    ck_assert_str_eq(err.file, path);
    ck_assert_ptr_nonnull(strstr(err.message, path));
}
END_TEST

START_TEST(test_error_bad_xml)
{
    char path[] = "/tmp/tsgs-affinity-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("this is not XML\n", f);
    fclose(f);
    tsgs_topology *t = NULL;
    tsgs_error err;
    tsgs_status st = tsgs_topology_open_xml(path, &t, &err);
    remove(path);
    ck_assert_int_ne(st, TSGS_OK);
    ck_assert_ptr_null(t);
    ck_assert_ptr_nonnull(strstr(err.message, path));
}
END_TEST

START_TEST(test_error_bad_synthetic)
{
    tsgs_topology *t = NULL;
    tsgs_error err;
    tsgs_status st = tsgs_topology_open_synthetic("pack:two zork:3", &t,
                                                  &err);
    ck_assert_int_eq(st, TSGS_ERR_PARSE);
    ck_assert_ptr_null(t);
    ck_assert_ptr_nonnull(strstr(err.message, "pack:two zork:3"));
}
END_TEST

/* ------------------------------------------------------- thread counts */

/* NULL where an object is needed, a negative thread count, a policy that
 * does not exist: TSGS_ERR_PARAM naming what is wrong, nothing written. */
START_TEST(test_error_bad_arguments)
{
    tsgs_topology *t = (tsgs_topology *)0x1;
    tsgs_error err;
    ck_assert_int_eq(tsgs_topology_open(NULL, &err), TSGS_ERR_PARAM);
    ck_assert_int_eq(tsgs_topology_open_xml(NULL, &t, &err), TSGS_ERR_PARAM);
    ck_assert_int_eq(tsgs_topology_open_synthetic(NULL, &t, &err),
                     TSGS_ERR_PARAM);
    ck_assert_int_eq(tsgs_topology_open_synthetic("pack:1 pu:2", NULL, &err),
                     TSGS_ERR_PARAM);
    ck_assert_ptr_eq(t, (tsgs_topology *)0x1);
    t = synthetic("pack:1 core:2 pu:1");
    tsgs_placement *pl = (tsgs_placement *)0x1;
    ck_assert_int_eq(tsgs_placement_plan(NULL, 2, TSGS_BIND_COMPACT, &pl,
                                         &err),
                     TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "NULL argument"));
    ck_assert_int_eq(tsgs_placement_plan(t, -1, TSGS_BIND_COMPACT, &pl, &err),
                     TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "threads = -1"));
    ck_assert_int_eq(tsgs_placement_plan(t, 2, (tsgs_bind)42, &pl, &err),
                     TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "unknown binding policy 42"));
    ck_assert_ptr_eq(pl, (tsgs_placement *)0x1);
    tsgs_topology_free(t);
    tsgs_topology_free(NULL);
    tsgs_placement_free(NULL);
}
END_TEST

/* A machine without a core level (hwloc lists PUs only): every PU counts
 * as a core, and threads go to distinct PUs. */
START_TEST(test_no_core_level)
{
    tsgs_topology *t = synthetic("pack:2 pu:3");
    int packages, numa, cores, pus;
    tsgs_topology_counts(t, &packages, &numa, &cores, &pus);
    ck_assert_int_eq(packages, 2);
    ck_assert_int_eq(cores, 6);
    ck_assert_int_eq(pus, 6);
    tsgs_placement *pl = plan(t, 0, TSGS_BIND_SCATTER);
    ck_assert_int_eq(pl->threads, 6);
    for (int i = 0; i < 6; i++) {
        ck_assert_int_eq(pl->package[i], i % 2);
        for (int j = 0; j < i; j++)
            ck_assert_int_ne(pl->os_pu[i], pl->os_pu[j]);
    }
    tsgs_placement_free(pl);
    tsgs_topology_free(t);
}
END_TEST

START_TEST(test_threads_resolve)
{
    ck_assert_int_eq(tsgs__threads_resolve(7), 7);
    setenv("OMP_NUM_THREADS", "3", 1);
    ck_assert_int_eq(tsgs__threads_resolve(0), 3);
    ck_assert_int_eq(tsgs__threads_resolve(-1), 3);
    ck_assert_int_eq(tsgs__threads_resolve(5), 5);
    setenv("OMP_NUM_THREADS", "6,2", 1);
    ck_assert_int_eq(tsgs__threads_resolve(0), 6);
    setenv("OMP_NUM_THREADS", " \t4 ", 1); /* blanks around the count */
    ck_assert_int_eq(tsgs__threads_resolve(0), 4);

    /* unset or unusable: one per core of this machine */
    tsgs_topology *t = NULL;
    ck_assert_int_eq(tsgs_topology_open(&t, NULL), TSGS_OK);
    int cores;
    tsgs_topology_counts(t, NULL, NULL, &cores, NULL);
    tsgs_topology_free(t);
    ck_assert_int_ge(cores, 1);
    unsetenv("OMP_NUM_THREADS");
    ck_assert_int_eq(tsgs__threads_resolve(0), cores);
    static const char *const junk[] = {"", "0", "-2", "abc", "4x"};
    for (int i = 0; i < 5; i++) {
        setenv("OMP_NUM_THREADS", junk[i], 1);
        ck_assert_int_eq(tsgs__threads_resolve(0), cores);
    }
    unsetenv("OMP_NUM_THREADS");
}
END_TEST

/* The load: per-CPU ticks of /proc/stat texts, the busy CPUs between two
 * readings (only the allowed ones), the team of the free cores, and the
 * count that tsgs__threads_resolve(0) gives while a training fitted it. */
START_TEST(test_busy_cpus_between)
{
    const char *before = "cpu  10 0 10 180 0 0 0 0 0 0\n"
                         "cpu0 0 0 0 100 0 0 0 0 0 0\n"
                         "cpu1 10 0 10 80 0 0 0 0 0 0\n"
                         "cpu2 0 0 0 100 0 0 0 0 0 0\n"
                         "intr 1 2 3\n";
    /* over 100 ticks each: cpu0 80 user + 10 steal (90%), cpu1 30 (30%),
     * cpu2 45 system + 5 irq (50%, busy at the threshold) */
    const char *after = "cpu  100 0 60 300 0 5 0 10 0 0\n"
                        "cpu0 80 0 0 110 0 0 0 10 0 0\n"
                        "cpu1 30 0 20 150 0 0 0 0 0 0\n"
                        "cpu2 0 0 45 150 0 5 0 0 0 0\n";
    unsigned long long busy[3], total[3];
    ck_assert_int_eq(tsgs__cpu_ticks_parse(after, busy, total, 3), 3);
    ck_assert_uint_eq(busy[0], 90);
    ck_assert_uint_eq(total[0], 200);
    ck_assert_uint_eq(busy[2], 50);
    ck_assert_int_eq(tsgs__busy_cpus_between(before, after, 3, NULL), 2);
    const unsigned char not0[3] = {0, 1, 1};
    ck_assert_int_eq(tsgs__busy_cpus_between(before, after, 3, not0), 1);
    /* CPUs past n are left out; a CPU with no ticks in the window is not
     * busy; a malformed line or no CPU line at all reads as unknown */
    ck_assert_int_eq(tsgs__busy_cpus_between(before, after, 1, NULL), 1);
    ck_assert_int_eq(tsgs__busy_cpus_between(before, before, 3, NULL), 0);
    ck_assert_int_eq(tsgs__busy_cpus_between(before, "cpu0 1 2\n", 3, NULL),
                     -1);
    ck_assert_int_eq(tsgs__busy_cpus_between(before, "intr 5\n", 3, NULL),
                     -1);
    ck_assert_int_eq(tsgs__free_team(16, 1), 15);
    ck_assert_int_eq(tsgs__free_team(16, 0), 16);
    ck_assert_int_eq(tsgs__free_team(16, -1), 16); /* unknown: every core */
    ck_assert_int_eq(tsgs__free_team(2, 5), 1);
    ck_assert_int_eq(tsgs__free_team(0, 0), 1);
}
END_TEST

/* Another process spinning on CPU 0 until stop_spinner: its pid, and in
 * *fd the pipe end whose closing ends it. */
static pid_t start_spinner(int *fd)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    const pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) { /* spin on CPU 0 until the parent closes the pipe */
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(0, &one);
        sched_setaffinity(0, sizeof one, &one);
        close(p[1]);
        fcntl(p[0], F_SETFL, O_NONBLOCK);
        char c;
        for (volatile unsigned long k = 0;; k++)
            if (k % 1048576 == 0 && read(p[0], &c, 1) == 0)
                _exit(0);
    }
    close(p[0]);
    struct timespec settle = {0, 20000000};
    nanosleep(&settle, NULL);
    *fd = p[1];
    return child;
}

static void stop_spinner(pid_t child, int fd)
{
    close(fd);
    waitpid(child, NULL, 0);
}

/* A process spinning on CPU 0 over the window is counted busy; the
 * fitted team is what tsgs__threads_resolve(0) gives until cleared, and
 * OMP_NUM_THREADS or an explicit count still win. */
START_TEST(test_busy_cpus_live)
{
    unsetenv("OMP_NUM_THREADS");
    const int cores = tsgs__threads_resolve(0);
    const int idle = tsgs__busy_cpus();
    ck_assert_int_ge(idle, 0); /* Linux: /proc/stat is there */
    int fd;
    const pid_t child = start_spinner(&fd);
    const int busy = tsgs__busy_cpus();
    stop_spinner(child, fd);
    ck_assert_int_ge(busy, 1);

    tsgs__set_auto_team(cores > 1 ? cores - 1 : 1);
    ck_assert_int_eq(tsgs__threads_resolve(0), cores > 1 ? cores - 1 : 1);
    ck_assert_int_eq(tsgs__threads_resolve(5), 5);
    setenv("OMP_NUM_THREADS", "3", 1);
    ck_assert_int_eq(tsgs__threads_resolve(0), 3);
    unsetenv("OMP_NUM_THREADS");
    tsgs__set_auto_team(0);
    ck_assert_int_eq(tsgs__threads_resolve(0), cores);
}
END_TEST

typedef struct {
    int calls;
    char message[512];
} busy_log;

static void log_busy(const char *message, void *user)
{
    busy_log *w = user;
    if (strstr(message, "busy with other processes")) {
        w->calls++;
        snprintf(w->message, sizeof w->message, "%s", message);
    }
}

/* A team asked for (--threads) as large as the machine, with another
 * process spinning on one of its cores, is kept and the caller warned
 * (its threads wait for the one sharing the busy core); the same team
 * on an idle core, or one thread, is not warned about. A large training
 * (4,194,304 cells and more) measures; a small one does not. */
START_TEST(test_asked_team_warned_of_busy_cores)
{
    unsetenv("OMP_NUM_THREADS");
    const int cores = tsgs__machine_cores();
    if (cores < 2) {
        test_skip("affinity test_asked_team_warned_of_busy_cores",
                  "one core: no team to share it");
        return;
    }
    /* 262,144 x 16 = 4,194,304 cells, 40 labeled */
    tsgs_dataset *ds = fixture_blobs(262144, 16, 2.0, 0.5, 40, 20, 5, NULL);
    tsgs_error err;
    tsgs_params p = tsgs_params_default();
    p.solver = TSGS_SOLVER_TSG;
    p.sigma = 0.5;
    p.c = 1.0;
    p.iterations = 2;
    p.threads = cores;
    busy_log w = {0, ""};
    tsgs_train_hooks h;
    memset(&h, 0, sizeof h);
    h.warn = log_busy;
    h.user = &w;
    tsgs_model *m = NULL;
    int fd;
    const pid_t child = start_spinner(&fd);
    const tsgs_status st = tsgs_train(ds, &p, &h, &m, NULL, &err);
    stop_spinner(child, fd);
    ck_assert_int_eq(st, TSGS_OK);
    tsgs_model_free(m);
    ck_assert_int_eq(w.calls, 1);
    ck_assert_ptr_nonnull(strstr(w.message, "threads asked for wait"));
    ck_assert_ptr_nonnull(strstr(w.message, "OMP_NUM_THREADS unset"));
    /* one thread has no team to hold */
    p.threads = 1;
    w.calls = 0;
    const pid_t again = start_spinner(&fd);
    ck_assert_int_eq(tsgs_train(ds, &p, &h, &m, NULL, &err), TSGS_OK);
    stop_spinner(again, fd);
    tsgs_model_free(m);
    ck_assert_int_eq(w.calls, 0);
    tsgs_dataset_free(ds);
}
END_TEST

/* ------------------------------------------------- binding, this machine */

typedef struct {
    int calls;
    char message[512];
} warn_log;

static void record_warning(const char *message, void *user)
{
    warn_log *w = user;
    w->calls++;
    snprintf(w->message, sizeof w->message, "%s", message);
}

START_TEST(test_bind_this_machine)
{
    const int n = 2;
    tsgs_topology *t = NULL;
    ck_assert_int_eq(tsgs_topology_open(&t, NULL), TSGS_OK);
    tsgs_placement *pl = plan(t, n, TSGS_BIND_COMPACT);
    warn_log w = {0, ""};
    tsgs__keep_binding(tsgs__bind_threads(n, TSGS_BIND_COMPACT, record_warning, &w));
    ck_assert_int_le(w.calls, 1); /* at most once */
    if (w.calls) {
        test_skip("affinity test_bind_this_machine", w.message);
        ck_assert_uint_gt(strlen(w.message), 0);
        tsgs_placement_free(pl);
        tsgs_topology_free(t);
        return;
    }
#ifdef _OPENMP
    int bound_to[2] = {-2, -2};
    int weight[2] = {0, 0};
    /* hwloc topologies can be read by several threads at once */
    hwloc_topology_t h;
    hwloc_topology_init(&h);
    hwloc_topology_load(h);
#pragma omp parallel num_threads(n)
    {
        int me = omp_get_thread_num();
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        if (me < n && hwloc_get_cpubind(h, set, HWLOC_CPUBIND_THREAD) == 0) {
            bound_to[me] = hwloc_bitmap_first(set);
            weight[me] = hwloc_bitmap_weight(set);
        }
        hwloc_bitmap_free(set);
    }
    hwloc_topology_destroy(h);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(weight[i], 1);
        ck_assert_int_eq(bound_to[i], pl->os_pu[i]);
    }
#endif
    tsgs_placement_free(pl);
    tsgs_topology_free(t);
}
END_TEST

START_TEST(test_bind_none_and_auto)
{
    warn_log w = {0, ""};
    ck_assert_ptr_null(tsgs__bind_threads(2, TSGS_BIND_NONE, record_warning, &w));
    ck_assert_int_eq(w.calls, 0);
    setenv("OMP_PROC_BIND", "close", 1);
    ck_assert_ptr_null(tsgs__bind_threads(2, TSGS_BIND_AUTO, record_warning, &w));
    ck_assert_int_eq(w.calls, 0);
    setenv("OMP_PROC_BIND", "false", 1);
    setenv("OMP_PLACES", "cores", 1); /* OpenMP places the threads */
    ck_assert_ptr_null(tsgs__bind_threads(2, TSGS_BIND_AUTO, record_warning, &w));
    unsetenv("OMP_PLACES");
    /* AUTO without them: pins a team with a thread per core (or warns
     * once), never a lone thread on a machine of several cores */
    tsgs_topology *t = NULL;
    ck_assert_int_eq(tsgs_topology_open(&t, NULL), TSGS_OK);
    int cores = 0;
    tsgs_topology_counts(t, NULL, NULL, &cores, NULL);
    tsgs_topology_free(t);
    tsgs__restore_binding(tsgs__bind_threads(cores, TSGS_BIND_AUTO,
                                             record_warning, &w));
    ck_assert_int_le(w.calls, 1);
    if (cores > 1)
        ck_assert_ptr_null(tsgs__bind_threads(1, TSGS_BIND_AUTO, NULL, NULL));
    tsgs__restore_binding(tsgs__bind_threads(2, TSGS_BIND_SCATTER, NULL, NULL));
    unsetenv("OMP_PROC_BIND");
}
END_TEST

/* AUTO pins only a run with a thread on every usable core: two 1-thread
 * jobs side by side must not both land on core 0. */
START_TEST(test_auto_pins_full_runs_only)
{
    ck_assert_int_eq(tsgs__auto_pins(1, 2), 0);
    ck_assert_int_eq(tsgs__auto_pins(2, 2), 1);
    ck_assert_int_eq(tsgs__auto_pins(4, 2), 1);
    ck_assert_int_eq(tsgs__auto_pins(8, 16), 0);
    ck_assert_int_eq(tsgs__auto_pins(16, 16), 1);
    ck_assert_int_eq(tsgs__auto_pins(1, 1), 0); /* nowhere else to go */
}
END_TEST

/* The calling thread's binding (a set of PUs), or -1 when unsupported. */
static int caller_binding(hwloc_topology_t h, hwloc_bitmap_t set)
{
    return hwloc_get_cpubind(h, set, HWLOC_CPUBIND_THREAD) == 0 ? 0 : -1;
}

/* The library leaves the caller's threads as it found them: pinned during
 * the call, put back when it returns (tsgs_bind_threads, asked for
 * explicitly, keeps them pinned). */
START_TEST(test_binding_restored)
{
    hwloc_topology_t h;
    hwloc_topology_init(&h);
    hwloc_topology_load(h);
    hwloc_bitmap_t before = hwloc_bitmap_alloc(), during = hwloc_bitmap_alloc(),
                   after = hwloc_bitmap_alloc();
    if (caller_binding(h, before) != 0 || hwloc_bitmap_weight(before) < 2) {
        test_skip("affinity test_binding_restored",
                  "thread binding unsupported, or one PU");
        goto done;
    }
    warn_log w = {0, ""};
    tsgs__binding *b = tsgs__bind_threads(2, TSGS_BIND_COMPACT, record_warning, &w);
    if (w.calls) {
        test_skip("affinity test_binding_restored", w.message);
        tsgs__restore_binding(b);
        goto done;
    }
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(caller_binding(h, during), 0);
    ck_assert_int_eq(hwloc_bitmap_weight(during), 1); /* pinned to one PU */
    tsgs__restore_binding(b);
    ck_assert_int_eq(caller_binding(h, after), 0);
    ck_assert(hwloc_bitmap_isequal(before, after));

    /* a whole training run with an explicit binding */
    float x[40];
    double y[20];
    for (int i = 0; i < 20; i++) {
        x[2 * i] = (float)(i % 2 ? 1.0 + 0.01 * i : -1.0 - 0.01 * i);
        x[2 * i + 1] = (float)(0.1 * (i % 5));
        y[i] = i < 8 ? (i % 2 ? 1.0 : -1.0) : TSGS_UNLABELED;
    }
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(20, 2, x, y, &ds, NULL), TSGS_OK);
    tsgs_params p = tsgs_params_default();
    p.solver = TSGS_SOLVER_TSG;
    p.c_total = 10;
    p.sigma = 0.5;
    p.iterations = 50;
    p.threads = 2;
    p.bind = TSGS_BIND_COMPACT;
    tsgs_model *m = NULL;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, NULL), TSGS_OK);
    ck_assert_int_eq(caller_binding(h, after), 0);
    ck_assert(hwloc_bitmap_isequal(before, after));
    tsgs_model_free(m);
    tsgs_dataset_free(ds);

    /* the public call is asked for: the binding stays */
    tsgs_bind_threads(2, TSGS_BIND_COMPACT, NULL, NULL);
    ck_assert_int_eq(caller_binding(h, after), 0);
    ck_assert_int_eq(hwloc_bitmap_weight(after), 1);
done:
    hwloc_bitmap_free(before);
    hwloc_bitmap_free(during);
    hwloc_bitmap_free(after);
    hwloc_topology_destroy(h);
}
END_TEST

/* ---------------------------------------------------- memory placement */

START_TEST(test_placement_nodes)
{
    tsgs_topology *t = synthetic("pack:2 numa:2 core:4 pu:2");
    int nodes[8];
    tsgs_placement *pl = plan(t, 8, TSGS_BIND_SCATTER);
    ck_assert_int_eq(tsgs__placement_nodes(pl, nodes, 8), 4);
    int seen[4] = {0};
    for (int i = 0; i < 4; i++)
        seen[nodes[i]]++;
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(seen[i], 1);
    ck_assert_int_eq(tsgs__placement_nodes(pl, nodes, 2), 4); /* capped */
    ck_assert_int_eq(tsgs__placement_nodes(pl, NULL, 0), 4);
    tsgs_placement_free(pl);

    pl = plan(t, 4, TSGS_BIND_COMPACT);
    ck_assert_int_eq(tsgs__placement_nodes(pl, nodes, 8), 1);
    ck_assert_int_eq(nodes[0], 0);
    tsgs_placement_free(pl);
    pl = plan(t, 5, TSGS_BIND_COMPACT);
    ck_assert_int_eq(tsgs__placement_nodes(pl, nodes, 8), 2);
    ck_assert_int_eq(nodes[1], 1);
    tsgs_placement_free(pl);
    pl = plan(t, 4, TSGS_BIND_NONE);
    ck_assert_int_eq(tsgs__placement_nodes(pl, nodes, 8), 0);
    tsgs_placement_free(pl);
    tsgs_topology_free(t);
}
END_TEST

/* The nodes a shared array is interleaved over (OS indexes, in order of
 * first use), 0 when nothing is interleaved. */
static int interleave(const tsgs_topology *t, int threads, tsgs_bind policy,
                      int *nodes)
{
    for (int i = 0; i < 32; i++)
        nodes[i] = -2;
    return tsgs__interleave_nodes(t, threads, policy, nodes, 32);
}

static void assert_nodes(const int *got, int n, const int *want, int nwant,
                         const char *what)
{
    ck_assert_msg(n == nwant, "%s: %d nodes, expected %d", what, n, nwant);
    for (int i = 0; i < n; i++)
        ck_assert_msg(got[i] == want[i], "%s: node %d is %d, expected %d",
                      what, i, got[i], want[i]);
}

/* Interleaving on 2 packages x 2 NUMA nodes x 4 cores x 2 PUs (16 cores):
 * over exactly the nodes the plan's threads use, none when they all sit on
 * one node, none under NONE; AUTO pins (and interleaves) full runs only. */
START_TEST(test_interleave_nodes_synthetic)
{
    tsgs_topology *t = synthetic("pack:2 numa:2 core:4 pu:2");
    int nodes[32];
    static const int alternate[] = {0, 2, 1, 3}, in_order[] = {0, 1, 2, 3};
    /* scatter alternates packages first: nodes 0 and 2, then 1 and 3 */
    assert_nodes(nodes, interleave(t, 2, TSGS_BIND_SCATTER, nodes),
                 alternate, 2, "scatter 2");
    assert_nodes(nodes, interleave(t, 4, TSGS_BIND_SCATTER, nodes),
                 alternate, 4, "scatter 4");
    assert_nodes(nodes, interleave(t, 32, TSGS_BIND_SCATTER, nodes),
                 alternate, 4, "scatter 32");
    /* compact fills node 0's 4 cores first */
    ck_assert_int_eq(interleave(t, 4, TSGS_BIND_COMPACT, nodes), 0);
    ck_assert_int_eq(nodes[0], -2); /* nothing written */
    assert_nodes(nodes, interleave(t, 5, TSGS_BIND_COMPACT, nodes),
                 in_order, 2, "compact 5");
    assert_nodes(nodes, interleave(t, 9, TSGS_BIND_COMPACT, nodes),
                 in_order, 3, "compact 9");
    assert_nodes(nodes, interleave(t, 16, TSGS_BIND_COMPACT, nodes),
                 in_order, 4, "compact 16");
    ck_assert_int_eq(interleave(t, 16, TSGS_BIND_NONE, nodes), 0);
    ck_assert_int_eq(interleave(t, 0, TSGS_BIND_SCATTER, nodes), 0);
    /* at most max written, the count still whole */
    nodes[1] = -2;
    ck_assert_int_eq(tsgs__interleave_nodes(t, 4, TSGS_BIND_SCATTER, nodes, 1),
                     4);
    ck_assert_int_eq(nodes[0], 0);
    ck_assert_int_eq(nodes[1], -2);

    unsetenv("OMP_PROC_BIND");
    unsetenv("OMP_PLACES");
    assert_nodes(nodes, interleave(t, 16, TSGS_BIND_AUTO, nodes), in_order,
                 4, "auto 16");
    ck_assert_int_eq(interleave(t, 8, TSGS_BIND_AUTO, nodes), 0);
    setenv("OMP_PROC_BIND", "spread", 1); /* OpenMP places them: hands off */
    ck_assert_int_eq(interleave(t, 16, TSGS_BIND_AUTO, nodes), 0);
    unsetenv("OMP_PROC_BIND");
    tsgs_topology_free(t);

    /* one NUMA node: nothing to interleave, whatever the plan */
    t = synthetic("pack:2 core:4 pu:2");
    ck_assert_int_eq(interleave(t, 8, TSGS_BIND_SCATTER, nodes), 0);
    ck_assert_int_eq(interleave(t, 8, TSGS_BIND_COMPACT, nodes), 0);
    tsgs_topology_free(t);
}
END_TEST

/* A thread's local buffer goes to the one node of its PUs: every PU of
 * the synthetic machine (8 PUs per node), a set inside one node, a set
 * across two, none. */
START_TEST(test_node_near_synthetic)
{
    tsgs_topology *t = synthetic("pack:2 numa:2 core:4 pu:2");
    for (int pu = 0; pu < 32; pu++)
        ck_assert_int_eq(tsgs__node_near(t, &pu, 1), pu / 8);
    tsgs_placement *pl = plan(t, 32, TSGS_BIND_SCATTER);
    for (int i = 0; i < 32; i++) /* synthetic: OS index = logical index */
        ck_assert_int_eq(tsgs__node_near(t, &pl->os_pu[i], 1), pl->numa[i]);
    tsgs_placement_free(pl);
    static const int same[] = {16, 17, 23}, across[] = {7, 8};
    ck_assert_int_eq(tsgs__node_near(t, same, 3), 2);
    ck_assert_int_eq(tsgs__node_near(t, across, 2), -1);
    ck_assert_int_eq(tsgs__node_near(t, same, 0), -1);
    ck_assert_int_eq(tsgs__node_near(NULL, same, 1), -1);
    tsgs_topology_free(t);
}
END_TEST

/* A restricted machine (16amd64-8n2c-cpusets.xml): the usable NUMA nodes
 * with PUs have OS indexes 1, 2 and 3 (logical 0, 1, 2), so a plan that
 * confused the two would bind memory to the wrong nodes (or to node 0,
 * which this process may not use). PUs 0-1 and 12-15 have no usable node. */
START_TEST(test_xml_interleave_os_indexes)
{
    tsgs_topology *t = open_xml("16amd64-8n2c-cpusets.xml");
    int nodes[32];
    static const int os123[] = {1, 2, 3};
    assert_nodes(nodes, interleave(t, 6, TSGS_BIND_SCATTER, nodes), os123, 3,
                 "cpusets scatter 6");
    assert_nodes(nodes, interleave(t, 10, TSGS_BIND_COMPACT, nodes), os123,
                 3, "cpusets compact 10");
    static const int near[16] = {-1, -1, 1, 1, -1, 2, 3, -1,
                                 -1, -1, -1, -1, -1, -1, -1, -1};
    for (int pu = 0; pu < 16; pu++)
        ck_assert_msg(tsgs__node_near(t, &pu, 1) == near[pu],
                      "PU %d: node %d, expected %d", pu,
                      tsgs__node_near(t, &pu, 1), near[pu]);
    tsgs_topology_free(t);

    /* 24 nodes of 8 cores: scatter uses one core per node in turn */
    t = open_xml("192em64t-24n8c2t.xml");
    int all[24];
    for (int i = 0; i < 24; i++)
        all[i] = i;
    assert_nodes(nodes, interleave(t, 6, TSGS_BIND_SCATTER, nodes), all, 6,
                 "24 nodes scatter 6");
    ck_assert_int_eq(tsgs__interleave_nodes(t, 24, TSGS_BIND_SCATTER, nodes,
                                            32),
                     24);
    assert_nodes(nodes, 24, all, 24, "24 nodes scatter 24");
    assert_nodes(nodes, interleave(t, 10, TSGS_BIND_COMPACT, nodes), all, 2,
                 "24 nodes compact 10");
    tsgs_topology_free(t);
}
END_TEST

START_TEST(test_place_interleaved_keeps_data)
{
    size_t n = 1 << 20;
    double *x = malloc(n * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < n; i++)
        x[i] = (double)i;
    tsgs__place_interleaved(x + 3, (n - 3) * sizeof *x, 2,
                            TSGS_BIND_SCATTER);
    tsgs__place_interleaved(x, n * sizeof *x, 0, TSGS_BIND_NONE);
    tsgs__place_interleaved(NULL, 0, 0, TSGS_BIND_AUTO);
    for (size_t i = 0; i < n; i++)
        ck_assert(x[i] == (double)i);
    free(x);
}
END_TEST

/* On a machine with several NUMA nodes, the pages of a shared array are
 * interleaved over the plan's nodes: hwloc reads the policy and the nodes
 * back. One node (or memory binding refused here): SKIPPED. */
START_TEST(test_place_interleaved_this_machine)
{
    tsgs_topology *t = NULL;
    ck_assert_int_eq(tsgs_topology_open(&t, NULL), TSGS_OK);
    int numa = 0, cores = 0;
    tsgs_topology_counts(t, NULL, &numa, &cores, NULL);
    int nodes[64];
    int n = tsgs__interleave_nodes(t, cores, TSGS_BIND_SCATTER, nodes, 64);
    tsgs_topology_free(t);
    if (numa < 2 || n < 2) {
        test_skip("affinity test_place_interleaved_this_machine",
                  "one NUMA node");
        return;
    }
    ck_assert_int_le(n, 64);
    hwloc_topology_t h;
    hwloc_topology_init(&h);
    hwloc_topology_load(h);
    long page = sysconf(_SC_PAGESIZE);
    size_t len = 64 * (size_t)page;
    unsigned char *x = aligned_alloc((size_t)page, len);
    ck_assert_ptr_nonnull(x);
    memset(x, 1, len);
    hwloc_nodeset_t want = hwloc_bitmap_alloc(), got = hwloc_bitmap_alloc();
    for (int i = 0; i < n; i++)
        hwloc_bitmap_set(want, (unsigned)nodes[i]);
    /* can this process bind memory at all (containers may refuse)? */
    if (hwloc_set_area_membind(h, x, len, want, HWLOC_MEMBIND_BIND,
                               HWLOC_MEMBIND_BYNODESET) != 0) {
        test_skip("affinity test_place_interleaved_this_machine",
                  "memory binding refused here");
        goto done;
    }
    tsgs__place_interleaved(x + 100, len - 200, cores, TSGS_BIND_SCATTER);
    hwloc_membind_policy_t policy;
    ck_assert_int_eq(hwloc_get_area_membind(h, x, len, got, &policy,
                                            HWLOC_MEMBIND_BYNODESET),
                     0);
    ck_assert_int_eq(policy, HWLOC_MEMBIND_INTERLEAVE);
    ck_assert(hwloc_bitmap_isequal(got, want));
    for (size_t i = 0; i < len; i++)
        ck_assert_int_eq(x[i], 1);
done:
    hwloc_bitmap_free(want);
    hwloc_bitmap_free(got);
    free(x);
    hwloc_topology_destroy(h);
}
END_TEST

START_TEST(test_alloc_local)
{
    static const size_t sizes[] = {0, 1, 63, 64, 4096, 1 << 20};
    for (int k = 0; k < 6; k++) {
        unsigned char *p = tsgs__alloc_local(sizes[k]);
        ck_assert_ptr_nonnull(p);
        ck_assert_uint_eq((uintptr_t)p % 64, 0);
        memset(p, 0xab, sizes[k]);
        tsgs__free_local(p, sizes[k]);
    }
    tsgs__free_local(NULL, 10);
#ifdef _OPENMP
    /* after binding, each thread gets a buffer near its node */
    tsgs__keep_binding(tsgs__bind_threads(2, TSGS_BIND_COMPACT, NULL, NULL));
    int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
        size_t len = 100000;
        double *b = tsgs__alloc_local(len * sizeof *b);
        if (!b || (uintptr_t)b % 64)
            bad++;
        else {
            for (size_t i = 0; i < len; i++)
                b[i] = (double)i;
            bad += b[len - 1] != (double)(len - 1);
            tsgs__free_local(b, len * sizeof *b);
        }
    }
    ck_assert_int_eq(bad, 0);
#endif
}
END_TEST

/* This machine as hwloc describes it from an XML file (HWLOC_XMLFILE, and
 * HWLOC_THISSYSTEM=1 so that it counts as this system): two NUMA nodes
 * with their PUs interleaved (even PUs on node 0, odd on node 1), 24 PUs,
 * more than most machines that run the tests may use. The default thread
 * count is its core count; threads planned on PUs this process may not
 * use get exactly one warning, naming the first such thread, its PU and
 * the system's reason; memory placement over its nodes is a hint, and
 * whatever the kernel makes of it the data are kept; a buffer for a
 * thread bound inside one of its nodes is aligned, usable and freed. */
START_TEST(test_xml_as_this_machine)
{
    const char *xml = TOPO_DIR "24em64t-2n6c2t-pci.xml";
    /* the PUs this process may use, from the real machine, first */
    hwloc_topology_t real;
    ck_assert_int_eq(hwloc_topology_init(&real), 0);
    ck_assert_int_eq(hwloc_topology_load(real), 0);
    hwloc_bitmap_t mine = hwloc_bitmap_alloc();
    ck_assert_ptr_nonnull(mine);
    ck_assert_int_eq(hwloc_get_cpubind(real, mine, HWLOC_CPUBIND_PROCESS), 0);
    hwloc_topology_destroy(real);

    setenv("HWLOC_XMLFILE", xml, 1);
    setenv("HWLOC_THISSYSTEM", "1", 1);
    unsetenv("OMP_NUM_THREADS");
    unsetenv("OMP_PROC_BIND");
    unsetenv("OMP_PLACES");
    tsgs_topology *t = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_topology_open_xml(xml, &t, &err) == TSGS_OK, "%s",
                  err.message);
    int numa = 0, cores = 0, pus = 0;
    tsgs_topology_counts(t, NULL, &numa, &cores, &pus);
    ck_assert_int_eq(numa, 2);
    ck_assert_int_eq(cores, 12);
    ck_assert_int_eq(pus, 24);
    ck_assert_int_eq(tsgs__threads_resolve(0), cores);
    ck_assert_int_eq(tsgs_bind_resolve(t, 0, TSGS_BIND_AUTO),
                     TSGS_BIND_COMPACT);

    tsgs_placement *pl = plan(t, cores, TSGS_BIND_COMPACT);
    int first_bad = -1;
    for (int i = 0; i < cores && first_bad < 0; i++)
        if (!hwloc_bitmap_isset(mine, (unsigned)pl->os_pu[i]))
            first_bad = i;
    warn_log w = {0, ""};
    tsgs__binding *b = tsgs__bind_threads(0, TSGS_BIND_COMPACT,
                                          record_warning, &w);
    if (first_bad < 0) {
        ck_assert_msg(w.calls == 0, "%s", w.message);
    } else {
        char want[320];
        snprintf(want, sizeof want,
                 "thread binding failed (thread %d to PU %d: %s); threads "
                 "are left where the system puts them",
                 first_bad, pl->os_pu[first_bad], strerror(EINVAL));
        ck_assert_int_eq(w.calls, 1);
        ck_assert_str_eq(w.message, want);
    }
    tsgs__restore_binding(b);

    /* interleaving over both nodes: the data stay as they were */
    size_t n = 1 << 18;
    double *x = malloc(n * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < n; i++)
        x[i] = (double)i;
    tsgs__place_interleaved(x + 1, (n - 1) * sizeof *x, 0, TSGS_BIND_SCATTER);
    for (size_t i = 0; i < n; i++)
        ck_assert(x[i] == (double)i);
    free(x);

    /* one thread bound to the plan's first PU (node 0), where allowed */
    tsgs_placement *one = plan(t, 1, TSGS_BIND_COMPACT);
    if (hwloc_bitmap_isset(mine, (unsigned)one->os_pu[0])) {
        w.calls = 0;
        b = tsgs__bind_threads(1, TSGS_BIND_COMPACT, record_warning, &w);
        ck_assert_msg(w.calls == 0, "%s", w.message);
        ck_assert_int_eq(tsgs__node_near(t, one->os_pu, 1), 0);
        static const size_t sizes[] = {1, 4096, 1 << 20};
        for (int k = 0; k < 3; k++) {
            unsigned char *p = tsgs__alloc_local(sizes[k]);
            ck_assert_ptr_nonnull(p);
            ck_assert_uint_eq((uintptr_t)p % 64, 0);
            memset(p, 0x5a, sizes[k]);
            ck_assert_int_eq(p[sizes[k] - 1], 0x5a);
            tsgs__free_local(p, sizes[k]);
        }
        tsgs__restore_binding(b);
    } else {
        test_skip("affinity test_xml_as_this_machine",
                  "PU 0 not usable here: no local buffer");
    }
    tsgs_placement_free(one);
    tsgs_placement_free(pl);
    tsgs_topology_free(t);
    hwloc_bitmap_free(mine);
}
END_TEST

/* The environment read once (tsgs__omp_env_read, train.c's resolve) is
 * what counts later: changing OMP_NUM_THREADS or OMP_PLACES after the
 * read changes neither the team's threads nor its AUTO binding. */
START_TEST(test_environment_read_once)
{
    setenv("OMP_NUM_THREADS", "3", 1);
    setenv("OMP_PROC_BIND", "false", 1);
    setenv("OMP_PLACES", "cores", 1);
    const tsgs__omp_env env = tsgs__omp_env_read();
    ck_assert_int_eq(env.threads, 3);
    ck_assert_int_eq(env.placed, 1);
    setenv("OMP_NUM_THREADS", "5", 1);
    unsetenv("OMP_PLACES");
    ck_assert_int_eq(tsgs__threads_in(0, &env), 3);
    ck_assert_int_eq(tsgs__threads_in(2, &env), 2);
    ck_assert_int_eq(tsgs__threads_resolve(0), 5); /* read now */
    /* placed: AUTO binds nothing, whatever the environment says now */
    warn_log w = {0, ""};
    tsgs__team team = {tsgs__machine_cores(), TSGS_BIND_AUTO, env.placed,
                       record_warning, &w};
    ck_assert_ptr_null(tsgs__team_bind(&team));
    ck_assert_int_eq(w.calls, 0);
    unsetenv("OMP_NUM_THREADS");
    unsetenv("OMP_PROC_BIND");
    const tsgs__omp_env none = tsgs__omp_env_read();
    ck_assert_int_eq(none.threads, 0);
    ck_assert_int_eq(none.placed, 0);
    setenv("OMP_PROC_BIND", " TRUE", 1);
    ck_assert_int_eq(tsgs__omp_env_read().placed, 1);
    unsetenv("OMP_PROC_BIND");
}
END_TEST

Suite *affinity_suite(void)
{
    Suite *s = suite_create("affinity");
    TCase *tc = tcase_create("synthetic");
    tcase_add_test(tc, test_synthetic_counts);
    tcase_add_test(tc, test_compact_fills_package_0_first);
    tcase_add_test(tc, test_scatter_alternates_packages);
    tcase_add_test(tc, test_scatter_8_threads_4_per_package);
    tcase_add_test(tc, test_hyperthreads_after_cores_then_wrap);
    tcase_add_test(tc, test_default_threads_and_policies);
    tcase_add_test(tc, test_plan_is_pure);
    tcase_add_test(tc, test_scatter_numa_inside_packages);
    tcase_add_test(tc, test_scatter_packages_one_numa);
    tcase_add_test(tc, test_describe);
    tcase_add_test(tc, test_interleave_nodes_synthetic);
    tcase_add_test(tc, test_node_near_synthetic);
    suite_add_tcase(s, tc);

    tc = tcase_create("xml");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_xml_counts, 0, NMACHINES);
    tcase_add_loop_test(tc, test_xml_plans_distinct_cores, 0, NMACHINES);
    tcase_add_loop_test(tc, test_xml_scatter_even, 0, NMACHINES);
    tcase_add_test(tc, test_xml_2n8c_scatter_4);
    tcase_add_test(tc, test_xml_cpuset_restricted);
    tcase_add_test(tc, test_xml_interleave_os_indexes);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_test(tc, test_error_missing_xml);
    tcase_add_test(tc, test_error_bad_xml);
    tcase_add_test(tc, test_error_bad_synthetic);
    tcase_add_test(tc, test_error_bad_arguments);
    tcase_add_test(tc, test_no_core_level);
    suite_add_tcase(s, tc);

    /* These run OpenMP or change the environment: only in the forked
     * test bodies, never here. */
    tc = tcase_create("this_machine");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_threads_resolve);
    tcase_add_test(tc, test_bind_this_machine);
    tcase_add_test(tc, test_bind_none_and_auto);
    tcase_add_test(tc, test_auto_pins_full_runs_only);
    tcase_add_test(tc, test_binding_restored);
    tcase_add_test(tc, test_placement_nodes);
    tcase_add_test(tc, test_place_interleaved_keeps_data);
    tcase_add_test(tc, test_place_interleaved_this_machine);
    tcase_add_test(tc, test_alloc_local);
    tcase_add_test(tc, test_xml_as_this_machine);
    tcase_add_test(tc, test_busy_cpus_between);
    tcase_add_test(tc, test_busy_cpus_live);
    tcase_add_test(tc, test_asked_team_warned_of_busy_cores);
    tcase_add_test(tc, test_environment_read_once);
    suite_add_tcase(s, tc);
    return s;
}
