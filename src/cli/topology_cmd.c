/* tsgs3vm topology [--threads N] [--bind POLICY] [--xml FILE | --synthetic S] */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_topology(int argc, char **argv)
{
    const char *xml = NULL, *synthetic = NULL;
    cli_opts o;
    cli_opts_init(&o);
    /* Take --xml and --synthetic out before the common parser sees them. */
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return 1;
    int nrest = 0;
    for (int i = 0; i < argc; i++) {
        if (i > 0 && (strcmp(argv[i], "--xml") == 0 ||
                      strcmp(argv[i], "--synthetic") == 0) && i + 1 < argc) {
            *(argv[i][2] == 'x' ? &xml : &synthetic) = argv[i + 1];
            i++;
        } else {
            rest[nrest++] = argv[i];
        }
    }
    static const char *const keys[] = {"threads", "bind", NULL};
    int bad = cli_parse(&o, nrest, rest, keys);
    free(rest);
    if (bad)
        return 1;
    if (o.help || o.npositional) {
        printf("Usage: tsgs3vm topology [--threads N] [--bind POLICY] "
               "[--xml FILE | --synthetic DESCRIPTION]\n\n"
               "Prints the machine (or an hwloc XML export, or a synthetic "
               "description such as\n\"pack:2 numa:1 core:8 pu:2\") and "
               "where each thread would be pinned.\n");
        return o.npositional ? 1 : 0;
    }
    tsgs_error err;
    tsgs_topology *topo = NULL;
    tsgs_status st = xml ? tsgs_topology_open_xml(xml, &topo, &err)
                     : synthetic ? tsgs_topology_open_synthetic(synthetic, &topo, &err)
                                 : tsgs_topology_open(&topo, &err);
    if (st) {
        cli_error(&err);
        return 1;
    }
    tsgs_placement *pl = NULL;
    tsgs_bind policy = o.params.bind;
    if (policy == TSGS_BIND_AUTO) {
        const char *pb = getenv("OMP_PROC_BIND");
        policy = pb && strcmp(pb, "false") != 0 ? TSGS_BIND_NONE
                                                : TSGS_BIND_COMPACT;
    }
    if (tsgs_placement_plan(topo, o.params.threads, policy, &pl, &err)) {
        cli_error(&err);
        tsgs_topology_free(topo);
        return 1;
    }
    size_t size = 1 << 20;
    char *buf = malloc(size);
    if (buf) {
        tsgs_placement_describe(topo, pl, buf, size);
        fputs(buf, stdout);
        free(buf);
    }
    tsgs_placement_free(pl);
    tsgs_topology_free(topo);
    return buf ? 0 : 1;
}
