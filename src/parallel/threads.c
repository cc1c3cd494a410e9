/* The public face of thread pinning; the hwloc work is in affinity.c. */
#include "parallel/parallel.h"

void tsgs_bind_threads(int threads, tsgs_bind policy,
                       void (*warn)(const char *message, void *user),
                       void *user)
{
    /* The application asked: the binding stays after the call. */
    tsgs__keep_binding(tsgs__bind_threads(tsgs__threads_resolve(threads),
                                          policy, warn, user));
}
