# factorysim: one Makefile (STYLE.md 6.7). `make` builds bin/factorysim from
# build/libfactorysim.a, which the tests link too. `make deps` installs what a
# fresh Debian machine lacks; `make test` and `make demo` call it first.

PKGS     := gsl libconfig sqlite3 plplot jansson nettle
DEB_PKGS := build-essential pkg-config libgsl-dev libconfig-dev libsqlite3-dev \
            sqlite3 libplplot-dev plplot-driver-cairo libcmocka-dev \
            fonts-dejavu-core libjansson-dev libcsv-dev libpng-dev nettle-dev
MPI_PKGS := libopenmpi-dev openmpi-bin
FUZZ_PKGS := clang libclang-rt-14-dev
BROWSER_PKGS := chromium

CC      ?= cc
STD     := -std=c11 -D_POSIX_C_SOURCE=200809L
WARN    := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wconversion -Wdouble-promotion
OPT     ?= -O2
DEBUG   ?= -g
WERROR  ?=
SAN     ?=
VERSION := 0.1.0
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lcsv -lm
MPI_DEF ?=
# FS_ASSERT (sim/fsassert.h): off in the release build (`make`), on with
# ASSERTS=1, which `make test` and `make asan` set, each building in its
# own folder (build-test/, build-asan/) so that release and checked objects
# never mix; $(BUILD)/asserts.txt rebuilds a folder whose mode changed.
ASSERTS ?= 0
ASSERT_DEF := $(if $(filter 1,$(ASSERTS)),,-DFS_NDEBUG)
CFLAGS  := $(STD) $(WARN) $(WERROR) $(OPT) $(DEBUG) $(SAN) $(MPI_DEF) \
           $(ASSERT_DEF) -DHAVE_INLINE \
           -DFACTORYSIM_VERSION='"$(VERSION)"' -I. $(PKG_CFLAGS)
LDFLAGS := $(SAN)
BUILD   ?= build
BIN     ?= bin
# `make install` (GNU conventions): PREFIX is compiled into io/datadir.c as
# the last place to look for the data home (the installed binary first
# looks in ../share/factorysim beside itself, so a DESTDIR-staged or moved
# install works too); DESTDIR is prepended to every installed path only.
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR   = $(PREFIX)/bin
DATADIR  = $(PREFIX)/share/factorysim
MANDIR   = $(PREFIX)/share/man/man1

LIB_SRCS  := $(wildcard sim/*.c) $(wildcard models/*.c) $(wildcard io/*.c) \
             $(wildcard app/*.c) $(filter-out cli/main.c,$(wildcard cli/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
LIB       := $(BUILD)/libfactorysim.a

.PHONY: browser-test size-check all deps deps-mpi mpi _mpi test check _test asan valgrind noopt bench _bench \
        demo _demo docs clean format format-check fuzz fuzz-build _fuzz_build validate \
        install uninstall FORCE
all: $(BIN)/factorysim

$(LIB): $(LIB_OBJS)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(BIN)/factorysim: $(BUILD)/cli/main.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tests/%: tests/%.c $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(LIB) $(PKG_LIBS) $(TEST_EXTRA_LIBS) \
	    $(shell pkg-config --libs cmocka 2>/dev/null)

# test_report reads its charts back with libpng (page edges clear, issue 24);
# only tests link it, the program writes PNG through PLplot's cairo driver.
$(BUILD)/tests/test_report: TEST_EXTRA_LIBS = $(shell pkg-config --libs libpng)

# The compiled-in data folder: io/datadir.o is rebuilt when PREFIX changes
# ($(BUILD)/prefix.txt is rewritten only then).
$(BUILD)/prefix.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(DATADIR)' | cmp -s - $@ || echo '$(DATADIR)' > $@

$(BUILD)/io/datadir.o: $(BUILD)/prefix.txt
$(BUILD)/io/datadir.o: CFLAGS += -DFACTORYSIM_DATADIR='"$(DATADIR)"'

# Every object depends on the assert mode it was compiled with.
$(BUILD)/asserts.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(ASSERT_DEF)' | cmp -s - $@ || echo '$(ASSERT_DEF)' > $@

$(LIB_OBJS) $(BUILD)/cli/main.o $(TEST_BINS): $(BUILD)/asserts.txt

-include $(LIB_OBJS:.o=.d) $(BUILD)/cli/main.d $(TEST_BINS:=.d)

# Installs every missing Debian package, or says exactly what to run.
deps:
	@PKGS="$(DEB_PKGS) $(EXTRA_DEB)" sh tests/deps.sh

deps-mpi:
	@$(MAKE) --no-print-directory deps EXTRA_DEB="$(MPI_PKGS)"

# bin/factorysim-mpi: the same sources built with mpicc and -DFACTORYSIM_MPI
# into build-mpi/ (so the plain build is untouched); installs OpenMPI first
# when it is missing. `mpirun -n K bin/factorysim-mpi sweep ...` (docs/sweeps.md).
mpi: deps-mpi
	@$(MAKE) --no-print-directory CC=mpicc BUILD=build-mpi MPI_DEF=-DFACTORYSIM_MPI _mpi

_mpi: $(BIN)/factorysim-mpi

$(BIN)/factorysim-mpi: $(BUILD)/cli/main.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

# The test entry point: install, build warning-free, run every cmocka binary.
# The tests run a checked build (FS_ASSERT on) in build-test/, binary
# included (build-test/bin/factorysim), beside the release build/ and bin/.
TEST_BUILD ?= build-test
test: deps
	@$(MAKE) --no-print-directory BUILD=$(TEST_BUILD) BIN=$(TEST_BUILD)/bin \
	    ASSERTS=1 _test

check: test

# FACTORYSIM_MAKEVARS lets tests/test_install.c install the binary under
# test (make asan's, not the plain one) without rebuilding it.
_test: $(BIN)/factorysim $(TEST_BINS)
	@FACTORYSIM=$(BIN)/factorysim FACTORYSIM_ASSERTS=$(ASSERTS) \
	 FACTORYSIM_MAKEVARS="BUILD=$(BUILD) BIN=$(BIN) ASSERTS=$(ASSERTS)" \
	 sh tests/run.sh $(TEST_BINS)

asan: deps
	@$(MAKE) --no-print-directory BUILD=build-asan BIN=build-asan/bin \
	    ASSERTS=1 OPT=-O1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	    _asan

# Every report goes to a file under $(BUILD)/san/, also those of the CLI
# processes the tests start: a sanitizer exit status of 1 would otherwise
# pass for the error status a test expects. Any report fails the target.
_asan: $(BIN)/factorysim $(TEST_BINS)
	@rm -rf $(BUILD)/san && mkdir -p $(BUILD)/san
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:log_path=$(CURDIR)/$(BUILD)/san/asan \
	 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$(CURDIR)/$(BUILD)/san/ubsan \
	 FACTORYSIM=$(BIN)/factorysim FACTORYSIM_ASSERTS=$(ASSERTS) \
	 FACTORYSIM_MAKEVARS="BUILD=$(BUILD) BIN=$(BIN) ASSERTS=$(ASSERTS)" \
	 sh tests/run.sh $(TEST_BINS); st=$$?; \
	 if [ -n "$$(ls $(BUILD)/san)" ]; then cat $(BUILD)/san/*; \
	     echo "asan: sanitizer reports above ($(BUILD)/san/)"; exit 1; fi; \
	 exit $$st

VALGRIND_TESTS ?= test_evq test_engine test_rng test_phold test_scenario test_catalog \
                  test_csv test_fuzz_regress
# Some of these tests start the CLI (FACTORYSIM): it is built too, so the
# target works in a fresh checkout (CI runs `make test` in a clone).
valgrind: deps
	@$(MAKE) --no-print-directory OPT=-O1 $(BIN)/factorysim $(VALGRIND_TESTS:%=$(BUILD)/tests/%)
	@FACTORYSIM=$(BIN)/factorysim VALGRIND="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --suppressions=$(CURDIR)/tests/valgrind.supp" \
	 sh tests/run.sh $(VALGRIND_TESTS:%=$(BUILD)/tests/%)

# Fuzzing (tests/fuzz/, docs/bad-input.md): every tests/fuzz/fuzz_*.c is a
# libFuzzer harness for one reader, built with clang, ASan and UBSan into
# build-fuzz/; `make fuzz` runs each for FUZZ_SECONDS on its seed corpus.
FUZZ_SECONDS   ?= 60
FUZZ_HARNESSES ?= $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SAN       := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
                  -fno-omit-frame-pointer
fuzz-build:
	@$(MAKE) --no-print-directory deps EXTRA_DEB="$(FUZZ_PKGS)"
	@$(MAKE) --no-print-directory CC=clang BUILD=build-fuzz BIN=build-fuzz/bin \
	    OPT=-O1 SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" _fuzz_build

_fuzz_build: $(FUZZ_HARNESSES:%=$(BUILD)/fuzz/%)

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_util.h $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(LIB) $(PKG_LIBS)

fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_HARNESSES)

# The browser test of report.html (issue 25, tests/browser/run.sh): installs
# Debian's chromium when missing, reports a bundled scenario, and checks in
# the headless browser that every chart rendered and nothing overflows the
# page. Not part of `make test` (it needs a browser, ~1 min); .ci/run runs
# it. SHOT=docs/report-screenshot.png refreshes the README's picture.
SHOT ?= $(BUILD)/browser/report-excerpt.png
browser-test: deps
	@$(MAKE) --no-print-directory deps EXTRA_DEB="$(BROWSER_PKGS)"
	@$(MAKE) --no-print-directory $(BIN)/factorysim $(BUILD)/browser/check_page
	@sh tests/browser/run.sh $(BIN)/factorysim $(BUILD)/browser/check_page \
	    $(BUILD)/browser/out $(SHOT)

$(BUILD)/browser/check_page: tests/browser/check_page.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(shell pkg-config --cflags libpng) -o $@ $< \
	    $(shell pkg-config --libs jansson libpng)

# Installs the binary, the data home (models/*.cfg, data/, scenarios/ as
# examples) under $(DATADIR) and the man page; `make uninstall` removes
# exactly these. The data home mirrors the source tree, so relative paths
# inside scenarios (../data/weather/...) hold in both.
install: $(BIN)/factorysim
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) \
	    $(DESTDIR)$(DATADIR)/models $(DESTDIR)$(DATADIR)/scenarios/include
	install -m 755 $(BIN)/factorysim $(DESTDIR)$(BINDIR)/factorysim
	install -m 644 models/*.cfg $(DESTDIR)$(DATADIR)/models/
	install -m 644 scenarios/*.cfg $(DESTDIR)$(DATADIR)/scenarios/
	install -m 644 scenarios/include/*.cfg $(DESTDIR)$(DATADIR)/scenarios/include/
	find data -type f | while read -r f; do \
	    install -D -m 644 "$$f" "$(DESTDIR)$(DATADIR)/$$f" || exit 1; done
	install -m 644 docs/factorysim.1 $(DESTDIR)$(MANDIR)/factorysim.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/factorysim $(DESTDIR)$(MANDIR)/factorysim.1
	rm -rf $(DESTDIR)$(DATADIR)

noopt:
	@$(MAKE) --no-print-directory OPT=-O0 BUILD=build-noopt BIN=build-noopt/bin all

bench: deps
	@$(MAKE) --no-print-directory _bench

_bench: $(BIN)/factorysim
	@sh bench/run.sh $(BIN)/factorysim

# The throughput model on published runs it was not fitted on: MLPerf
# Training's GPT-3 175B and Llama 3.1 405B pretraining results
# (data/validation/README.md; docs/throughput-model.md section 4).
validate: $(BIN)/factorysim
	$(BIN)/factorysim predict --csv data/validation/mlperf_training.csv \
	  --out $(BUILD)/validation/mlperf_training_predicted.csv --accuracy

# Regenerates the generated parts of docs/ from the registries (the tests
# check they are current).
docs: $(BIN)/factorysim
	@sh docs/regen.sh docs/results-schema.md $(BIN)/factorysim schema
	@sh docs/regen.sh docs/scenario-reference.md $(BIN)/factorysim schema --scenario

# The README's main-job command.
demo: deps
	@$(MAKE) --no-print-directory _demo

_demo: $(BIN)/factorysim
	$(BIN)/factorysim run scenarios/nevada-solar.cfg

FORMAT_SRCS = $(wildcard sim/*.[ch] models/*.[ch] io/*.[ch] app/*.[ch] cli/*.[ch] \
                tests/*.[ch] tests/fuzz/*.[ch] tests/browser/*.[ch])
format:
	clang-format -i $(FORMAT_SRCS)

# Fails (and names the files) when any source differs from .clang-format.
format-check:
	@command -v clang-format >/dev/null || $(MAKE) --no-print-directory deps EXTRA_DEB=clang-format
	@clang-format --dry-run --Werror $(FORMAT_SRCS)

# Rooms split by concern (issue 16): no .c file outside tests/ over 900
# lines; a file that grows past it is split before it lands (CI runs this).
size-check:
	@big=$$(wc -l $(LIB_SRCS) cli/main.c | awk '$$2 != "total" && $$1 > 900'); \
	if [ -n "$$big" ]; then echo "over 900 lines (split by concern):"; \
	echo "$$big"; exit 1; fi

clean:
	rm -rf build build-test build-asan build-noopt build-fuzz build-mpi bin
