/* The x86-64 level hot loops run (isa.h). */
#include "kernel/isa.h"

/* -1: the widest supported path; else the one a test forced. */
static int isa_forced = -1;
/* The widest supported path, found on first use (-1: not yet). Threads
 * that race to find it store the same value. */
static int isa_widest = -1;

int tsgs__isa_supported(tsgs__isa isa)
{
#if TSGS__HAVE_ISA_PATHS
    __builtin_cpu_init();
    switch (isa) {
    case TSGS__ISA_AVX512:
        return __builtin_cpu_supports("x86-64-v4") > 0;
    case TSGS__ISA_AVX2:
        return __builtin_cpu_supports("x86-64-v3") > 0;
    default:
        return isa == TSGS__ISA_BASELINE;
    }
#else
    return isa == TSGS__ISA_BASELINE;
#endif
}

const char *tsgs__isa_name(tsgs__isa isa)
{
    static const char *const names[TSGS__ISA_COUNT] = {
        "baseline", "x86-64-v3 (AVX2)", "x86-64-v4 (AVX-512)"};
    return isa >= 0 && isa < TSGS__ISA_COUNT ? names[isa] : "unknown";
}

int tsgs__isa_force(int isa)
{
    if (isa != -1 && (isa < 0 || isa >= TSGS__ISA_COUNT ||
                      !tsgs__isa_supported((tsgs__isa)isa)))
        return -1;
    isa_forced = isa;
    return 0;
}

tsgs__isa tsgs__isa_now(void)
{
    if (isa_forced >= 0)
        return (tsgs__isa)isa_forced;
    int w = __atomic_load_n(&isa_widest, __ATOMIC_RELAXED);
    if (w < 0) {
        w = TSGS__ISA_BASELINE;
        for (int i = TSGS__ISA_COUNT - 1; i > 0; i--)
            if (tsgs__isa_supported((tsgs__isa)i)) {
                w = i;
                break;
            }
        __atomic_store_n(&isa_widest, w, __ATOMIC_RELAXED);
    }
    return (tsgs__isa)w;
}
