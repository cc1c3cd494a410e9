/* Allocation failures on demand (tests/fault_alloc.c): check_all's
 * malloc, calloc, realloc and aligned_alloc are wrapped. */
#ifndef TSGS_TEST_FAULT_ALLOC_H
#define TSGS_TEST_FAULT_ALLOC_H

/* The n-th allocation from now fails (once); n = 0: none does. Also
 * restarts the count of fault_alloc_count. */
void fault_alloc_arm(long n);
/* No more failures; nonzero when the armed one happened. */
int fault_alloc_disarm(void);
/* Allocations since the last fault_alloc_arm. */
long fault_alloc_count(void);

#endif
