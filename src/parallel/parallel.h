/* parallel.h: thread counts, the load of other processes, thread
 * binding and memory placement.
 * Internal (tsgs__ names), not installed; internal.h includes every
 * layer. */
#ifndef TSGS_PARALLEL_PARALLEL_H
#define TSGS_PARALLEL_PARALLEL_H

#include "common/common.h"

/* --------------------------------------------------------- affinity.c */

/* The OpenMP environment as the library reads it: once per training, by
 * train.c, which hands it down (in a tsgs__team), as BLIS reads its
 * environment once into the thread object it passes; the library's other
 * entry points (prediction, reading, the estimates) read it where they
 * start. */
typedef struct {
    int threads; /* OMP_NUM_THREADS's count (its first level), 0: none */
    int placed;  /* OMP_PROC_BIND other than false, or OMP_PLACES, set:
                    OpenMP was told where the threads run */
} tsgs__omp_env;
/* The environment now (the only getenv of the library). */
tsgs__omp_env tsgs__omp_env_read(void);
/* Number of threads to run: `requested` if > 0, else env's
 * OMP_NUM_THREADS if it is set, else one per core of the machine (during
 * a large training with the count left to the library: one per free
 * core, tsgs__set_auto_team). */
int tsgs__threads_in(int requested, const tsgs__omp_env *env);
/* tsgs__threads_in with the environment read now (when requested <= 0). */
int tsgs__threads_resolve(int requested);
/* The cores of this machine that this process may use (hwloc; else the
 * CPUs online), at least 1. */
int tsgs__machine_cores(void);
/* Cores busy with other processes (cpu_load.c). Per-CPU busy and total
 * ticks of a /proc/stat text into busy[c], total[c] for c < n; the CPU
 * lines read, or -1 for a malformed one. */
int tsgs__cpu_ticks_parse(const char *text, unsigned long long *busy,
                          unsigned long long *total, int n);
/* CPUs (of the n first, those allowed[c] where allowed is not NULL) that
 * other work kept at least half busy between two /proc/stat texts; -1
 * where either cannot be read. */
int tsgs__busy_cpus_between(const char *before, const char *after, int n,
                            const unsigned char *allowed);
/* The same over the next 50 ms, on the CPUs this process may use. */
int tsgs__busy_cpus(void);
/* The team for `cores` cores of which `busy` are busy: the free ones, at
 * least 1. */
int tsgs__free_team(int cores, int busy);
/* What tsgs__threads_resolve(0) gives without OMP_NUM_THREADS while a
 * training that measured the load runs (0: one per core). */
void tsgs__set_auto_team(int team);
int tsgs__auto_team(void);

/* Whether AUTO pins `threads` threads on a machine with `cores` usable
 * cores: only a run that fills them all (one thread on one core of many
 * is left to the OS, so that runs side by side do not share core 0). */
int tsgs__auto_pins(int threads, int cores);

/* What tsgs__bind_threads changed, to be put back. */
typedef struct tsgs__binding tsgs__binding;

/* Binds the threads of an OpenMP team of `threads` threads according to
 * policy (AUTO: NONE when OMP_PROC_BIND or OMP_PLACES is set, else COMPACT
 * when tsgs__auto_pins, else NONE). Where binding is unsupported, calls
 * warn(message, user) and carries on. Returns each thread's binding from
 * before (NULL when nothing was bound) for tsgs__restore_binding: the
 * library leaves its caller's threads as it found them. */
tsgs__binding *tsgs__bind_threads(int threads, tsgs_bind policy,
                                  void (*warn)(const char *, void *),
                                  void *user);
/* The team a training runs on, resolved once by its caller (train.c)
 * and handed to the solver, as BLIS hands its thread object down: its
 * threads (> 0), the binding it asked for, and where a failed binding is
 * said (warn may be NULL). */
typedef struct {
    int threads;
    tsgs_bind bind;
    int omp_placed; /* the environment's placed (AUTO binds nothing then) */
    void (*warn)(const char *, void *);
    void *user;
} tsgs__team;
/* tsgs__bind_threads for the team, AUTO resolved by the team's
 * environment (not read again): the solver's steps run bound, and
 * tsgs__restore_binding puts the caller's threads back. */
tsgs__binding *tsgs__team_bind(const tsgs__team *team);
/* Puts the team's threads back where they were bound before; frees b. */
void tsgs__restore_binding(tsgs__binding *b);
/* Frees b and leaves the threads bound (tsgs_bind_threads: asked for). */
void tsgs__keep_binding(tsgs__binding *b);

/* ------------------------------------------- affinity.c: memory placement */

/* The NUMA nodes (logical indexes) that the threads of a plan run near, each
 * once, in order of first use. Writes at most max of them to nodes (which
 * may be NULL) and returns how many there are. Pure. */
int tsgs__placement_nodes(const tsgs_placement *pl, int *nodes, int max);

/* The NUMA nodes (OS indexes, in order of first use) that
 * tsgs__place_interleaved spreads a shared array over when `threads`
 * threads (> 0) run under `policy` (AUTO resolved as tsgs_bind_resolve
 * does) on topology t: the nodes the plan's threads sit near. Writes at
 * most max of them and returns how many there are; 0 when there is nothing
 * to interleave (one node used, NONE). Pure. */
int tsgs__interleave_nodes(const tsgs_topology *t, int threads,
                           tsgs_bind policy, int *os_nodes, int max);

/* The NUMA node (OS index) local to all of the n PUs os_pus (OS indexes),
 * or -1 when they span several nodes or none: the node tsgs__alloc_local
 * uses for a thread bound to them. Pure. */
int tsgs__node_near(const tsgs_topology *t, const int *os_pus, int n);

/* Interleaves the pages of a large shared array [addr, addr + len) over the
 * NUMA nodes that `threads` threads placed by `policy` use (AUTO resolved
 * as tsgs__bind_threads does); for the caller's memory, only when the
 * caller asked for a binding (COMPACT or SCATTER). Best effort and silent:
 * nothing happens on one NUMA node, under NONE, or where memory binding is
 * unsupported. The nodes: tsgs__interleave_nodes on this machine. */
void tsgs__place_interleaved(void *addr, size_t len, int threads,
                             tsgs_bind policy);

/* A 64-byte aligned buffer of len bytes on the NUMA node of the calling
 * thread's binding (plain aligned memory when the thread is not bound
 * within one node, or binding is unsupported); NULL when out of memory.
 * Free with tsgs__free_local (same len). */
void *tsgs__alloc_local(size_t len);
void tsgs__free_local(void *p, size_t len);

#endif /* TSGS_PARALLEL_PARALLEL_H */
