#!/usr/bin/env bash
# Gathers the fuzz targets' seed corpora and dictionaries from tests/data,
# configs/ and small models trained here, into OUT (nothing binary is kept
# in the tree). Usage: tests/fuzz/seeds.sh OUT TOOL
#   OUT   e.g. build-fuzz/seeds; gets one folder per target and *.dict
#   TOOL  a built tsgs3vm (trains the model seeds in about 5 s)
set -euo pipefail
out=$1 tool=$2
cd "$(dirname "$0")/../.."
rm -rf "$out"
mkdir -p "$out"/{reader_libsvm,reader_csv,reader_compressed,reader_packed,model_load,config,params_set}

# Inputs over 64 KB slow every run down (libFuzzer's max_len follows the
# largest seed) and add nothing the small ones lack.
small() { find "$@" -type f -size -64k ! -name '*.md' | sort; }

n=0
for f in $(small tests/data/reader tests/data/cli); do
    n=$((n + 1))
    cp "$f" "$out/reader_compressed/$n"
    case $f in
    *.gz | *.xz | *.bz2 | *.model | *.conf | *.txt) continue ;;
    esac
    case $f in
    *.csv) # the CSV target's first byte: options (see fuzz_reader_csv.c)
        for opt in '\000' '\001' '\005' '\010'; do
            { printf "$opt"; cat "$f"; } > "$out/reader_csv/$n-${opt#\\}"
        done ;;
    *) cp "$f" "$out/reader_libsvm/$n" ;;
    esac
    # the packed target's first byte: codec and split (fuzz_reader_packed.c)
    for opt in '\000' '\001' '\002' '\174'; do
        { printf "$opt"; head -c 16384 "$f"; } > "$out/reader_packed/$n-${opt#\\}"
    done
done
# The reader's own regression inputs: huge and tiny exponents.
printf '+1 1:1e399\n-1 2:1e-500 3:7.8e401\n' > "$out/reader_libsvm/exponents"
printf '\001label,7.8e401\n1,2\n' > "$out/reader_csv/exponents"
# reader_packed's finding (2026-11-28, minimized): the format was decided
# where a full buffer ended, so this text read as CSV plain and as LIBSVM
# through xz; detect() now looks at a fixed window (reader.c)
printf '\174\357\273\277 ctnl*i\134\134\134\134\134\1342222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222222\134\134\134\134\134\134\134\134\134\134\012\000\000\000\134\134\134\134\134\134\134\134\134\134\134\134\134\134\134\134\134\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\000\000\000\000\000\000\245\245\245\245\245\245\245\245\245\245\245\245\245\245\245\134\134 \015\012\134\134\134\134\134\134\134\134\134\134\134\134.0e+00\012-1.0 MemToal:\015\012' > "$out/reader_packed/detect-window"

# Models: binary (safe), each stochastic solver's layout, probability
# outputs, one-vs-rest over three classes, bs3vm's support vectors.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
train=tests/data/cli/train.svm
awk '{ $1 = NR % 3; print }' "$train" > "$tmp/three.svm"
i=0
while read -r data opts; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    "$tool" train --quiet --threads 1 --max-features 16 $opts "$data" \
        "$out/model_load/$i.model"
done <<EOD
$train --solver safe
$train --solver tsg --feature-map cos --kernel laplacian --scale none
$train --solver dsg --scale minmax --iterations 20
$train --solver frs --iterations 20 -b 1
$tmp/three.svm --solver tsg --iterations 20
$train --solver bs3vm --passes 0.2 --budget-labeled 10
EOD
cp tests/data/cli/notamodel.txt "$out/model_load/"

# Config and parameter seeds: every config file, and each key = value a
# model file's header holds (all keys, with values of every kind).
cp configs/*.conf tests/data/cli/*.conf "$out/config/"
header() { sed -n '2,/^features-in /p' "$out/model_load/1.model" | head -n -1; }
header | sed 's/ / = /' > "$out/config/all-keys.conf"
k=0
header | while read -r key value; do
    k=$((k + 1))
    printf '%s=%s' "$key" "$value" > "$out/params_set/$k"
done

# Dictionaries: the words each format is made of.
cut -d' ' -f1 "$out"/model_load/*.model | grep -v '^[-0-9]' | sort -u |
    sed 's/.*/"&"/' > "$out/model_load.dict"
printf '"%s"\n' end coefficients tsgs3vm-ovr nan inf 1e999 -0 >> "$out/model_load.dict"
header | cut -d' ' -f1 | sed 's/.*/"&"/' > "$out/params_set.dict"
cp "$out/params_set.dict" "$out/config.dict"
printf '"%s"\n' = '#' ' = ' >> "$out/config.dict"
printf '"%s"\n' qid: '#' ':' ' ' '\x09' '\x0d\x0a' e+ e- 1e39 nan inf > "$out/reader.dict"
