/* tsgs3vm topology [--threads N] [--bind POLICY] [--xml FILE | --synthetic S] */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_topology(int argc, char **argv)
{
    static const char *const keys[] = {"threads", "bind", "xml", "synthetic",
                                       NULL};
    cli_opts o;
    cli_opts_init(&o);
    tsgs_topology *topo = NULL;
    tsgs_placement *pl = NULL;
    char *buf = NULL;
    int rc = 1;
    if (cli_parse(&o, argc, argv, keys))
        goto done;
    if (o.help) {
        printf("Usage: tsgs3vm topology [--threads N] [--bind POLICY] "
               "[--xml FILE | --synthetic DESCRIPTION]\n\n"
               "Prints the machine (or an hwloc XML export, or a synthetic "
               "description such as\n\"pack:2 numa:1 core:8 pu:2\") and "
               "where each thread would be pinned.\n");
        rc = 0;
        goto done;
    }
    if (o.npositional) {
        fprintf(stderr, "ERROR: topology takes no arguments (\"%s\"; see "
                        "tsgs3vm topology --help)\n",
                o.positional[0]);
        goto done;
    }
    if (o.topology_xml && o.topology_synthetic) {
        fprintf(stderr, "ERROR: give --xml or --synthetic, not both\n");
        goto done;
    }
    tsgs_error err;
    tsgs_status st =
        o.topology_xml ? tsgs_topology_open_xml(o.topology_xml, &topo, &err)
        : o.topology_synthetic
            ? tsgs_topology_open_synthetic(o.topology_synthetic, &topo, &err)
            : tsgs_topology_open(&topo, &err);
    if (st) {
        cli_error(&err);
        goto done;
    }
    tsgs_bind policy = tsgs_bind_resolve(topo, o.params.threads, o.params.bind);
    if (tsgs_placement_plan(topo, o.params.threads, policy, &pl, &err)) {
        cli_error(&err);
        goto done;
    }
    size_t size = 1 << 20;
    buf = malloc(size);
    if (!buf) {
        fprintf(stderr, "ERROR: out of memory\n");
        goto done;
    }
    if (tsgs_placement_describe(topo, pl, buf, size) != TSGS_OK) {
        fprintf(stderr, "ERROR: the description of the plan does not fit "
                        "in %zu bytes\n",
                size);
        goto done;
    }
    fputs(buf, stdout);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "ERROR: writing to stdout failed\n");
        goto done;
    }
    rc = 0;
done:
    free(buf);
    tsgs_placement_free(pl);
    tsgs_topology_free(topo);
    cli_opts_free(&o);
    return rc;
}
