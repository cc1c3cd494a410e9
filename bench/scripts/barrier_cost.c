/* The cost of one `omp barrier` on a team of T threads that reach it
 * together (EPCC syncbench's way: a loop of barriers, each thread doing
 * the same small work between them, minus the loop alone on one thread),
 * in microseconds: the proxy's b(p) with no thread late. Usage:
 *   barrier_cost THREADS [REPS]   (prints: threads T us_per_barrier X) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

static void work(int n)
{
    double a = 0.0;
    for (int i = 0; i < n; i++)
        a += (double)i * 1e-9;
    sink = a;
}

int main(int argc, char **argv)
{
    const int threads = argc > 1 ? atoi(argv[1]) : 2;
    const long reps = argc > 2 ? atol(argv[2]) : 200000;
    double t0 = omp_get_wtime();
    for (long i = 0; i < reps; i++)
        work(50);
    const double alone = omp_get_wtime() - t0;
    double best = 1e30;
    for (int k = 0; k < 5; k++) {
        double t1 = 0.0;
#pragma omp parallel num_threads(threads)
        {
#pragma omp barrier
#pragma omp master
            t1 = omp_get_wtime();
            for (long i = 0; i < reps; i++) {
                work(50);
#pragma omp barrier
            }
#pragma omp master
            t1 = omp_get_wtime() - t1;
        }
        if (t1 < best)
            best = t1;
    }
    printf("threads %d us_per_barrier %.3f\n", threads,
           (best - alone) / (double)reps * 1e6);
    return 0;
}
