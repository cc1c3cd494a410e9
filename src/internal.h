/*
 * Internal declarations shared across the library's files (tsgs__ names),
 * by layer: each folder of src/ has its own header, and this one includes
 * them all for the files that still take everything. Not installed.
 */
#ifndef TSGS_INTERNAL_H
#define TSGS_INTERNAL_H

#include "common/common.h"
#include "parallel/parallel.h"
#include "data/data.h"
#include "kernel/kernel.h"
#include "model/model.h"
#include "solvers/sgd/sgd.h"
#include "solvers/bs3vm/bs3vm.h"
#include "train.h"

#endif /* TSGS_INTERNAL_H */
