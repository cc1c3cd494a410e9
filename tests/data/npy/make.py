"""Writes the .npy fixtures of tests/check_npy.c with NumPy's own np.save
(run with a Python that has numpy: /usr/bin/python3 make.py). Hand-made
values, not real data."""
import numpy as np

# 3 rows x 4 features; labels 1, -1 and unlabeled (NaN).
X = np.array([[0.5, -2.25, 0.0, 1e-3],
              [3.0, 4.5, -0.0, 7.0],
              [-1.0, 0.125, 2.0, 1e3]])
y = np.array([1.0, -1.0, np.nan])

np.save("f4.npy", X.astype(np.float32))
np.save("f4.labels.npy", y)
np.save("f8.npy", X)                                  # float64: converted
np.save("f8.labels.npy", np.array([1, -1, 0], dtype=np.int64))
np.save("fortran.npy", np.asfortranarray(X.astype(np.float32)))
np.save("fortran.labels.npy", y.astype(np.float32))
# One table, no companion: the label in the first column (as in SUSY.csv).
np.save("table_be.npy", np.column_stack([[1.0, -1.0, 2.0], X]).astype(">f4"))
with open("v2.npy", "wb") as f:                       # format version 2.0
    np.lib.format.write_array(f, X.astype(np.float32), version=(2, 0))
np.save("v2.labels.npy", y)
np.save("vector.npy", y)                              # 1-D: not features
np.save("ints.npy", np.arange(12, dtype=np.int32).reshape(3, 4))
