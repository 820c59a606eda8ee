# tftrace: one library (libtrace/) and thin tools (tools/).
#   make          build everything (warnings are errors)
#   make check    build with ASan + UBSan in build/asan and run every test
#   make check-shared  the same build, and only the tests that read the shared
#                 folder (SHARED, default ../shared), which a clone skips
#   make test     run every test on the normal build
#   make bench    run the benchmarks (scripts/bench.sh; exit 1: growth over 1.25x linear)
#   make samples  regenerate samples/ outputs
#   make fuzz     libFuzzer harnesses (clang), each FUZZ_SECONDS (default 60)
#   make valgrind the CLI tests with every tool under valgrind memcheck
#   make coverage which library files the unit tests exercise (gcov)
#   make install PREFIX=/usr/local DESTDIR=

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
BUILD   ?= build
CC      ?= cc
PKGS    := glib-2.0 jansson libprotobuf-c libcgraph libgvc zlib
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wpointer-arith -Wformat=2 -Wno-unused-parameter -Wvla
OPT     ?= -O2 -g
CFLAGS_ALL  = -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) $(SAN) \
              -I$(BUILD)/gen -Iinclude/tftrace -Ilibtrace $(shell pkg-config --cflags $(PKGS)) \
              $(CFLAGS)
LDLIBS_ALL  = $(shell pkg-config --libs $(PKGS)) -lm $(LDLIBS)
TEST_LIBS   = $(shell pkg-config --libs cmocka)

PROTO   := libtrace/proto/tensorflow.proto
GEN_C   := $(BUILD)/gen/tensorflow.pb-c.c
GEN_H   := $(BUILD)/gen/tensorflow.pb-c.h
LIB_LAYERS := base io model analysis emit cli
LIB_SRC := $(sort $(foreach l,$(LIB_LAYERS),$(wildcard libtrace/$(l)/*.c)))
# The installed API (include/tftrace/: tftrace.h and the headers it
# includes, in their layers' folders), then the library's own headers;
# -Iinclude/tftrace lets "model/run.h" name either tier.
PUB_HDR := $(sort $(wildcard include/tftrace/*.h include/tftrace/*/*.h))
LIB_HDR := $(PUB_HDR) $(sort $(foreach l,$(LIB_LAYERS),$(wildcard libtrace/$(l)/*.h)))
# trace-report's page (emit/report_page.c): its template, style and script,
# inlined into the library as byte arrays (scripts/embed.sh).
# The script is its modules (libtrace/emit/report/js/, one job each), joined in
# this order into one file (docs/DESIGN.md, "The report page");
# scripts/check-page-js.py checks the list and the functions' lengths.
REPORT_JS := $(addprefix libtrace/emit/report/js/,00-base.js 10-data.js 20-timeline.js \
	30-details.js 40-search.js 50-tables.js 60-memory.js 70-graph.js 80-diff.js 90-tabs.js \
	99-main.js)
REPORT_ASSETS := $(addprefix libtrace/emit/report/,report.html report.css runs.js runs.css \
	graphview.js format.js) \
	$(BUILD)/gen/report.js
LIB_OBJ := $(patsubst libtrace/%.c,$(BUILD)/obj/%.o,$(LIB_SRC)) $(BUILD)/obj/tensorflow.pb-c.o \
	$(BUILD)/obj/report_assets.o
LIB     := $(BUILD)/libtrace.a
TOOLS   := trace-dataflow trace-memory trace-merge trace-summarize graph-render trace-report
TOOL_SRC := $(sort $(wildcard tools/*.c))
TOOL_BIN := $(patsubst tools/%.c,$(BUILD)/bin/%,$(TOOL_SRC))
UNIT_SRC := $(sort $(foreach l,$(LIB_LAYERS),$(wildcard tests/unit/$(l)/test_*.c)))
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
MAN_SRC  := $(sort $(wildcard man/*.1.in))
MAN_OUT  := $(patsubst man/%.1.in,$(BUILD)/man/%.1,$(MAN_SRC))
LIBDIR   ?= $(PREFIX)/lib
INCDIR   ?= $(PREFIX)/include/tftrace
MANDIR   ?= $(PREFIX)/share/man/man1
COMPDIR  ?= $(PREFIX)/share/bash-completion/completions
# tests/tools/pbtext_print.c is no tool: the text format printer, linked
# into the tests that print (PBTEXT_PRINT_USERS).
TESTTOOL_SRC := $(filter-out tests/tools/pbtext_print.c,$(sort $(wildcard tests/tools/*.c)))
TESTTOOL_BIN := $(patsubst tests/tools/%.c,$(BUILD)/tests/%,$(TESTTOOL_SRC))
# The fuzz harnesses, also linked without libFuzzer into fuzz-replay, which
# the tests run on tests/fuzz/regressions/.
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRC))
REPLAY_OBJ := $(patsubst %,$(BUILD)/obj/fuzz/replay_%.o,$(FUZZ_NAMES))
REPLAY_BIN := $(BUILD)/tests/fuzz-replay
PBTEXT_PRINT_OBJ := $(BUILD)/obj/tests/pbtext_print.o
PBTEXT_PRINT_USERS := $(BUILD)/tests/unit/io/test_pbtext $(BUILD)/tests/trace-gen \
	$(BUILD)/fuzzers/fuzz_text $(REPLAY_BIN)

.PHONY: all check check-shared test unit cli bench install uninstall clean samples deps \
	format fuzz fuzz-build valgrind coverage
.SECONDARY:

all: $(TOOL_BIN) $(UNIT_BIN) $(TESTTOOL_BIN) $(REPLAY_BIN) $(MAN_OUT)

# man pages: one source per tool, its OPTIONS section taken from --help
$(BUILD)/man/%.1: man/%.1.in $(BUILD)/bin/% scripts/mkman.sh
	@mkdir -p $(dir $@)
	scripts/mkman.sh $< $(BUILD)/bin/$* > $@.tmp && mv $@.tmp $@

deps:
	scripts/install-deps.sh

$(GEN_C) $(GEN_H): $(PROTO)
	@mkdir -p $(BUILD)/gen
	protoc-c --proto_path=libtrace/proto --c_out=$(BUILD)/gen $(PROTO)

$(BUILD)/obj/tensorflow.pb-c.o: $(GEN_C)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Wno-missing-prototypes -Wno-missing-braces -c -o $@ $<

$(BUILD)/gen/report.js: $(REPORT_JS) Makefile
	@mkdir -p $(BUILD)/gen
	cat $(REPORT_JS) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/report_assets.c: $(REPORT_ASSETS) scripts/embed.sh
	@mkdir -p $(BUILD)/gen
	scripts/embed.sh tl_report $(REPORT_ASSETS) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/report_assets.o: $(BUILD)/gen/report_assets.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c -o $@ $<

$(BUILD)/obj/%.o: libtrace/%.c $(GEN_H) $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c -o $@ $<

$(PBTEXT_PRINT_OBJ): tests/tools/pbtext_print.c tests/tools/pbtext_print.h $(GEN_H) $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c -o $@ $<

$(PBTEXT_PRINT_USERS): $(PBTEXT_PRINT_OBJ) tests/tools/pbtext_print.h

# The test programs link the objects among their prerequisites (the
# printer's, where they print) before the library.
$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/bin/%: tools/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB) $(LDLIBS_ALL)

$(BUILD)/tests/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit -Wno-missing-prototypes -o $@ $< $(filter %.o,$^) $(LIB) \
	  $(LDLIBS_ALL) $(TEST_LIBS)

$(BUILD)/tests/%: tests/tools/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(filter %.o,$^) $(LIB) $(LDLIBS_ALL)

$(BUILD)/obj/fuzz/replay_%.o: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(GEN_H) $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -DLLVMFuzzerTestOneInput=fuzz_$*_one -c -o $@ $<

$(REPLAY_BIN): tests/fuzz/replay.c $(REPLAY_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(filter %.o,$^) $(LIB) $(LDLIBS_ALL)

# libFuzzer binaries; only meaningful with the clang flags fuzz-build passes.
$(BUILD)/fuzzers/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Wno-missing-prototypes -fsanitize=fuzzer -o $@ $< $(filter %.o,$^) $(LIB) \
	  $(LDLIBS_ALL)

# The tests read what lives in the repository (tests/data: fixtures, real/,
# oracle/). The shared folder also holds real dumps whose source has no
# licence; the tests that read it (unit tests named test_shared_*, CLI cases
# that name $SHARED) skip, naming the file, where it is absent.
SHARED ?= $(firstword $(wildcard ../shared) $(wildcard shared))

# UNIT_FILTER (a cmocka pattern) and CLI_SHARED_ONLY=1 narrow a run to some
# tests (check-shared sets both); UNIT_BIN_RUN is the unit binaries to run.
UNIT_BIN_RUN ?= $(UNIT_BIN)
unit: $(UNIT_BIN)
	@fail=0; for t in $(UNIT_BIN_RUN); do \
	  TL_DATA=tests/data TL_SHARED=$(SHARED) TL_UNIT_FILTER='$(UNIT_FILTER)' $$t || fail=1; \
	  done; exit $$fail

# The CLI cases, a test file per core (CLI_JOBS=1 for one at a time).
CLI_JOBS ?= $(shell nproc)
cli: $(TOOL_BIN) $(TESTTOOL_BIN) $(REPLAY_BIN)
	BIN=$(BUILD)/bin TESTBIN=$(BUILD)/tests SHARED=$(SHARED) CLI_JOBS=$(CLI_JOBS) TOOLSAN="$(SAN)" \
	  CLI_SHARED_ONLY=$(CLI_SHARED_ONLY) tests/cli/run

test: all
	$(MAKE) --no-print-directory unit cli

ASAN_BUILD = BUILD=build/asan OPT="-O1 -g -fno-omit-frame-pointer" \
	SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
ASAN_RUN = ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

check:
	$(MAKE) --no-print-directory $(ASAN_BUILD) all
	$(ASAN_RUN) $(MAKE) --no-print-directory $(ASAN_BUILD) unit cli

# What check skips without the shared folder, alone: the unit binaries with
# test_shared_* tests, filtered to those, and the CLI cases that name $SHARED.
# CI runs it after check in a clone with nothing beside it.
SHARED_UNIT_BIN = $(patsubst tests/unit/%.c,build/asan/tests/unit/%,\
	$(shell grep -l '^static void test_shared_' $(UNIT_SRC)))
check-shared:
	@test -d "$(SHARED)" || { echo "make check-shared: no shared folder (../shared, or SHARED=DIR)" >&2; \
	  exit 2; }
	$(MAKE) --no-print-directory $(ASAN_BUILD) all
	$(ASAN_RUN) $(MAKE) --no-print-directory $(ASAN_BUILD) UNIT_FILTER='test_shared_*' \
	  UNIT_BIN_RUN="$(SHARED_UNIT_BIN)" CLI_SHARED_ONLY=1 unit cli

# Fuzzing: the library (generated protobuf code included) built with clang,
# ASan, UBSan and libFuzzer's coverage into build/fuzz/; each harness of
# tests/fuzz/ runs FUZZ_SECONDS (scripts/fuzz.sh says how, and what it
# prints).
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_FLAGS = BUILD=build/fuzz CC=$(FUZZ_CC) OPT="-O1 -g -fno-omit-frame-pointer" \
	SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"

fuzz-build:
	$(MAKE) --no-print-directory $(FUZZ_FLAGS) \
	  $(patsubst %,build/fuzz/fuzzers/fuzz_%,$(FUZZ_NAMES))

fuzz: fuzz-build $(BUILD)/tests/trace-gen
	FUZZ_BUILD=build/fuzz FUZZ_SECONDS=$(FUZZ_SECONDS) TESTBIN=$(BUILD)/tests SHARED=$(SHARED) \
	  FUZZ_BIN=build/fuzz/fuzzers scripts/fuzz.sh $(FUZZ_NAMES)

# The CLI golden tests with each tool run under valgrind memcheck (any error
# or definite leak fails its case); scripts/valgrind.sh.
valgrind: all
	BIN=$(BUILD)/bin TESTBIN=$(BUILD)/tests SHARED=$(SHARED) scripts/valgrind.sh

# Which library files the unit tests exercise (gcov, in build/cov); exit 1
# when under 75% of a layer's files have half their lines run.
coverage:
	scripts/coverage.sh

bench: all
	BIN=$(BUILD)/bin TESTBIN=$(BUILD)/tests scripts/bench.sh

samples: all
	BIN=$(BUILD)/bin scripts/run-samples.sh

install: $(TOOL_BIN) $(MAN_OUT) $(LIB)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(COMPDIR) \
	  $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)
	for t in $(TOOLS); do \
	  install -m 755 $(BUILD)/bin/$$t $(DESTDIR)$(BINDIR)/$$t; \
	  install -m 644 $(BUILD)/man/$$t.1 $(DESTDIR)$(MANDIR)/$$t.1; \
	  ln -sf tftrace $(DESTDIR)$(COMPDIR)/$$t; done
	install -m 644 scripts/tftrace.bash-completion $(DESTDIR)$(COMPDIR)/tftrace
	install -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/libtftrace.a
	install -m 644 $(BUILD)/gen/tensorflow.pb-c.h $(DESTDIR)$(INCDIR)/
	for h in $(patsubst include/tftrace/%,%,$(PUB_HDR)); do \
	  install -D -m 644 include/tftrace/$$h $(DESTDIR)$(INCDIR)/$$h; done
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
	  -e 's|@VERSION@|$(shell sed -n 's/^#define TL_VERSION "\(.*\)"/\1/p' libtrace/cli/cli.h)|' \
	  scripts/tftrace.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/tftrace.pc

uninstall:
	for t in $(TOOLS); do rm -f $(DESTDIR)$(BINDIR)/$$t $(DESTDIR)$(MANDIR)/$$t.1 \
	  $(DESTDIR)$(COMPDIR)/$$t; done
	rm -f $(DESTDIR)$(COMPDIR)/tftrace $(DESTDIR)$(LIBDIR)/libtftrace.a \
	  $(DESTDIR)$(LIBDIR)/pkgconfig/tftrace.pc
	rm -rf $(DESTDIR)$(INCDIR)

format:
	clang-format -i $(LIB_SRC) $(LIB_HDR) tools/*.c $(UNIT_SRC) tests/tools/*.c

clean:
	rm -rf build
