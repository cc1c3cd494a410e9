/*
 * tsgs3vm: semi-supervised kernel SVM trained by triply stochastic gradients.
 *
 * The one public header. Conventions:
 *  - Every call that can fail returns a tsgs_status and, when `err` is not
 *    NULL, fills it with the code, the input file and line at fault (when
 *    there is one) and a message. Output pointers are written only on success.
 *  - The library never prints, exits or aborts; *_free(NULL) does nothing.
 *  - Datasets and models are opaque. A trained model keeps no pointer into
 *    the data it was trained on, is read-only afterwards, and may be shared by
 *    threads for prediction.
 *  - Parameters are a plain value struct: tsgs_params_default() fills it,
 *    tsgs_params_check() validates it.
 */
#ifndef TSGS3VM_H
#define TSGS3VM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TSGS_VERSION_MAJOR 0
#define TSGS_VERSION_MINOR 1
#define TSGS_VERSION_PATCH 0
#define TSGS_VERSION_STRING "0.1.0"

/* The library's version at run time ("0.1.0"): with the shared library it
 * may differ from the TSGS_VERSION_STRING a program was compiled with. */
const char *tsgs_version(void);

/* ------------------------------------------------------------------ errors */

typedef enum {
    TSGS_OK = 0,
    TSGS_ERR_NOMEM,       /* an allocation failed */
    TSGS_ERR_IO,          /* a file could not be opened, read or written */
    TSGS_ERR_PARSE,       /* malformed input text (data, config, model) */
    TSGS_ERR_PARAM,       /* a parameter or option is out of range */
    TSGS_ERR_DIM,         /* dimensions do not match */
    TSGS_ERR_DATA,        /* data unusable: NaN/Inf, empty, one class... */
    TSGS_ERR_FORMAT,      /* a model file of another kind, version or truncated */
    TSGS_ERR_UNSUPPORTED, /* the operation is not available on this system */
    TSGS_ERR_STOPPED,     /* stopped by the caller before a usable result */
    TSGS_ERR_INTERNAL
} tsgs_status;

#define TSGS_ERROR_MESSAGE_MAX 512
#define TSGS_ERROR_FILE_MAX 256

typedef struct {
    tsgs_status code;
    char file[TSGS_ERROR_FILE_MAX]; /* input file at fault, "" if none */
    long line;                      /* 1-based line in that file, 0 if none */
    char message[TSGS_ERROR_MESSAGE_MAX]; /* "path:line: field: what" */
} tsgs_error;

/* A short constant name of a status, e.g. "parse error". */
const char *tsgs_status_name(tsgs_status s);

/* ----------------------------------------------------------------- dataset */

/* Rows of float features with a raw label each. A row's label is
 * TSGS_UNLABELED (a NaN) when the row is unlabeled. Rows are stored dense,
 * or sparse (their non-zeros only) when a LIBSVM file is wide and mostly
 * zeros: see tsgs_dataset_is_sparse. */
typedef struct tsgs_dataset tsgs_dataset;

typedef enum {
    TSGS_FORMAT_AUTO = 0, /* LIBSVM if the first data line has "i:v" tokens */
    TSGS_FORMAT_LIBSVM,
    TSGS_FORMAT_CSV,
    TSGS_FORMAT_NPY       /* a NumPy .npy: told by its magic bytes whatever
                             the format asked (as a read option, AUTO); what
                             tsgs_dataset_layout reports for one */
} tsgs_format;

#define TSGS_LABEL_COLUMN_AUTO (-2)

typedef struct {
    tsgs_format format;
    /* CSV: 1-based column holding the label; -1 = the last column;
     * 0 = no label column (every row unlabeled); TSGS_LABEL_COLUMN_AUTO
     * (the default) = the header's column named label, target, class or
     * y (any case; the first such), else the first column. */
    int label_column;
    /* CSV: leading columns that are not features (e.g. a row index),
     * dropped before anything else. Default 0. */
    int skip_columns;
    /* CSV header: -1 = detect (first line not numeric), 0 = none, 1 = one. */
    int header;
    /* Rows whose label equals this value are read as unlabeled (SVMlight's
     * transductive 0, UniverSVM's -3, scikit-learn's -1). Only when
     * has_unlabeled_label is set. */
    int has_unlabeled_label;
    double unlabeled_label;
    /* At least this many features (LIBSVM: pad to a model's dimension). */
    size_t min_features;
    /* Threads parsing plain text and converting .npy files: 0 =
     * OMP_NUM_THREADS, else one per core (as tsgs_params.threads). The
     * dataset read is the same for any count. */
    int threads;
    /* Polled as the text is read (every 4 MiB of it, or of what a
     * compressed file decodes to, at most every 10 ms), from one of the
     * reading threads at a time; once it has returned nonzero the read
     * ends with TSGS_ERR_STOPPED, the error naming the file and the line
     * reached, and no dataset (tsgs_reader_next: no block, and the reader
     * only closes). NULL (the default): never. Added after `threads`, so
     * that what the other fields mean stays as it was. */
    int (*should_stop)(void *user);
    void *stop_user;
} tsgs_read_options;

tsgs_read_options tsgs_read_options_default(void);

/* Reads a LIBSVM/SVMlight or CSV file, plain or compressed with gzip, xz,
 * bzip2 or zstd, or a NumPy .npy file (detected by magic bytes). Plain text
 * of 32 MiB or more is parsed by `threads` threads (split at line starts),
 * and xz files of several blocks decoded by them. A .npy holds the
 * features, n x d float32 or float64; its labels are in the companion file
 * tsgs_npy_labels_path names (n numbers, NaN = unlabeled) or, without one,
 * in a column chosen as for CSV (label_column, skip_columns). Native float32
 * features are mapped and used in place (the file must then stay as it is
 * while the dataset lives); anything else is converted. */
tsgs_status tsgs_dataset_read(const char *path, const tsgs_read_options *opt,
                              tsgs_dataset **out, tsgs_error *err);

/* The labels companion of a .npy features file: "NAME.labels.npy" for
 * "NAME.npy" (else path + ".labels.npy"). Writes at most size bytes with
 * its NUL; returns the length it needs, as snprintf. */
size_t tsgs_npy_labels_path(const char *features_path, char *out,
                            size_t size);

/* Writes ds as NumPy files np.load reads: path (ending in .npy) holds the
 * features, n x d '<f4' (C order), and tsgs_npy_labels_path(path) the
 * labels, n '<f8' with NaN for unlabeled rows. tsgs_dataset_read reads the
 * pair back to the same dataset without parsing. */
tsgs_status tsgs_dataset_save_npy(const tsgs_dataset *ds, const char *path,
                                  tsgs_error *err);

/* Copies n rows of d features (row-major) and n labels (NULL: all
 * unlabeled; TSGS_UNLABELED entries are unlabeled). */
tsgs_status tsgs_dataset_from_dense(size_t n, size_t d, const float *x,
                                    const double *y, tsgs_dataset **out,
                                    tsgs_error *err);

/* The same without copying the rows: the dataset borrows x, which must
 * stay unchanged and alive until tsgs_dataset_free (language bindings pass
 * their arrays this way). The library never writes borrowed rows: calls
 * that change rows (drop_features, append_unlabeled) copy them first.
 * Labels are copied. */
tsgs_status tsgs_dataset_wrap_dense(size_t n, size_t d, const float *x,
                                    const double *y, tsgs_dataset **out,
                                    tsgs_error *err);

/* Copies n rows of d features given as CSR (compressed sparse rows, as
 * scipy.sparse.csr_matrix): row i's non-zeros are columns
 * indices[indptr[i] .. indptr[i + 1]) (0-based, strictly increasing within
 * the row) with values[..]; indptr has n + 1 entries, from 0 to nnz, never
 * decreasing; indices and values have nnz (either may be NULL when nnz is
 * 0). Labels as tsgs_dataset_from_dense: y NULL (all unlabeled) or n,
 * NaN = unlabeled. Everything is checked first (TSGS_ERR_PARAM: indptr or
 * the order of indices; TSGS_ERR_DIM: an index not below d;
 * TSGS_ERR_DATA: a NaN or infinite value, an infinite label), the message
 * naming the row and the array entry. The rows are stored as
 * tsgs_dataset_read stores the same rows of a LIBSVM file (sparse when
 * wide and mostly zeros, see tsgs_dataset_is_sparse; else dense), so that
 * they train and predict as that file does, bit for bit; explicit zeros
 * are kept as the file's "i:0" are. */
tsgs_status tsgs_dataset_from_csr(size_t n, size_t d, size_t nnz,
                                  const size_t *indptr,
                                  const uint32_t *indices,
                                  const float *values, const double *y,
                                  tsgs_dataset **out, tsgs_error *err);

void tsgs_dataset_free(tsgs_dataset *ds);

size_t tsgs_dataset_rows(const tsgs_dataset *ds);
size_t tsgs_dataset_features(const tsgs_dataset *ds);
/* Row i's features (d floats) and raw label (TSGS_UNLABELED if none).
 * NULL for sparse rows (tsgs_dataset_is_sparse): select them instead. */
const float *tsgs_dataset_row(const tsgs_dataset *ds, size_t i);
/* Whether ds keeps its rows sparse: a LIBSVM file of at least 4096
 * features whose dense floats would take 8 times the space of its
 * non-zeros. Training and prediction then work on the non-zeros. */
int tsgs_dataset_is_sparse(const tsgs_dataset *ds);
/* Non-zero feature values of ds (the storage of sparse rows). */
size_t tsgs_dataset_nonzeros(const tsgs_dataset *ds);
/* A new dataset of rows rows[0..n) of ds (labels too), stored as ds's. */
tsgs_status tsgs_dataset_select(const tsgs_dataset *ds, const size_t *rows,
                                size_t n, tsgs_dataset **out,
                                tsgs_error *err);
double tsgs_dataset_label(const tsgs_dataset *ds, size_t i);
size_t tsgs_dataset_labeled_count(const tsgs_dataset *ds);
/* The distinct labels of ds's labeled rows, ascending, into *labels
 * (malloc'd: free it) and their number into *k (0: no labeled row). */
tsgs_status tsgs_dataset_classes(const tsgs_dataset *ds, double **labels,
                                 size_t *k, tsgs_error *err);

#define TSGS_UNLABELED (__builtin_nan(""))
int tsgs_is_unlabeled(double label);

/* How a file's rows were read, as the reader resolved its options: what a
 * model records of its training file (tsgs_model_layout, the model file's
 * data-* lines), so that test files can be read the same way. */
typedef struct {
    int known;          /* 0: rows not read from a file (built in memory),
                           or a model file written before layouts; the
                           fields below are then 0 */
    tsgs_format format; /* LIBSVM, CSV or NPY as read (never AUTO) */
    /* CSV, .npy: the label's 1-based column as resolved (an AUTO option
     * becomes the column found); -1: the last column (the option said
     * so); 0: none (a .npy's labels from its companion file too) */
    int label_column;
    int skip_columns;   /* CSV, .npy: leading columns dropped */
    int header;         /* CSV: 1 when a header line was read, else 0 */
    size_t columns;     /* CSV, .npy: columns of a row (label and skipped
                           ones included); LIBSVM: 0 */
    /* The label read as unlabeled (the read option), when has_ is set. */
    int has_unlabeled_label;
    double unlabeled_label;
} tsgs_data_layout;

/* The layout ds was read with (tsgs_dataset_read, a block of
 * tsgs_reader_next); known = 0 for rows built in memory. */
void tsgs_dataset_layout(const tsgs_dataset *ds, tsgs_data_layout *out);

/* Appends the rows of `src` to `dst` as unlabeled rows (--unlabeled FILE).
 * The narrower of the two is padded with zeros. */
tsgs_status tsgs_dataset_append_unlabeled(tsgs_dataset *dst,
                                          const tsgs_dataset *src,
                                          tsgs_error *err);

/* Drops every feature past the first d_keep (a test file with feature
 * indices a model never saw: LIBSVM ignores them). *dropped (if not NULL)
 * gets the number of nonzero values dropped. Nothing to do when the rows
 * have d_keep features or fewer. */
tsgs_status tsgs_dataset_drop_features(tsgs_dataset *ds, size_t d_keep,
                                       size_t *dropped, tsgs_error *err);

/* Keeps the labels of n_keep labeled rows, chosen per class in proportion
 * (stratified) by a seeded shuffle, and marks the rest unlabeled. */
tsgs_status tsgs_dataset_keep_labels(tsgs_dataset *ds, size_t n_keep,
                                     uint64_t seed, tsgs_error *err);

/* -------------------------------------------------------------- parameters */

typedef enum { TSGS_KERNEL_RBF = 0, TSGS_KERNEL_LAPLACIAN } tsgs_kernel;

/* How one random direction omega becomes features: PAIR gives cos(w.x) and
 * sin(w.x) (two features from one dot product, lower variance); COS gives
 * sqrt(2) cos(w.x + b). */
typedef enum { TSGS_FEATURES_PAIR = 0, TSGS_FEATURES_COS } tsgs_feature_map;

/* How the random directions of the RBF kernel are drawn: IID Gaussian, or
 * ORTHOGONAL (Yu et al. 2016): in groups of up to min(d, 128) directions,
 * Gaussian vectors made orthogonal and given chi-distributed lengths, so
 * each is still Gaussian but the group's kernel estimate varies less. AUTO:
 * orthogonal for rbf, iid for laplacian (Cauchy directions). */
typedef enum {
    TSGS_DIRECTIONS_AUTO = 0,
    TSGS_DIRECTIONS_IID,
    TSGS_DIRECTIONS_ORTHOGONAL
} tsgs_directions;

typedef enum {
    TSGS_ULOSS_SHG = 0, /* max(0, 1 - |r|) */
    TSGS_ULOSS_SSHG,    /* 1/2 max(0, 1 - |r|)^2 */
    TSGS_ULOSS_RAMP,    /* R_s(r) + R_s(-r) */
    TSGS_ULOSS_DA       /* exp(-5 r^2) */
} tsgs_uloss;

typedef enum {
    TSGS_STEP_CONSTANT = 0, /* gamma = 1 / eta */
    TSGS_STEP_THEORY,       /* gamma = theta * T^(-3/4) */
    TSGS_STEP_DECAYING      /* gamma_t = theta / (1 + t / t0) */
} tsgs_step;

/* Feature scaling, fitted on the training rows and kept in the model.
 * Sparse rows are always scaled by MAXABS (x / max |x| per feature, as
 * LIBLINEAR users do with svm-scale -l 0): it keeps zeros zero, where
 * ZSCORE and MINMAX would make every row dense. */
typedef enum {
    TSGS_SCALE_NONE = 0,
    TSGS_SCALE_ZSCORE,
    TSGS_SCALE_MINMAX,
    TSGS_SCALE_CLASS, /* z-score, then each feature stretched by its total /
                         pooled within-class sd on the labeled rows, in
                         [1, 4] (1 while a class has under 10 labels) */
    TSGS_SCALE_MAXABS,
    TSGS_SCALE_AUTO   /* the default: class for the safe solver on two
                         classes, zscore otherwise (resolved by tsgs_train;
                         sparse rows: maxabs) */
} tsgs_scaling;

typedef enum {
    TSGS_BIND_AUTO = 0, /* none if OMP_PROC_BIND or OMP_PLACES is set;
                           compact for a run with a thread on every core;
                           else none (the OS spreads runs side by side) */
    TSGS_BIND_COMPACT,  /* fill one package / NUMA node before the next */
    TSGS_BIND_SCATTER,  /* round-robin across packages / NUMA nodes */
    TSGS_BIND_NONE      /* leave placement to the OS / OpenMP runtime */
} tsgs_bind;

typedef enum {
    TSGS_SOLVER_TSG = 0, /* TSGS3VM: triply stochastic gradients */
    TSGS_SOLVER_DSG,     /* supervised doubly stochastic gradients */
    TSGS_SOLVER_FRS,     /* FRS3VM: SGD over one fixed set of features */
    TSGS_SOLVER_CDSG,    /* DSG reusing old blocks by the checking rule */
    TSGS_SOLVER_BS3VM,   /* peer: budgeted semi-supervised SVM (Le et al.,
                            UAI 2016), kernel SGD on support vectors */
    TSGS_SOLVER_SAFE     /* the default: C and sigma chosen by CV on the
                            labeled rows, the supervised SVM, an annealed
                            semi-supervised path from it, and the path's
                            solution kept only where CV says it helps */
} tsgs_solver;

/* BS3VM: what happens to the support vector of smallest |alpha| in a
 * portion (labeled / unlabeled) that outgrows its budget. */
typedef enum {
    TSGS_BUDGET_REMOVE = 0, /* BS3VM-R: drop it */
    TSGS_BUDGET_NNP,        /* BS3VM-NNP: project it onto its k nearest
                               support vectors, then drop it */
    TSGS_BUDGET_RNP         /* BS3VM-RNP: project it onto k support vectors
                               chosen at random, then drop it */
} tsgs_budget_rule;

/* Which old block a step updates once the feature budget is full. */
typedef enum {
    TSGS_REUSE_UNIFORM = 0, /* UDSG: uniformly at random */
    TSGS_REUSE_CHECK        /* CDSG: the candidate that passes the check
                               with the largest expected-line-search step */
} tsgs_reuse;

/* The most threads a run may ask for, from any source (tsgs_params.threads,
 * and the tool's check of OMP_NUM_THREADS, whose larger values overflowed
 * the OpenMP runtime's stack). */
#define TSGS_MAX_THREADS 4096

/* Per-class weights (svm-train's -wi): the labeled rows of class `label`
 * weigh C x `weight` in the hinge loss; a class not listed weighs 1. */
#define TSGS_MAX_CLASS_WEIGHTS 64
typedef struct {
    double label;  /* the class's label value, as the data writes it */
    double weight; /* > 0 and finite */
} tsgs_class_weight;

/* Room a parameter's value as text may take (tsgs_params_key): a list
 * of TSGS_MAX_CLASS_WEIGHTS class weights at full precision. */
#define TSGS_PARAM_VALUE_MAX 4096

typedef struct {
    tsgs_solver solver;
    tsgs_kernel kernel;
    double sigma;            /* kernel parameter gamma of exp(-gamma |x-x'|^2);
                                0: safe chooses it by CV around 1 / median
                                squared distance, the others use
                                1 / (2 total variance) */
    tsgs_feature_map feature_map;
    tsgs_directions directions;
    double c;                /* C: the weight of each labeled row's hinge
                                loss (LIBSVM's C, svm-train's -c; key
                                "cost", alias "c"); 0: safe and the
                                stochastic solvers choose it by CV, bs3vm
                                uses a total of 1000 (1000 / n_l per row).
                                Model files before format 2 and config
                                files' "c" hold C x n_l instead: c_total */
    double c_star;           /* weight of the MEAN unlabeled loss (a total:
                                C* / n_u per unlabeled row); < 0: the
                                solver's default (see "c-star") */
    tsgs_uloss uloss;
    double ramp_s;           /* s of the ramp loss, s < 1 */
    tsgs_step step;
    double eta;              /* constant step: gamma = 1 / eta */
    double theta;            /* theory / decaying steps */
    double t0;               /* decaying step */
    long batch_labeled;      /* capped at n_l */
    long batch_unlabeled;
    long iterations;         /* > 0: exactly this many */
    double passes;           /* iterations == 0: passes over unlabeled rows */
    long block_size;         /* random features added per iteration */
    long max_features;       /* < 0: ceil(sqrt(n)); 0: no budget */
    tsgs_reuse reuse;        /* rule for a step once the budget is full */
    long reuse_candidates;   /* blocks the checking rule examines */
    double cache_mb;         /* keep omega cached when it fits */
    int balance;             /* hold unlabeled predictions to a class ratio */
    double balance_ratio;    /* positive fraction; < 0: the labeled ratio */
    double anneal;           /* fraction of T over which C* ramps up from 0 */
    tsgs_scaling scale;
    uint64_t seed;
    int threads;             /* 0: OMP_NUM_THREADS, else one per core;
                                at most TSGS_MAX_THREADS */
    tsgs_bind bind;
    int probability;         /* fit probability outputs (Platt scaling on
                                5-fold CV decision values) */
    int warm_start;          /* stochastic solvers: start from the exact
                                supervised SVM on the first features
                                (1), from zero (0), -1: auto (1 up to
                                5,000 labeled rows whose features fit in
                                256 MB) */
    long unlabeled_sample;   /* safe: unlabeled rows its semi-supervised
                                phase sees (a seeded sample); 0: all */
    /* bs3vm only (iterations 0: T = passes * n steps; kernel and sigma as
     * above; C weighs the labeled hinge loss): */
    long budget_labeled;     /* B_l support vectors from labeled rows;
                                0: every labeled row */
    long budget_unlabeled;   /* B_u from unlabeled rows; 0: ceil(0.2 n_u) */
    tsgs_budget_rule maintenance; /* what a full budget does */
    long neighbours;         /* k vectors NNP / RNP project onto */
    double c_prime;          /* weight C' of the graph term; < 0: C */
    double edge_width;       /* edge weights exp(-|xu-xv|^2 / (2 w^2));
                                0: 1 / (2 w^2) = sigma, as the paper */
    long edges_per_step;     /* graph edges sampled per step (mean) */
    /* Added with model format 2 (at the end: the fields above keep their
     * places). */
    double c_total;          /* > 0: the labeled loss's total weight C x
                                n_l (the unit of "c" in config files and
                                model files before format 2), used as C =
                                c_total / n_l on the n_l labeled rows
                                trained on; 0: unset. Not with c > 0. */
    /* Class weights (key "class-weight", "LABEL:W,..." or "none"): every
     * solver multiplies the C of each labeled row by its class's weight,
     * a one-vs-rest class's problem included (its rows and the others'
     * each with their own class's weight). A label no row has is
     * ignored. The model records them. */
    int n_class_weights;     /* entries of class_weights in use */
    tsgs_class_weight class_weights[TSGS_MAX_CLASS_WEIGHTS];
} tsgs_params;

tsgs_params tsgs_params_default(void);
/* The defaults on the heap, for bindings that cannot take a struct by
 * value (ctypes); NULL when out of memory. Free with tsgs_params_free. */
tsgs_params *tsgs_params_new(void);
void tsgs_params_free(tsgs_params *p);
tsgs_status tsgs_params_check(const tsgs_params *p, tsgs_error *err);

/* Sets one parameter by its option / config key ("cost", "max-features",
 * "uloss", ...; "c" is "cost" and "gamma" is "sigma"). Values are parsed
 * strictly; errors name the key. A positive cost clears c-total and a
 * positive c-total clears cost: the later one given wins. */
tsgs_status tsgs_params_set(tsgs_params *p, const char *key,
                            const char *value, tsgs_error *err);

/* Sets the weight of one class (svm-train's -wLABEL WEIGHT): replaces
 * that label's weight, or adds it. TSGS_ERR_PARAM for a label that is not
 * a finite number, a weight that is not positive and finite, or a list
 * already TSGS_MAX_CLASS_WEIGHTS long. */
tsgs_status tsgs_params_set_class_weight(tsgs_params *p, double label,
                                         double weight, tsgs_error *err);

/* One line per key, for --help: "key\tdefault\tdescription". Iterate with
 * index 0, 1, ... until it returns NULL. `value` gets the current value of
 * the key in `p` formatted as text (TSGS_PARAM_VALUE_MAX bytes hold any). */
const char *tsgs_params_key(size_t index, const tsgs_params *p, char *value,
                            size_t value_size, const char **help);

/* ------------------------------------------------------------------- model */

typedef struct tsgs_model tsgs_model;

/* Progress reported during training. */
typedef struct {
    long iteration, iterations; /* done so far, planned */
    double elapsed_s;
    double rows_per_s;          /* unlabeled + labeled rows per second */
    long features;              /* features in the model now */
    double monitor_accuracy;    /* on the monitor set; < 0 if not measured */
    const char *stage;          /* safe: the stage just finished, else NULL */
    /* One-vs-rest: the class this report is about, 1 .. classes in the
     * model's label order, and its label; 0, 0 and 0 on two classes. */
    long class_index, classes;
    double class_label;
} tsgs_progress;

typedef struct {
    /* Called every `progress_every` iterations (0: never) and at the end. */
    void (*progress)(const tsgs_progress *pr, void *user);
    long progress_every;
    /* Polled every iteration, and every few milliseconds of the longer
     * stages (the scaler's fit, model selection, feature rows, the
     * supervised fits and the semi-supervised paths), at most every 10 ms
     * and from one thread at a time, possibly one of the library's
     * worker threads; once it has returned nonzero the answer stands.
     * Nonzero stops training early and cleanly: the model of the work
     * done so far is returned (*stopped_early set), the safe solver's
     * search for C and sigma ending at once (the supervised SVM at the
     * grid's centre) and its semi-supervised paths too (the supervised
     * SVM). Where that model is not made within half a second of the stop
     * (wide rows), or in one-vs-rest, training ends with
     * TSGS_ERR_STOPPED and no model. */
    int (*should_stop)(void *user);
    void *user;
    /* Labeled rows whose accuracy is measured every `monitor_every`
     * iterations (0: only at the end). NULL: none. */
    const tsgs_dataset *monitor;
    long monitor_every;
    /* Thread placement warnings ("binding not supported") go here. */
    void (*warn)(const char *message, void *user);
} tsgs_train_hooks;

/* Trains on every row of `train`: labeled rows enter the hinge loss,
 * unlabeled ones the unlabeled loss. The model records train's layout
 * (tsgs_dataset_layout), which tsgs_model_save writes. `hooks` may be NULL.
 * On an early stop the partial model is returned and *stopped_early (if not
 * NULL) is set.
 * Unless p->bind is TSGS_BIND_NONE, the calling thread's OpenMP team is
 * pinned to cores (and stays pinned), and the pages of train's rows are
 * interleaved over the NUMA nodes the threads use: pass TSGS_BIND_NONE
 * when the application manages placement itself.
 * Numbers in model and config files are read and written with the C
 * library's strtod / printf: keep LC_NUMERIC at "C" (the default). */
tsgs_status tsgs_train(const tsgs_dataset *train, const tsgs_params *p,
                       const tsgs_train_hooks *hooks, tsgs_model **out,
                       int *stopped_early, tsgs_error *err);

/* Checkpoints of the stochastic solvers (tsg, dsg, cdsg, frs: the sgd
 * family; others refuse them, TSGS_ERR_UNSUPPORTED). A checkpoint holds
 * the state a run needs to go on (the step, the pass over the unlabeled
 * rows, the coefficients, the lazy scale, the bias, the labeled rows'
 * cached sums and batch order, the balance rule's threshold), never what
 * the seed regenerates (random features, caches), with the run's
 * settings and a fingerprint of its rows: a run resumed from it ends with
 * the model, bit for bit, that the run would have made uninterrupted, on
 * any number of threads. Written through a temporary renamed over path
 * (never left half written), with a format version and a checksum: a
 * truncated, corrupt or foreign file is refused with an error naming the
 * file and the field; a checkpoint of other rows or other settings
 * (threads, bind and cache-mb aside) too. Binary classes only: one-vs-rest
 * (more than two classes) refuses them. */
typedef struct {
    const char *path;     /* written here; NULL: never */
    double every_seconds; /* at most this often (> 0), at a step's end */
    long every_steps;     /* every this many steps (> 0); both 0: only
                             when the hooks stop the run */
    const char *resume;   /* a checkpoint to resume from; NULL: start */
} tsgs_checkpoint;

/* tsgs_train writing checkpoints and/or resuming from one (ck NULL:
 * tsgs_train). A run the hooks stop writes one at its last step. */
tsgs_status tsgs_train_checkpointed(const tsgs_dataset *train,
                                    const tsgs_params *p,
                                    const tsgs_train_hooks *hooks,
                                    const tsgs_checkpoint *ck,
                                    tsgs_model **out, int *stopped_early,
                                    tsgs_error *err);

/* The steps tsgs_train will run: p->iterations, or p->passes passes over
 * the unlabeled rows of train (every solver: DSG and CDSG run as many steps
 * as TSG), or over the labeled rows when train has no unlabeled ones;
 * bs3vm: p->passes * (rows of train), one labeled row and one edge each. */
long tsgs_train_steps(const tsgs_dataset *train, const tsgs_params *p);

/* An estimate of the bytes tsgs_train needs beyond the dataset: the
 * allocations that grow with the input dimension (direction panels and
 * cache, orthogonal groups, gathered rows), which decide whether a wide
 * data set fits; for a caller to refuse a run before it starts. */
tsgs_status tsgs_train_memory(const tsgs_dataset *train, const tsgs_params *p,
                              double *bytes, tsgs_error *err);

/* An estimate of the seconds tsgs_train spends making its random
 * features' directions, the part of a run that grows with the input's
 * width (its columns, or the columns its sparse rows use), on this
 * run's threads; near all of the run for a few rows of a very wide input,
 * and leaving out the rest. For a caller to refuse a run before it
 * starts. 0 for bs3vm. */
tsgs_status tsgs_train_seconds(const tsgs_dataset *train, const tsgs_params *p,
                               double *seconds, tsgs_error *err);

/* The bytes this process can still allocate, by the tightest of its
 * limits: the address-space limit (RLIMIT_AS, `ulimit -v`) less the
 * address space mapped now; the memory limit of its cgroup and of each
 * cgroup above it (v2 memory.max, v1 memory.limit_in_bytes; "max": none)
 * less their usage, page cache they could drop not counted; the machine's
 * available memory (MemAvailable). *what (if not NULL) names the one that
 * decided: "RLIMIT_AS", "cgroup memory limit" or "available memory";
 * INFINITY and "no known limit" when none can be read. */
double tsgs_memory_available(const char **what);

void tsgs_model_free(tsgs_model *m);

/* Decision values of every row of ds (n doubles), computed with `threads`
 * threads (0: the model's training setting). */
tsgs_status tsgs_predict(const tsgs_model *m, const tsgs_dataset *ds,
                         int threads, double *decision, tsgs_error *err);

/* The label (as it was written in the training file) a decision value
 * stands for: the larger label value for positive decisions. Binary
 * models; see tsgs_model_label_of for any. */
double tsgs_model_label(const tsgs_model *m, double decision);

/* Multi-class data (more than two label values among the labeled rows)
 * trains one-vs-rest: one binary model per class, that class against the
 * others; a row goes to the class whose model gives the largest decision
 * value. tsgs_predict refuses such a model; these work for any. */

/* The model's classes: 2 for a binary model, K for K classes; labels (if
 * not NULL, room for that many) gets them, ascending. */
size_t tsgs_model_classes(const tsgs_model *m, double *labels);
/* Columns of a row of scores: 1 (the decision value) for a binary model,
 * K (each class's one-vs-rest decision value, in tsgs_model_classes'
 * order) for K classes. */
size_t tsgs_model_score_columns(const tsgs_model *m);
/* Scores of every row of ds: n x tsgs_model_score_columns(m) doubles,
 * row-major. */
tsgs_status tsgs_predict_scores(const tsgs_model *m, const tsgs_dataset *ds,
                                int threads, double *scores, tsgs_error *err);
/* The label a row of scores stands for. */
double tsgs_model_label_of(const tsgs_model *m, const double *scores);

/* Probability outputs (LIBSVM's -b 1), for models trained with
 * p->probability = 1: Platt's sigmoid of the decision value, fitted on
 * decision values from 5-fold cross-validation on the labeled rows (each
 * fold's labeled rows held out as unlabeled ones); K classes: each class's
 * one-vs-rest probability, normalised to sum to 1. */
int tsgs_model_has_probability(const tsgs_model *m);
/* n x K probabilities (K = tsgs_model_classes, in its order), row-major. */
tsgs_status tsgs_predict_proba(const tsgs_model *m, const tsgs_dataset *ds,
                               int threads, double *proba, tsgs_error *err);
size_t tsgs_model_features_in(const tsgs_model *m);  /* input dimension */
/* The layout of the file the model was trained on (known = 0: none was
 * recorded). */
void tsgs_model_layout(const tsgs_model *m, tsgs_data_layout *out);
long tsgs_model_feature_count(const tsgs_model *m);  /* random features */
const tsgs_params *tsgs_model_params(const tsgs_model *m);
/* What training chose, in words (safe: the kernel parameter and C picked,
 * and which candidate was kept and why); "" when there is nothing to say.
 * Not saved in model files. */
const char *tsgs_model_note(const tsgs_model *m);

/* Text model files: a versioned key-value header, then the coefficients at
 * full precision. Saving writes a temporary file and renames it. The header
 * names the library version that wrote it ("written-by tsgs3vm 0.1.0") and
 * the training data's layout (data-* lines, when known); files without
 * these lines load as before, with no layout. */
tsgs_status tsgs_model_save(const tsgs_model *m, const char *path,
                            tsgs_error *err);
tsgs_status tsgs_model_load(const char *path, tsgs_model **out,
                            tsgs_error *err);
/* Whether tsgs_model_save could write a model at path: not over a pipe, a
 * device or a directory, and in a folder that exists and takes new files.
 * For a caller to ask before a long training, not after it. */
tsgs_status tsgs_model_check_path(const char *path, tsgs_error *err);

/* Accuracy (fraction correct) of scores against ds's labels, counting
 * labeled rows only; *n_labeled gets their number. scores: n rows of
 * tsgs_model_score_columns(m) values (a binary model: the decision values
 * tsgs_predict gives). */
double tsgs_accuracy(const tsgs_model *m, const tsgs_dataset *ds,
                     const double *decision, size_t *n_labeled);

/* -------------------------------------------------------- cross-validation */

typedef enum {
    TSGS_CV_PARALLEL_GRID = 0, /* fits run side by side, one thread each */
    TSGS_CV_PARALLEL_FIT       /* fits one after another, all threads each */
} tsgs_cv_parallel;

/* k-fold cross-validation of `npoints` parameter sets on the labeled rows
 * of ds: the labeled rows are split into `folds` stratified folds (seeded
 * by `seed`; folds = the labeled rows is leave-one-out); each fit trains
 * on every row outside one fold (labeled and unlabeled; the fold's rows
 * are left out, not added to the unlabeled ones) and is scored by its
 * accuracy on that fold. A fold whose training rows hold one class
 * predicts that class. mean[i] and sd[i] get point i's mean accuracy and
 * its standard deviation over the folds. `done`, if not NULL, is called
 * once per point at the end (from the calling thread). The result does
 * not depend on `parallel` or `threads`. */
tsgs_status tsgs_cv(const tsgs_dataset *ds, const tsgs_params *points,
                    size_t npoints, int folds, uint64_t seed, int threads,
                    tsgs_cv_parallel parallel, double *mean, double *sd,
                    void (*done)(size_t point, double mean, double sd,
                                 void *user),
                    void *user, tsgs_error *err);

/* ------------------------------------------------------------ config files */

/* Called for each "key = value" line of a config file; a status other than
 * TSGS_OK stops reading, and the error gets the file and line prefixed. */
typedef tsgs_status (*tsgs_config_fn)(const char *key, const char *value,
                                      void *user, tsgs_error *err);

/* Reads "key = value" lines; '#' starts a comment; blank lines are skipped.
 * A line without '=' or with an empty key or value is an error naming the
 * file and line. */
tsgs_status tsgs_config_read(const char *path, tsgs_config_fn fn, void *user,
                             tsgs_error *err);

/* ---------------------------------------------------------- synthetic data */

/* A class-conditional Gaussian mixture fitted to a real sample, to write
 * large SYNTHETIC sets with the sample's dimension, class balance and class
 * overlap (scale runs where the full real files are not at hand). */
typedef struct tsgs_mixture tsgs_mixture;

#define TSGS_MIXTURE_MAX_COMPONENTS 256

/* Fits, to each of the two classes of ds's labeled rows (the class with
 * the larger label value is class 1), a mixture of k Gaussians with
 * diagonal covariances by EM from a seeded k-means++ start; the class
 * fractions are the sample's. Unlabeled rows are ignored. Errors: not
 * exactly two label values, fewer than 5 * k rows in a class, NaN/Inf. */
tsgs_status tsgs_mixture_fit(const tsgs_dataset *ds, int k, uint64_t seed,
                             tsgs_mixture **out, tsgs_error *err);
void tsgs_mixture_free(tsgs_mixture *m);
size_t tsgs_mixture_features(const tsgs_mixture *m);
/* Class c's (0 or 1) raw label value and its fraction of the sample. */
double tsgs_mixture_class_label(const tsgs_mixture *m, int c);
double tsgs_mixture_class_fraction(const tsgs_mixture *m, int c);

/* Row i of the synthetic set `seed`: writes its features (d floats) to x
 * and returns its class (0 or 1). A pure function of (m, seed, i). */
int tsgs_mixture_row(const tsgs_mixture *m, uint64_t seed, uint64_t i,
                     float *x);

typedef enum {
    TSGS_LAYOUT_SUSY = 0, /* UCI SUSY.csv: no header, label first as
                             1.000000000000000000e+00 / 0.0...e+00, 18
                             features as %.18e of floats */
    TSGS_LAYOUT_HEPMASS,  /* HEPMASS all_train.csv: header "# label,f0,...,
                             f26,mass", label first as 1 / 0, 28 features */
    TSGS_LAYOUT_LIBSVM    /* "label i:v ...", the sample's label values */
} tsgs_layout;

/* "susy", "hepmass" or "libsvm". */
tsgs_status tsgs_layout_from_name(const char *name, tsgs_layout *out,
                                  tsgs_error *err);

/* Writes rows [first, first + count) of the synthetic set `seed` to f,
 * after the layout's header line when `header` is set, formatted by
 * `threads` threads (0: the default count) in chunks; the bytes do not
 * depend on the thread count. SUSY and HEPMASS need a mixture of 18 and 28
 * features (TSGS_ERR_DIM otherwise). */
tsgs_status tsgs_synth_write(const tsgs_mixture *m, uint64_t seed,
                             uint64_t first, uint64_t count,
                             tsgs_layout layout, int header, int threads,
                             FILE *f, tsgs_error *err);
/* The whole file: header and rows [0, rows); removed again on failure. */
tsgs_status tsgs_synth_write_file(const tsgs_mixture *m, uint64_t seed,
                                  uint64_t rows, tsgs_layout layout,
                                  int threads, const char *path,
                                  tsgs_error *err);

/* -------------------------------------------------------- thread placement */

/* Pins the threads of the calling thread's OpenMP team of `threads` threads
 * (0: the default count) by `policy`, as tsgs_train does before it starts
 * (tsgs_train puts them back when it returns; this call leaves them
 * pinned); for applications that predict with many threads. Where binding is not
 * supported, warn(message, user) is called (if not NULL) and nothing else
 * happens. */
void tsgs_bind_threads(int threads, tsgs_bind policy,
                       void (*warn)(const char *message, void *user),
                       void *user);

typedef struct tsgs_topology tsgs_topology;

/* The machine this runs on, or one described by an hwloc XML file or an
 * hwloc synthetic string ("pack:2 numa:1 core:8 pu:2"). */
tsgs_status tsgs_topology_open(tsgs_topology **out, tsgs_error *err);
tsgs_status tsgs_topology_open_xml(const char *path, tsgs_topology **out,
                                   tsgs_error *err);
tsgs_status tsgs_topology_open_synthetic(const char *description,
                                         tsgs_topology **out,
                                         tsgs_error *err);
void tsgs_topology_free(tsgs_topology *t);

/* Counts of what is usable (allowed cpuset): packages, NUMA nodes, cores,
 * processing units. */
void tsgs_topology_counts(const tsgs_topology *t, int *packages,
                          int *numa_nodes, int *cores, int *pus);

/* The policy `policy` means for `threads` threads (0: one per core) on t:
 * AUTO becomes NONE when OMP_PROC_BIND (other than false) or OMP_PLACES is
 * set, COMPACT when there is a thread for every usable core (of several),
 * else NONE, so that runs side by side are spread by the OS instead of all
 * pinned to core 0. Other policies are returned as they are. */
tsgs_bind tsgs_bind_resolve(const tsgs_topology *t, int threads,
                            tsgs_bind policy);

/* Where each thread goes: thread i runs on processing unit os_pu[i] of core
 * core[i] (logical index), package package[i], NUMA node numa[i]. */
typedef struct {
    int threads;
    int *os_pu;
    int *core;
    int *package;
    int *numa;
} tsgs_placement;

/* A pure function of the topology: plans `threads` threads (0: one per
 * core) under `policy`. */
tsgs_status tsgs_placement_plan(const tsgs_topology *t, int threads,
                                tsgs_bind policy, tsgs_placement **out,
                                tsgs_error *err);
void tsgs_placement_free(tsgs_placement *pl);

/* Writes a human-readable description of the topology and plan. */
tsgs_status tsgs_placement_describe(const tsgs_topology *t,
                                    const tsgs_placement *pl, char *buf,
                                    size_t size);

/* ------------------------------------------------------ reading in blocks */

/* A data file read a block of rows at a time, for a pass that needs only
 * the rows in hand (scoring): memory stays that of one block whatever the
 * file's length. The files, options, rows, labels and errors are
 * tsgs_dataset_read's, line numbers the file's own; the text is parsed on
 * the calling thread. A .npy is mapped whole, as tsgs_dataset_read maps
 * it, and copied out a block at a time. */
typedef struct tsgs_reader tsgs_reader;

/* Opens path and reads as far as its format (the options are copied). */
tsgs_status tsgs_reader_open(const char *path, const tsgs_read_options *opt,
                             tsgs_reader **out, tsgs_error *err);

/* The next max_rows rows (fewer only at the end of the file) as a dataset
 * of their own into *block, for the caller to free; *block = NULL once
 * every row has been handed out. A block is as wide as the file's columns
 * (CSV, .npy) or, for LIBSVM, as max(opt->min_features, the widest row
 * read so far), at least 1; a LIBSVM block is stored sparse when it is
 * 4096 features wide or more, whatever its share of zeros (that share
 * differs from block to block, and the storage picks the kernel that
 * scores a row, down to its decision value's last digits: with it,
 * blocks of any size score alike). A file without
 * data rows fails at the first call, one of empty LIBSVM rows only (no
 * min_features) at its end, as tsgs_dataset_read fails; after an error
 * the reader only closes. */
tsgs_status tsgs_reader_next(tsgs_reader *r, size_t max_rows,
                             tsgs_dataset **block, tsgs_error *err);

void tsgs_reader_close(tsgs_reader *r);

/* ------------------------------------------- files written whole or not */

/* A file written through a temporary beside it, "<path>.tmp.<pid>.<n>",
 * renamed over path once complete, is never left half written (model
 * files, the tool's predictions). */

/* Creates such a temporary for path, mode 0666 less the umask (as fopen
 * gives), after tsgs_temp_remove_stale(path): *f open for writing and
 * *tmp_path its name (malloc'd: free it). The caller renames it over path
 * once written, or removes it. */
tsgs_status tsgs_temp_open(const char *path, FILE **f, char **tmp_path,
                           tsgs_error *err);

/* Removes path's temporaries that a process killed while writing left:
 * names "<path>.tmp.<pid>.<n>" where no process <pid> exists (kill(pid, 0)
 * fails with ESRCH), so a write running now keeps its file; and the
 * earlier tool's mkstemp names "<path>.tmp.XXXXXX" (six letters or
 * digits), which name no process, only where the file is a regular file
 * of this user with mkstemp's mode 0600 left unmodified for an hour (a
 * writer appends as it goes). Returns how many were removed. */
size_t tsgs_temp_remove_stale(const char *path);

#ifdef __cplusplus
}
#endif
#endif /* TSGS3VM_H */
