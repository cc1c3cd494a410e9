# Sourced by the benchmark scripts: synthetic SUSY- and HEPMASS-shaped data
# written by `tsgs3vm synth` (class-conditional Gaussian mixtures fitted to
# the real SUSY sample and, for the 28-feature HEPMASS shape, to the real
# HIGGS sample: HEPMASS itself is not available offline). Every result that
# uses these files says "synthetic".
: "${TSGS_SHARED:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/shared}"
: "${BENCH_DATA:=/tmp/tsgs-bench-data}"

# synth_file KIND ROWS -> prints the path, generating it once
synth_file() {
    local kind=$1 rows=$2 out
    mkdir -p "$BENCH_DATA"
    out="$BENCH_DATA/$kind-$rows.csv"
    if [ ! -s "$out" ]; then
        if [ "$kind" = susy ]; then
            ./build/tsgs3vm synth --quiet --rows "$rows" --layout susy \
                --skip-columns 1 --label-column 2 \
                "$TSGS_SHARED/data/susy/SUSY_test.csv.xz" "$out.tmp" >&2
        else
            ./build/tsgs3vm synth --quiet --rows "$rows" --layout hepmass \
                --label-column last --header yes \
                "$TSGS_SHARED/data/higgs/higgs.csv.xz" "$out.tmp" >&2
        fi
        mv "$out.tmp" "$out"
    fi
    printf '%s\n' "$out"
}

# read options for a synth file of KIND
synth_read_opts() {
    if [ "$1" = susy ]; then echo "--header no"; else echo "--header yes"; fi
}
