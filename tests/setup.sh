#!/usr/bin/env bash
# Installs the Debian packages the build needs, where they are missing
# (README's two commands start with it, and so does CI). Named sets add
# more; as root it runs apt-get, otherwise it names the missing packages
# and fails.
#   tests/setup.sh             what make needs
#   tests/setup.sh test        also what make test needs (Check for C,
#                              Debian's Python 3 with NumPy, scikit-learn,
#                              pytest, matplotlib and pandas for the Python package,
#                              pip and setuptools to test its install,
#                              Open MPI for the MPI tests: docs/mpi.md)
#   tests/setup.sh hardening   also what make fuzz and make test-tsan need
#                              (clang, its libFuzzer and sanitizer runtimes,
#                              LLVM's OpenMP with the archer TSan tool)
set -euo pipefail
pkgs=(make build-essential pkg-config libhwloc-dev check zlib1g-dev
      liblzma-dev libbz2-dev libzstd-dev xz-utils gzip bzip2 zstd)
for want in "$@"; do
    case "$want" in
    test) pkgs+=(python3 python3-numpy python3-sklearn python3-pytest
                python3-matplotlib python3-pandas python3-pip
                python3-setuptools libopenmpi-dev openmpi-bin) ;;
    hardening) pkgs+=(clang-14 libclang-rt-14-dev libomp-14-dev) ;;
    *) echo "tests/setup.sh: unknown set '$want' (known: test, hardening)" >&2
       exit 2 ;;
    esac
done
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
        grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "tests/setup.sh: missing Debian packages: ${missing[*]}" >&2
    echo "  install them as root: apt-get install ${missing[*]}" >&2
    exit 1
fi
echo "tests/setup.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
