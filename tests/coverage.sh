#!/usr/bin/env bash
# Line coverage of the library (src/, src/solvers/) and the tool (src/cli/)
# under the whole test suite: a --coverage build in its own folder
# (build-cov/, so build/ is untouched), `make test` run against it, then
# gcov's per-file summary, totals per part. No lcov needed.
#   tests/coverage.sh [OUTPUT_FILE]    (make coverage)
#   COVERAGE_REUSE=1 tests/coverage.sh OUTPUT_FILE   (the table only, see below)
# Prints a tab-separated table; OUTPUT_FILE (if given) gets it too, with the
# machine and the command on top.
set -euo pipefail
# Instrumented code (-Og, counters) is several times slower, more so on a
# shared machine: give the timed test cases room, or a case that times out
# loses its counts (the slow safe cases did at 4, i.e. 480 s). A case that
# passes takes no longer for it.
export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-12}
cd "$(dirname "$0")/.."
B=build-cov
out=${1:-}

# COVERAGE_REUSE=1: no build and no test run, only the table from the
# counters an earlier run left in build-cov/ (after running some suites
# again against it, say); the header says so, with COVERAGE_NOTE if set.
reuse=${COVERAGE_REUSE:-0}
status=0
failed=
if [ "$reuse" = 0 ]; then
    # Counters from earlier runs would add up: start from zero.
    find "$B" -name '*.gcda' -delete 2>/dev/null || true
    make -j"${JOBS:-2}" B="$B" CFLAGS="-Og -g --coverage" LDFLAGS="--coverage" \
        all "$B/check_all" "$B/so_check"
    log=$(mktemp)
    trap 'rm -f "$log"' EXIT
    make B="$B" CFLAGS="-Og -g --coverage" LDFLAGS="--coverage" test 2>&1 |
        tee "$log" || status=$?
    # Check's "file:line:F|E:case:test:..." lines: the cases that failed or
    # timed out (their counts are lost), for the header.
    failed=$(grep -oE '^[^:]+:[0-9]+:[EF]:[^:]+:[^:]+' "$log" |
        awk -F: '{ printf "%s%s/%s", n++ ? ", " : "", $4, $5 }' || true)
fi

# gcov -n: the summary only, no .gcov files. One line pair per source:
#   File 'src/x.c'
#   Lines executed:95.12% of 410
summary() {
    local objdir=$1; shift
    gcov -n -o "$objdir" "$@" 2>/dev/null | awk '
        /^File / { f = $2; gsub(/\047/, "", f); next }
        /^Lines executed:/ && f ~ /\.c$/ {
            split($2, a, ":"); pct = a[2]; sub(/%/, "", pct)
            printf "%s\t%d\t%d\n", f, $4, int(pct * $4 / 100 + 0.5)
            f = "" }'
}

table=$(
    printf 'file\tlines\tcovered\tpercent\n'
    for part in lib cli; do
        if [ $part = lib ]; then
            rows=$( (summary "$B/src" src/*.c; \
                     summary "$B/src/solvers" src/solvers/*.c) | sort)
            name="library (src/, src/solvers/)"
        else
            rows=$(summary "$B/src/cli" src/cli/*.c | sort)
            name="tool (src/cli/)"
        fi
        printf '%s\n' "$rows" | awk -F'\t' -v name="$name" '
            { printf "%s\t%d\t%d\t%.1f%%\n", $1, $2, $3,
                     $2 ? 100 * $3 / $2 : 100
              n += $2; c += $3 }
            END { printf "TOTAL %s\t%d\t%d\t%.1f%%\n", name, n, c,
                         n ? 100 * c / n : 100 }'
    done
)
printf '%s\n' "$table"
if [ -n "$out" ]; then
    . bench/scripts/machine.sh
    {
        machine_header
        printf '# command\ttests/coverage.sh %s (make coverage: gcc --coverage -Og, make test with CK_TIMEOUT_MULTIPLIER=%s, gcov -n)\n' \
            "$out" "$CK_TIMEOUT_MULTIPLIER"
        if [ "$reuse" != 0 ]; then
            printf '# test_status\tnot run here: the counters left in %s/ (COVERAGE_REUSE=1)%s\n' \
                "$B" "${COVERAGE_NOTE:+; $COVERAGE_NOTE}"
        elif [ $status = 0 ]; then
            printf '# test_status\tpass\n'
        else
            printf '# test_status\tFAIL (make test: %s); failed or timed out: %s\n' \
                "$status" "${failed:-none named}"
        fi
        # (parentheses: a bare > in printf's arguments is a redirection)
        printf '%s\n' "$table" | awk -F'\t' '
            /^TOTAL library/ { l = $4 } /^TOTAL tool/ { t = $4 }
            END { lv = l + 0; tv = t + 0
                  printf "# targets\tlibrary >= 95%% (%s: %s), tool >= 85%% (%s: %s)\n",
                         (lv >= 95 ? "met" : "not met"), l,
                         (tv >= 85 ? "met" : "not met"), t }'
        printf '%s\n' "$table"
    } > "$out"
fi
exit $status
