/* isa.c: which x86-64 level a hot loop runs. The kernel (kernel.c) and the
 * dense loops (dense.c) compile each hot function once per level
 * (TSGS__FOR_ISAS) and call the one tsgs__isa_now() names, so that one
 * binary uses the widest vector unit of its machine and a test can run
 * every path the CPU has (tsgs__isa_force). */
#ifndef TSGS_ISA_H
#define TSGS_ISA_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__)
#define TSGS__HAVE_ISA_PATHS 1
/* def(suffix, attribute) once per path, widest first. */
#define TSGS__FOR_ISAS(def)                                              \
    def(_avx512, __attribute__((target("arch=x86-64-v4"))))              \
    def(_avx2, __attribute__((target("arch=x86-64-v3"))))                \
    def(_base, )
#else
#define TSGS__HAVE_ISA_PATHS 0
#define TSGS__FOR_ISAS(def) def(_base, )
#endif

/* The code paths: one per x86-64 level (x86-64 GCC builds; elsewhere the
 * baseline alone). */
typedef enum {
    TSGS__ISA_BASELINE, /* x86-64 (SSE2), or the target's own */
    TSGS__ISA_AVX2,     /* x86-64-v3: AVX2 and FMA */
    TSGS__ISA_AVX512,   /* x86-64-v4: AVX-512 */
    TSGS__ISA_COUNT
} tsgs__isa;

/* Nonzero when this build has isa's code path and this CPU can run it. */
int tsgs__isa_supported(tsgs__isa isa);
const char *tsgs__isa_name(tsgs__isa isa);
/* The path to run now: the widest supported one, unless a test forced
 * another. */
tsgs__isa tsgs__isa_now(void);
/* Tests only: every hot loop runs isa's code path from now on (-1: the
 * widest again). Not thread-safe: call it while nothing runs. -1 (and
 * nothing changes) when isa is not supported, else 0. */
int tsgs__isa_force(int isa);

#endif
