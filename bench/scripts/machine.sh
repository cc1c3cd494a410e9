# Sourced by the benchmark scripts: the machine's description as comment
# lines, so every results file says where it was measured.
machine_header() {
    local cpu cores numa commit cc
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
    cores=$(nproc)
    numa=$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)
    commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
    cc=$(${CC:-cc} --version | head -1)
    printf '# machine\tcpu=%s\tcores=%s\tnuma_nodes=%s\n' "$cpu" "$cores" "$numa"
    printf '# build\tcompiler=%s\tcommit=%s\tdate=%s\n' "$cc" "$commit" \
        "$(date -u +%Y-%m-%dT%H:%MZ)"
    # a shared machine: the load when the run started says how quiet it was
    printf '# load_at_start\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
}
