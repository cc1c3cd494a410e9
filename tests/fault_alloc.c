/* Allocation failures on demand. check_all is linked with --wrap for
 * malloc, calloc, realloc and aligned_alloc, so the allocations of the
 * library and of the tests (not those inside libc, libgomp or hwloc) come
 * here. Armed with n, the n-th of them from then on fails, once. */
#include "fault_alloc.h"

#include <stdlib.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);

/* > 0: allocations left before the failing one; counted atomically, as
 * allocations happen on OpenMP threads too. */
static long countdown;
static long counted;
static int fired;

static int fail_now(void)
{
    __atomic_add_fetch(&counted, 1, __ATOMIC_RELAXED);
    if (__atomic_load_n(&countdown, __ATOMIC_RELAXED) <= 0)
        return 0;
    if (__atomic_sub_fetch(&countdown, 1, __ATOMIC_RELAXED) != 0)
        return 0;
    __atomic_store_n(&fired, 1, __ATOMIC_RELAXED);
    return 1;
}

void *__wrap_malloc(size_t size)
{
    return fail_now() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return fail_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    return fail_now() ? NULL : __real_realloc(p, size);
}

void *__wrap_aligned_alloc(size_t align, size_t size)
{
    return fail_now() ? NULL : __real_aligned_alloc(align, size);
}

void fault_alloc_arm(long n)
{
    __atomic_store_n(&fired, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&counted, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&countdown, n, __ATOMIC_RELAXED);
}

int fault_alloc_disarm(void)
{
    __atomic_store_n(&countdown, 0, __ATOMIC_RELAXED);
    return __atomic_load_n(&fired, __ATOMIC_RELAXED);
}

long fault_alloc_count(void)
{
    return __atomic_load_n(&counted, __ATOMIC_RELAXED);
}
