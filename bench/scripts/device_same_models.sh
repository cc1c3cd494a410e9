#!/bin/bash
# same.sh BUNDLE DATA: the after tool's models at 1, 2, 3, 16 threads
B=$1; D=$2
for sv in safe tsg; do for th in 1 2 3 16; do
  OMP_NUM_THREADS=$th "$B/lib/ld-linux-x86-64.so.2" --library-path "$B/lib" "$B/tsgs3vm" train -q --solver $sv --labeled 200 --threads 0 "$D" /tmp/same-$sv-$th.model
  echo "$sv $th $(sha256sum < /tmp/same-$sv-$th.model | cut -c1-16)"
done; done
