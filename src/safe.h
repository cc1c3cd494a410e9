/* safe.c: the default solver. Model selection on the labeled rows, the
 * supervised SVM, an annealed semi-supervised path from it, and a
 * selection that keeps the supervised solution unless the unlabeled rows
 * help in cross-validation. */
#ifndef TSGS_SAFE_H
#define TSGS_SAFE_H

#include "internal.h"

/* Progress stages reported: model selection, the paths and the safe
 * selection, done. */
#define TSGS__SAFE_STAGES 3

/* Trains on ds (checked: finite, two classes neg < pos, npos rows of pos)
 * with p; takes the fitted scaler (the model owns it on success). */
tsgs_status tsgs__safe_train(const tsgs_dataset *ds, const tsgs_params *p,
                             tsgs__scaler *scaler, double neg, double pos,
                             size_t npos, const tsgs_train_hooks *hooks,
                             tsgs_model **out, int *stopped_early,
                             tsgs_error *err);

#endif
