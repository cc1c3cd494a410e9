# tsgs3vm: build the library, the tool, the tests and the benchmarks.
#   make            build/libtsgs3vm.a, build/libtsgs3vm.so and build/tsgs3vm
#   make test       build and run the Check suites (build/check_all) and the
#                   Python tests; builds the benchmark programs too
#   make bench      build the benchmark programs (build/bench_*)
#   make coverage   line coverage of the tests (build-cov/, tests/coverage.sh)
#   make check-shape  no circle between src/'s modules, no I/O or tool
#                   function over 80 lines (tests/shape/, issue #32)
#   make shared     build/libtsgs3vm.so alone (`pip install .`: setup.py)
#   make install    PREFIX=/usr/local DESTDIR= : header, library, tool, .pc,
#                   man page (share/man/man1/tsgs3vm.1), Python package
#                   (PYTHON_SITE; PYTHON=none: not it)
#   make fuzz, fuzz-run, test-asan, test-tsan: tests/hardening.mk
CC ?= cc
CFLAGS ?= -O2 -g
LDFLAGS ?=
PREFIX ?= /usr/local
DESTDIR ?=
PKG_CONFIG ?= pkg-config

# Flags the build needs whatever CFLAGS the user gives (a call without its
# declaration is an error: C assumes it returns int, and a double
# function's result would be garbage).
DEPS_PC := hwloc zlib liblzma libzstd
REQ_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -fopenmp -Wall -Wextra \
    -Werror=implicit-function-declaration \
    -Iinclude -Isrc -MMD -MP $(shell $(PKG_CONFIG) --cflags $(DEPS_PC))
REQ_LIBS := $(shell $(PKG_CONFIG) --libs $(DEPS_PC)) -lbz2 -lm -fopenmp
CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check)
CHECK_LIBS := $(shell $(PKG_CONFIG) --libs check)

# MPI (issue #34, docs/mpi.md): MPI=auto (the default) builds the MPI
# parts where Open MPI is found (pkg-config ompi, else mpicc --showme),
# MPI=0 never, MPI=1 fails without it. Without it the library, the tool
# and the tests are what they were: no MPI symbol anywhere. With it: the
# tool (src/cli/world.c) takes part in an MPI job when a launcher started
# it, build/libtsgs3vm_mpi.a holds tsgs_train_mpi (include/tsgs3vm_mpi.h),
# and make test runs tests/mpi/run.sh.
MPI ?= auto
ifneq ($(MPI),0)
ifeq ($(shell $(PKG_CONFIG) --exists ompi && echo y),y)
MPI_CFLAGS := $(shell $(PKG_CONFIG) --cflags ompi)
MPI_LIBS := $(shell $(PKG_CONFIG) --libs ompi)
HAVE_MPI := 1
else ifneq ($(shell mpicc --showme:link 2>/dev/null),)
MPI_CFLAGS := $(shell mpicc --showme:compile)
MPI_LIBS := $(shell mpicc --showme:link)
HAVE_MPI := 1
else ifeq ($(MPI),1)
$(error MPI=1: no MPI found (pkg-config ompi, mpicc); apt-get install libopenmpi-dev openmpi-bin)
endif
endif

B := build
# The library: src/ and its folders (src/README.md), the tool's src/cli/ aside.
LIB_SRC := $(filter-out src/cli/% src/mpi/%,$(wildcard src/*.c src/*/*.c \
    src/*/*/*.c))
CLI_SRC := $(wildcard src/cli/*.c)
MPI_SRC := $(wildcard src/mpi/*.c)
TEST_SRC := $(wildcard tests/check_*.c)
BENCH_SRC := $(wildcard bench/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(B)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(B)/%.o) $(B)/tests/runner.o $(B)/tests/fixtures.o \
    $(B)/tests/fault_alloc.o
# Allocation failures on demand in the tests (tests/fault_alloc.c).
FAULT_WRAP := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=aligned_alloc
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(B)/bench_%)

LIBA := $(B)/libtsgs3vm.a
TOOL := $(B)/tsgs3vm
# With MPI: the communicator entry in a library of its own, linked by the
# tool before the library it calls into.
MPI_LIBA := $(if $(HAVE_MPI),$(B)/libtsgs3vm_mpi.a)
# The shared library: SONAME libtsgs3vm.so.0 (the major version), built from
# position-independent objects of its own, exporting the public API only
# (src/libtsgs3vm.map).
SO_MAJOR := 0
SO_VERSION := 0.1.0
LIBSO := $(B)/libtsgs3vm.so.$(SO_VERSION)
PIC_OBJ := $(LIB_SRC:%.c=$(B)/pic/%.o)

# Debian packages the build and the tests need (run as root; tests/setup.sh
# installs only the missing ones, make included, and keeps the same list).
DEB_PACKAGES := build-essential pkg-config libhwloc-dev check zlib1g-dev \
    liblzma-dev libbz2-dev libzstd-dev xz-utils gzip bzip2 zstd python3 \
    python3-numpy python3-sklearn python3-pytest python3-matplotlib \
    python3-pip python3-setuptools libopenmpi-dev openmpi-bin

.PHONY: all shared test test-python test-mpi bench install install-python clean deps \
    coverage check-shape FORCE
all: $(LIBA) $(LIBSO) $(TOOL) $(MPI_LIBA)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(REQ_CFLAGS) $(CFLAGS) $(HOT_FLAGS) -c $< -o $@

# The prediction kernel is the hot loop: let the compiler unroll it.
$(B)/src/kernel/kernel.o: HOT_FLAGS := -O3 -ffp-contract=fast -Wno-psabi
$(B)/src/kernel/dense.o: HOT_FLAGS := -O3 -ffp-contract=fast -Wno-psabi
$(B)/src/kernel/kernel_sparse.o: HOT_FLAGS := -O3 -ffp-contract=fast
# -O3 vectorises the element-wise loops of the directions' Gram-Schmidt;
# its sums keep their order (no -ffp-contract, no reassociation): same bits
$(B)/src/kernel/features.o: HOT_FLAGS := -O3
# The column coordinates' vectors (columns.c): sqrt in vectors needs no errno.
$(B)/src/kernel/columns.o: HOT_FLAGS := -O3 -ffp-contract=fast -fno-math-errno -Wno-psabi
# The loss derivatives over a batch: their selects vectorise only when
# both sides may be evaluated (nothing here reads the FP exception flags).
$(B)/src/solvers/loss.o $(B)/pic/src/solvers/loss.o: HOT_FLAGS := -fno-trapping-math

$(LIBA): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(REQ_CFLAGS) $(CFLAGS) $(HOT_FLAGS) -fPIC -c $< -o $@
$(B)/pic/src/kernel/kernel.o: HOT_FLAGS := -O3 -ffp-contract=fast -Wno-psabi
$(B)/pic/src/kernel/dense.o: HOT_FLAGS := -O3 -ffp-contract=fast -Wno-psabi
$(B)/pic/src/kernel/kernel_sparse.o: HOT_FLAGS := -O3 -ffp-contract=fast
$(B)/pic/src/kernel/features.o: HOT_FLAGS := -O3
$(B)/pic/src/kernel/columns.o: HOT_FLAGS := -O3 -ffp-contract=fast -fno-math-errno -Wno-psabi

$(LIBSO): $(PIC_OBJ) src/libtsgs3vm.map
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libtsgs3vm.so.$(SO_MAJOR) \
	    -Wl,--version-script=src/libtsgs3vm.map -o $@ $(PIC_OBJ) $(REQ_LIBS)
	ln -sf libtsgs3vm.so.$(SO_VERSION) $(B)/libtsgs3vm.so.$(SO_MAJOR)
	ln -sf libtsgs3vm.so.$(SO_MAJOR) $(B)/libtsgs3vm.so

# The shared library alone (what `pip install .` builds: setup.py).
shared: $(LIBSO)

# A program linked to the shared library alone: every public call it makes
# resolves, no internal name is exported, and the runtime version matches
# the header's.
$(B)/so_check: tests/so_check.c $(LIBSO)
	$(CC) $(REQ_CFLAGS) $(CFLAGS) -o $@ $< -L$(B) -ltsgs3vm \
	    -Wl,-rpath,'$$ORIGIN'

$(TOOL): $(CLI_OBJ) $(MPI_LIBA) $(LIBA)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(MPI_LIBA) $(LIBA) \
	    $(REQ_LIBS) $(MPI_LIBS)

# Whether this build folder's tool takes MPI: src/cli/world.o is rebuilt
# when that changes (make MPI=0 after an MPI build, or the reverse). The
# flag is written while the Makefile is read, and only when it changes, so
# that a built tree stays up to date for `make -q` (test_install asks).
MPI_FLAG_WRITTEN := $(shell mkdir -p $(B) && echo '$(HAVE_MPI)' > \
    $(B)/mpi.flag.tmp && { cmp -s $(B)/mpi.flag.tmp $(B)/mpi.flag || \
    mv $(B)/mpi.flag.tmp $(B)/mpi.flag; }; rm -f $(B)/mpi.flag.tmp)
$(B)/mpi.flag: ;
$(B)/src/cli/world.o: $(B)/mpi.flag
$(B)/src/cli/world.o: HOT_FLAGS := $(if $(HAVE_MPI),-DTSGS_WITH_MPI \
    $(MPI_CFLAGS))
$(B)/src/mpi/%.o: src/mpi/%.c
	@mkdir -p $(dir $@)
	$(CC) $(REQ_CFLAGS) $(MPI_CFLAGS) $(CFLAGS) -c $< -o $@
$(B)/libtsgs3vm_mpi.a: $(MPI_SRC:%.c=$(B)/%.o)
	@rm -f $@
	$(AR) rcs $@ $^

# The runner gets one suite per tests/check_<name>.c, which exports
# Suite *<name>_suite(void).
$(B)/tests/suites.h: $(TEST_SRC)
	@mkdir -p $(dir $@)
	@for f in $(sort $(TEST_SRC)); do \
	    n=$$(basename $$f .c); echo "SUITE($${n#check_})"; done > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

# The tests run the tool of the same build folder (build-asan/, build-cov/).
$(B)/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(REQ_CFLAGS) $(CHECK_CFLAGS) -I$(B)/tests \
	    -DTEST_TOOL='"../$(B)/tsgs3vm"' $(CFLAGS) -c $< -o $@

$(B)/tests/runner.o: tests/runner.c $(B)/tests/suites.h

$(B)/check_all: $(TEST_OBJ) $(LIBA)
	$(CC) $(CFLAGS) $(LDFLAGS) $(FAULT_WRAP) -o $@ $(TEST_OBJ) $(LIBA) \
	    $(CHECK_LIBS) $(REQ_LIBS)

# The benchmark programs are built too (not run), so one that no longer
# compiles against the library fails the tests.
test: $(B)/check_all $(TOOL) $(B)/so_check $(BENCH_BIN)
	$(MAKE) --no-print-directory check-shape
	$(B)/so_check $(LIBSO)
	cd tests && ../$(B)/check_all
	$(MAKE) --no-print-directory test-python
	$(if $(HAVE_MPI),$(MAKE) --no-print-directory test-mpi)

# The MPI tests (tests/mpi/run.sh): the same model file from mpirun -np 1,
# 2 and 4 as from the tool alone; with MPI only (make test runs them then).
test-mpi: $(TOOL)
	tests/mpi/run.sh $(TOOL)

# The Python package (python/tsgs3vm) over this build's shared library and
# tool: Debian's python3 with python3-numpy, -sklearn and -pytest
# (tests/setup.sh test installs them).
PYTHON ?= /usr/bin/python3
test-python: $(LIBSO) $(TOOL)
	TSGS3VM_LIBRARY=$(abspath $(B))/libtsgs3vm.so.$(SO_MAJOR) \
	TSGS3VM_TOOL=$(abspath $(TOOL)) \
	    $(PYTHON) -m pytest -q -p no:cacheprovider python/tests

# The shape of src/ (issue #32), part of `make test`: no circle
# between its modules and no solver calling up into train.c
# (include_circles.py), no function over 80 lines in I/O or tool code
# nor a new one elsewhere (long_functions.py: STILL_LONG lists those
# still to split), no getenv outside
# the tool and the library's one reader of the environment
# (env_reads.py). All run; any one failing fails the target.
check-shape:
	@rc=0; $(PYTHON) tests/shape/include_circles.py src include || rc=1; \
	    $(PYTHON) tests/shape/long_functions.py src || rc=1; \
	    $(PYTHON) tests/shape/env_reads.py src || rc=1; exit $$rc

$(B)/bench_%: bench/%.c $(LIBA)
	$(CC) $(REQ_CFLAGS) $(CFLAGS) -O3 -ffp-contract=fast -Wno-psabi -o $@ $< \
	    $(LIBA) $(REQ_LIBS)

bench: $(BENCH_BIN) $(TOOL)

coverage:
	tests/coverage.sh

# A static library: its users link the dependencies too (Requires, not
# Requires.private). Rebuilt every time, since it records PREFIX.
$(B)/tsgs3vm.pc: FORCE
	@mkdir -p $(B)
	@printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' \
	    'includedir=$${prefix}/include' '' 'Name: tsgs3vm' \
	    'Description: semi-supervised kernel SVM by triply stochastic gradients' \
	    'Version: 0.1.0' 'Requires: $(DEPS_PC)' \
	    'Cflags: -I$${includedir}' \
	    'Libs: -L$${libdir} -ltsgs3vm -lbz2 -lm -fopenmp' > $@

FORCE:

install: all $(B)/tsgs3vm.pc
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin \
	    $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 include/tsgs3vm.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(LIBA) $(DESTDIR)$(PREFIX)/lib/
	$(if $(HAVE_MPI),install -m 644 include/tsgs3vm_mpi.h \
	    $(DESTDIR)$(PREFIX)/include/ && install -m 644 $(MPI_LIBA) \
	    $(DESTDIR)$(PREFIX)/lib/)
	install -m 755 $(LIBSO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libtsgs3vm.so.$(SO_VERSION) \
	    $(DESTDIR)$(PREFIX)/lib/libtsgs3vm.so.$(SO_MAJOR)
	ln -sf libtsgs3vm.so.$(SO_MAJOR) $(DESTDIR)$(PREFIX)/lib/libtsgs3vm.so
	install -m 644 $(B)/tsgs3vm.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -m 755 $(TOOL) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 docs/tsgs3vm.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	@$(MAKE) --no-print-directory install-python

# The Python package (python/tsgs3vm: pure Python, ctypes) copied into
# PYTHON_SITE with a relative link to the installed libtsgs3vm.so.0 beside
# it, where _native.py looks first: no pip, no network, no build. The
# default is Debian's PREFIX/lib/python3.X/dist-packages (on python3's
# sys.path for /usr/local), site-packages elsewhere; PYTHON_SITE=DIR picks
# another, PYTHON=none (or no python3) skips it with a note.
PY_SITE_CMD = import sys, sysconfig; print("%s/lib/python%d.%d/%s" % ( \
    "$(PREFIX)", sys.version_info[0], sys.version_info[1], "dist-packages" \
    if "posix_local" in sysconfig.get_scheme_names() else "site-packages"))
PYTHON_SITE ?= $(shell $(PYTHON) -c '$(PY_SITE_CMD)' 2>/dev/null)
install-python:
	@if [ -z "$(PYTHON_SITE)" ]; then \
	    echo "note: no Python ($(PYTHON)): the Python package is not" \
	         "installed; later: pip install ./python"; exit 0; fi; \
	d="$(DESTDIR)$(PYTHON_SITE)/tsgs3vm"; \
	lib=$$(realpath -m --relative-to="$(PYTHON_SITE)/tsgs3vm" \
	       "$(PREFIX)/lib"); \
	set -e; echo "install python/tsgs3vm -> $$d"; \
	install -d "$$d"; \
	install -m 644 python/tsgs3vm/*.py "$$d/"; \
	ln -sfn "$$lib/libtsgs3vm.so.$(SO_MAJOR)" \
	    "$$d/libtsgs3vm.so.$(SO_MAJOR)"; \
	$(PYTHON) -c 'import sys; sys.exit("$(PYTHON_SITE)" not in sys.path)' \
	    || echo "note: $(PYTHON_SITE) is not on $(PYTHON)'s path:" \
	            "PYTHONPATH=$(PYTHON_SITE) to import tsgs3vm"

deps:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends $(DEB_PACKAGES)

clean:
	rm -rf $(B)

include tests/hardening.mk

-include $(shell find $(B) -name '*.d' 2>/dev/null)
