/* model_file.h: reading and writing model files, shared by the model
 * kinds (their read and write operations) and model_io.c (saving,
 * loading, the choice of kind). A binary model's file: its first line,
 * a header of "key value" lines (one table of keys, model_file.c, drives
 * both the writer and the reader), then its kind's section, announced by
 * the header's last line ("coefficients N", "support-vectors N").
 * Private to src/model/. */
#ifndef TSGS_MODEL_MODEL_FILE_H
#define TSGS_MODEL_MODEL_FILE_H

#include "model/model.h"

#include <stdint.h>
#include <stdio.h>

#define TSGS__MODEL_MAGIC "tsgs3vm-model" /* a binary model's first line */
#define TSGS__OVR_MAGIC "tsgs3vm-ovr"     /* a one-vs-rest file's */

/* A model file being read. Its counts are checked before anything is
 * sized by them: against the bytes left in the file (a stored value
 * takes 2 bytes at least, "0 " or "0\n"), against each other, and
 * against the memory the process may hold (random features are
 * regenerated from the seed, so a small file may declare a model that
 * needs much memory to use). */
struct tsgs__mfile {
    FILE *f;
    const char *path;
    long line;
    char *buf;
    size_t cap;
    char *text;           /* a file that cannot be measured, read whole */
    double size;          /* the file's bytes */
    double mem_cap;       /* what the process may hold, */
    const char *cap_what; /* where that limit comes from, */
    double mem_left;      /* and what the models read so far left of it */
    /* one binary model from the next line on (model_io.c's loader, for
     * one-vs-rest's classes) */
    tsgs_status (*read_binary)(tsgs__mfile *r, int last, tsgs_model **out,
                               tsgs_error *err);
};

/* Next line without its newline into *line (NULL at end of file); a NUL
 * byte inside a line is refused. */
tsgs_status tsgs__mfile_line(tsgs__mfile *r, char **line, tsgs_error *err);
/* Out of memory while reading field on the current line. */
tsgs_status tsgs__mfile_nomem(const tsgs__mfile *r, const char *field,
                              tsgs_error *err);
/* Whether the rest of the file can hold the `count` items field announces
 * on the current line, each `each` bytes at least (`why` says so). */
tsgs_status tsgs__mfile_holds(const tsgs__mfile *r, const char *field,
                              double count, double each, const char *why,
                              tsgs_error *err);
/* Takes `bytes` from the memory the process may still hold, or refuses
 * the count that field declared on `line` (`what`: the counts, in
 * words). */
tsgs_status tsgs__mfile_take(tsgs__mfile *r, const char *field, long line,
                             double bytes, const char *what,
                             tsgs_error *err);
/* n numbers of s into v, each finite and of magnitude at most max;
 * nothing else on the line. */
tsgs_status tsgs__mfile_doubles(const tsgs__mfile *r, const char *field,
                                const char *s, double *v, size_t n,
                                double max, tsgs_error *err);
/* A count in [0, max], the whole of s. */
tsgs_status tsgs__mfile_count(const tsgs__mfile *r, const char *field,
                              const char *s, long max, long *out,
                              tsgs_error *err);
/* The "end" line after n items (what: "coefficients"); last: nothing
 * but blank lines may follow it. */
tsgs_status tsgs__mfile_end(tsgs__mfile *r, long n, const char *what,
                            int last, tsgs_error *err);
/* A value at full precision (%.17g). */
void tsgs__mfile_put(FILE *f, double v);

/* What a binary model's header declares, as it is read. */
struct tsgs__mheader {
    tsgs_params p;
    long version;            /* of the first line */
    const char *section;     /* the key of the line that ended it */
    long count;              /* the count that line announced */
    long d, blocks;
    long d_line, blocks_line; /* where features-in and blocks were */
    double scale, bias, labels[2], prob_ab[2];
    tsgs_scaling scaling;
    int have_scaling;
    double *shift, *mul, *smul;
    uint32_t *scol;
    size_t nsc;
    char **seen; /* the keys read: each is given once */
    size_t nseen;
    tsgs_data_layout layout; /* the data-* lines (known: data-format) */
    unsigned layout_keys;    /* which of the other data-* lines */
};

void tsgs__mheader_init(tsgs__mheader *h);
void tsgs__mheader_free(tsgs__mheader *h);
/* The first line ("tsgs3vm-model 2", or 1) and the header after it up to
 * and including its section line; then what the header must have and how
 * its parts must agree (errors on the section line). */
tsgs_status tsgs__mheader_read(tsgs__mfile *r, tsgs__mheader *h,
                               tsgs_error *err);
/* Bytes of the scaler arrays the header holds (a model's memory). */
double tsgs__mheader_scaler_bytes(const tsgs__mheader *h);
/* A binary model's first line and header, recording the layout lay (its
 * kind then writes its section). */
void tsgs__mheader_write(FILE *f, const tsgs_model *m,
                         const tsgs_data_layout *lay);
/* The model the header describes with room for `blocks` random-feature
 * blocks (model.c): its scale, bias, labels, Platt parameters, layout,
 * and the scaler, which h no longer holds. */
tsgs_status tsgs__model_of_header(tsgs__mheader *h, long blocks,
                                  tsgs_model **out, tsgs_error *err);

#endif /* TSGS_MODEL_MODEL_FILE_H */
