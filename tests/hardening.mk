# Fuzzing and sanitizer builds (docs/hardening.md). Included by the
# Makefile; each build has its own folder, apart from build/.
#   make fuzz                       build-fuzz/fuzz_* (clang, libFuzzer,
#                                   ASan + UBSan) and their seed corpora
#   make fuzz-run FUZZ_SECONDS=N    run each target N s; fails on a finding
#   make fuzz-run FUZZ_RUNS=N       N inputs each from a fixed seed (CI)
#   make test-asan                  every suite under ASan + UBSan (gcc)
#   make test-tsan                  the threaded suites under TSan (clang,
#                                   libomp with its archer tool)
# Debian 12's clang (tests/setup.sh hardening installs it).
FUZZ_CC ?= clang-14
FUZZ_SECONDS ?= 30
FB := build-fuzz
FUZZ_TARGETS := reader_libsvm reader_csv reader_compressed reader_packed \
    model_load config params_set
# No OpenMP: the parsers are serial, and a fuzzer wants one thread (so
# the pragmas and the thread counts they would use go unused).
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := $(filter-out -fopenmp,$(REQ_CFLAGS)) -Wno-unknown-pragmas \
    -Wno-unused-variable -Wno-unused-parameter -Wno-psabi \
    -g -O1 -fno-omit-frame-pointer $(FUZZ_SAN)
# Small read buffers: short inputs then cross buffer refills and growth
# (and each run allocates kilobytes, not 4 MiB, so it is fast).
FUZZ_CFLAGS += -DREAD_CHUNK=256 -DRAW_BUF=64
FUZZ_LIBS := $(filter-out -fopenmp,$(REQ_LIBS))
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FB)/%.o)
FUZZ_HELPER_OBJ := $(addprefix $(FB)/tests/fuzz/, \
    fuzz_file.o fuzz_check.o fuzz_pack.o)
FUZZ_BIN := $(FUZZ_TARGETS:%=$(FB)/fuzz_%)
# Objects kept between builds (make would delete them as intermediates).
.SECONDARY: $(FUZZ_LIB_OBJ) $(FUZZ_HELPER_OBJ) \
    $(FUZZ_TARGETS:%=$(FB)/tests/fuzz/fuzz_%.o)

.PHONY: fuzz fuzz-run fuzz-seeds test-asan test-tsan
fuzz: $(FUZZ_BIN) $(FB)/seeds/.done

$(FB)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FB)/fuzz_%: $(FB)/tests/fuzz/fuzz_%.o $(FUZZ_HELPER_OBJ) $(FUZZ_LIB_OBJ)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(FUZZ_LIBS)

# Seeds come from tests/data and models the tool trains (tests/fuzz/seeds.sh).
$(FB)/seeds/.done: tests/fuzz/seeds.sh $(TOOL)
	tests/fuzz/seeds.sh $(FB)/seeds $(TOOL)
	@touch $@
fuzz-seeds: $(FB)/seeds/.done

fuzz-run: fuzz
	FUZZ_RUNS=$(FUZZ_RUNS) tests/fuzz/run.sh $(FUZZ_SECONDS) $(FB) \
	    $(FUZZ_RUN_TARGETS)

# The suites under AddressSanitizer + UndefinedBehaviorSanitizer (every
# one, or those named in ASAN_SUITES), in their own folder, with the tool
# the CLI suite runs (built with the same sanitizers).
ASAN_B := build-asan
ASAN_SUITES ?=
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
    -fno-sanitize-recover=undefined
ASAN_RUN := CK_TIMEOUT_MULTIPLIER=10 ../$(ASAN_B)/check_all
test-asan:
	$(MAKE) MPI=0 B=$(ASAN_B) CFLAGS="$(ASAN_FLAGS)" \
	    LDFLAGS="-fsanitize=address,undefined" $(ASAN_B)/check_all \
	    $(ASAN_B)/tsgs3vm
	cd tests && if [ -z "$(ASAN_SUITES)" ]; then $(ASAN_RUN); else \
	    for s in $(ASAN_SUITES); do CK_RUN_SUITE=$$s $(ASAN_RUN) || exit 1; \
	    done; fi

# The threaded suites under ThreadSanitizer: clang with LLVM's OpenMP
# runtime, whose archer tool tells TSan about OpenMP's barriers and
# reductions (libgomp's are invisible to TSan: only false reports).
# TSAN_SUITES names suites, or one test case of a suite as SUITE:CASE.
TSAN_B := build-tsan
TSAN_CC ?= clang-14
ARCHER ?= /usr/lib/llvm-14/lib/libarcher.so
TSAN_SUITES ?= kernel cv train:threads multiclass:threads sparse scaler \
               shuffle order finite s3vm_path dataset
TSAN_FLAGS := -O1 -g -fsanitize=thread -fno-omit-frame-pointer
test-tsan:
	$(MAKE) MPI=0 B=$(TSAN_B) CC=$(TSAN_CC) CFLAGS="$(TSAN_FLAGS)" \
	    LDFLAGS="-fsanitize=thread" $(TSAN_B)/check_all
	cd tests && for s in $(TSAN_SUITES); do \
	    case $$s in *:*) export CK_RUN_CASE=$${s#*:}; s=$${s%%:*} ;; \
	    *) unset CK_RUN_CASE ;; esac; \
	    OMP_TOOL_LIBRARIES=$(ARCHER) \
	    TSAN_OPTIONS="halt_on_error=1 ignore_noninstrumented_modules=1" \
	    CK_TIMEOUT_MULTIPLIER=20 CK_RUN_SUITE=$$s \
	    ../$(TSAN_B)/check_all || exit 1; done

-include $(shell find $(FB) -name '*.d' 2>/dev/null)
