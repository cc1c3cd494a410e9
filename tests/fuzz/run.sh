#!/usr/bin/env bash
# Runs each fuzz target for SECONDS and fails if any of them finds
# something (a crash, a sanitizer report, a leak, a failed invariant, a
# timeout or running out of memory). Usage:
#   tests/fuzz/run.sh SECONDS DIR [TARGET...]
# DIR is the fuzz build (build-fuzz): binaries DIR/fuzz_<target>, seeds in
# DIR/seeds/<target>. New inputs go to DIR/corpus/<target> (kept, so a
# later run starts from what earlier ones found); findings to
# DIR/findings/<target>-crash-... (rerun one: DIR/fuzz_<target> FILE).
# With FUZZ_RUNS=N in the environment each target instead runs N inputs
# from a fixed random seed (-seed=1, a fresh corpus): the same inputs on
# any machine, however fast, so that CI's verdict does not depend on luck;
# SECONDS then only names the run in the log.
set -uo pipefail
seconds=$1 dir=$2
shift 2
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(reader_libsvm reader_csv reader_compressed reader_packed
             model_load config params_set)
fi
dict_of() {
    case $1 in
    reader_*) echo "$dir/seeds/reader.dict" ;;
    *) echo "$dir/seeds/$1.dict" ;;
    esac
}
failed=()
for t in "${targets[@]}"; do
    mkdir -p "$dir/corpus/$t" "$dir/findings"
    if [ -n "${FUZZ_RUNS:-}" ]; then
        budget=(-runs="$FUZZ_RUNS" -seed=1)
        corpus=$(mktemp -d)
        echo "== fuzz_$t for $FUZZ_RUNS inputs from seed 1" >&2
    else
        budget=(-max_total_time="$seconds")
        corpus=$dir/corpus/$t
        echo "== fuzz_$t for ${seconds}s" >&2
    fi
    start=$SECONDS
    # -rss_limit_mb / -malloc_limit_mb: a bigger allocation from a small
    # input is a finding (the library must refuse, not exhaust memory).
    "$dir/fuzz_$t" "${budget[@]}" -timeout=20 \
        -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
        -dict="$(dict_of "$t")" -artifact_prefix="$dir/findings/$t-" \
        "$corpus" "$dir/seeds/$t" > "$dir/findings/$t.log" 2>&1
    rc=$?
    [ -n "${FUZZ_RUNS:-}" ] && rm -rf "$corpus"
    grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' \
        "$dir/findings/$t.log" | tr '\n' ' ' >&2
    echo "($((SECONDS - start)) s, exit $rc)" >&2
    if [ $rc -ne 0 ]; then
        failed+=("$t")
        # the report without libFuzzer's progress lines and stack frames
        grep -v -E '^#[0-9]+|NEW_FUNC|^INFO|^ +#[0-9]+ ' \
            "$dir/findings/$t.log" | tail -n 20 >&2
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: findings in ${failed[*]} (logs and inputs in $dir/findings)" >&2
    exit 1
fi
each="${seconds}s"
[ -n "${FUZZ_RUNS:-}" ] && each="$FUZZ_RUNS inputs"
echo "fuzz: ${#targets[@]} target(s), $each each, no findings" >&2
