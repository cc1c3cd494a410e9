/* Order statistics without a full sort: the balance's quantile of the
 * decision values (solvers) and the median distance behind sigma0
 * (model_select.c), over up to half a million values. */
#include "common/common.h"

/* k-th smallest of v[0..n) (0-based), reordering v: quickselect, O(n). */
double tsgs__select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}
