/* Counts the team barriers a run's master thread (thread 0 of each team)
 * goes through, by interposing libgomp's entry points (LD_PRELOAD): the
 * explicit `omp barrier` and the implicit one after an `omp single` or a
 * static `omp for` without nowait (GOMP_barrier), a copyprivate single's
 * two (GOMP_single_copy_start on every thread, then GOMP_barrier), a
 * dynamic loop's end without nowait (GOMP_loop_end), and the end of a
 * parallel region (GOMP_parallel, counted apart). Written at exit to
 * $GOMP_COUNT_OUT (else stderr) by a process that ran a parallel region
 * (not /usr/bin/time, which runs the tool), as "barriers N singles N
 * copyprivate N loop_ends N regions N". bench/scripts/step_proxies.sh
 * builds it:
 *   cc -O2 -shared -fPIC -o gomp_count.so gomp_count.c -ldl
 * The barriers of a step: the difference between two runs with different
 * step counts, divided by the difference of steps. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

int omp_get_thread_num(void);

static long n_barrier, n_single, n_copy, n_loop_end, n_regions;

static int master(void) { return omp_get_thread_num() == 0; }

#define REAL(ret, name, args) \
    static ret(*real_##name) args; \
    if (!real_##name) \
        real_##name = (ret(*) args)dlsym(RTLD_NEXT, #name)

void GOMP_barrier(void)
{
    REAL(void, GOMP_barrier, (void));
    if (master())
        __atomic_add_fetch(&n_barrier, 1, __ATOMIC_RELAXED);
    real_GOMP_barrier();
}

bool GOMP_single_start(void)
{
    REAL(bool, GOMP_single_start, (void));
    if (master())
        __atomic_add_fetch(&n_single, 1, __ATOMIC_RELAXED);
    return real_GOMP_single_start();
}

void *GOMP_single_copy_start(void)
{
    REAL(void *, GOMP_single_copy_start, (void));
    if (master())
        __atomic_add_fetch(&n_copy, 1, __ATOMIC_RELAXED);
    return real_GOMP_single_copy_start();
}

void GOMP_loop_end(void)
{
    REAL(void, GOMP_loop_end, (void));
    if (master())
        __atomic_add_fetch(&n_loop_end, 1, __ATOMIC_RELAXED);
    real_GOMP_loop_end();
}

void GOMP_loop_ull_end(void)
{
    REAL(void, GOMP_loop_ull_end, (void));
    if (master())
        __atomic_add_fetch(&n_loop_end, 1, __ATOMIC_RELAXED);
    real_GOMP_loop_ull_end();
}

void GOMP_parallel(void (*fn)(void *), void *data, unsigned nthreads,
                   unsigned flags)
{
    REAL(void, GOMP_parallel, (void (*)(void *), void *, unsigned, unsigned));
    __atomic_add_fetch(&n_regions, 1, __ATOMIC_RELAXED);
    real_GOMP_parallel(fn, data, nthreads, flags);
}

__attribute__((destructor)) static void report(void)
{
    if (!n_regions)
        return; /* not the tool (e.g. /usr/bin/time, which runs it) */
    const char *path = getenv("GOMP_COUNT_OUT");
    FILE *f = path ? fopen(path, "w") : stderr;
    if (!f)
        return;
    fprintf(f, "barriers %ld singles %ld copyprivate %ld loop_ends %ld "
               "regions %ld\n",
            n_barrier, n_single, n_copy, n_loop_end, n_regions);
    if (f != stderr)
        fclose(f);
}
