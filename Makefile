# hmpt — heterogeneous memory pool tuner.  See README.md.
#
#   make            build build/libhmpt.so, build/hmpt-tune and build/hmpt-bench
#   make check      find what is needed (install it on Debian/Ubuntu if
#                   missing: scripts/install-deps.sh, docs/install.md), build,
#                   run every test.  Plain `make` never installs anything.
#   make demo       tune the bundled demo;  make demo-apply  apply its plan
#   make bench      build and run the benchmarks
#   make install    PREFIX=/usr/local DESTDIR=
#   make format     reformat the sources;  make format-check  verify them

VERSION   := 0.1.0
PREFIX    ?= /usr/local
DESTDIR   ?=
LIBDIR    ?= $(PREFIX)/lib
BINDIR    ?= $(PREFIX)/bin
INCDIR    ?= $(PREFIX)/include
MANDIR    ?= $(PREFIX)/share/man
PCDIR     ?= $(LIBDIR)/pkgconfig

CC        ?= gcc
CXX       ?= g++
FC        ?= gfortran
B         := build
WERROR    ?= -Werror
OPT       ?= -O2
WARN      := -Wall -Wextra $(WERROR)
CPPFLAGS  += -D_GNU_SOURCE -DHMPT_VERSION=\"$(VERSION)\" -Iinclude -Icommon
CFLAGS    ?= $(OPT) -g
CFLAGS    += -std=gnu11 $(WARN)

# The shim runs inside the application: hidden visibility, initial-exec TLS,
# no stack protector on the malloc path, an explicit export map.
SHIM_CFLAGS  := $(CFLAGS) -fPIC -fvisibility=hidden -ftls-model=initial-exec \
                -fno-omit-frame-pointer -fno-strict-aliasing
SHIM_LDFLAGS := -shared -Wl,--version-script=shim/libhmpt.map -Wl,-z,now \
                -Wl,-z,nodelete -Wl,-z,defs
# libunwind (shim/sites.c) and Zydis (shim/decode.c) are opened with dlopen
# when first needed, not linked: a process that never walks a stack the
# frame pointers cannot, or never decodes a sample, does not map them (nor
# liblzma, which libunwind pulls in).  Their sonames are those of the
# libraries the headers came with.
SHIM_LIBS    := -ldl -lpthread
soname = $(or $(shell objdump -p "$$($(CC) -print-file-name=$(1))" 2>/dev/null | \
                awk '/SONAME/ { print $$2 }'),$(2))
CPPFLAGS     += -DHMPT_UNWIND_SONAME=\"$(call soname,libunwind.so,libunwind.so.8)\"
# Zydis decodes the instruction of a timer sample (shim/decode.c); without
# it the shim builds and HMPT_SAMPLE=timer says it has no decoder
HAVE_ZYDIS   := $(shell printf '\043include <Zydis/Zydis.h>\nint main(void){return 0;}\n' | \
                  $(CC) -x c - -o /dev/null -lZydis 2>/dev/null && echo 1)
ifeq ($(HAVE_ZYDIS),1)
CPPFLAGS     += -DHMPT_ZYDIS_SONAME=\"$(call soname,libZydis.so,libZydis.so.4.0)\"
else
CPPFLAGS     += -DHMPT_NO_ZYDIS
endif

# common/: what the shim, hmpt-tune and hmpt-bench share (options, messages,
# JSON, plans, topology, pools and their backends' table, the sampler's
# choice), built once as the shim builds (PIC, hidden) and linked into all
COMMON_SRC := $(wildcard common/*.c)
COMMON_OBJ := $(COMMON_SRC:common/%.c=$(B)/common/%.o)
SHIM_SRC  := $(wildcard shim/*.c)
SHIM_OBJ  := $(SHIM_SRC:shim/%.c=$(B)/shim/%.o) $(COMMON_OBJ)
# the parts of the shim with no libc interposition and no constructor:
# unit-testable (override.c exports the malloc family and _exit,
# lifecycle.c holds the constructor, limits.c exports setrlimit and mlockall,
# mapcalls.c mprotect, madvise and the like)
SHIM_PURE := $(filter-out $(B)/shim/override.o $(B)/shim/lifecycle.o $(B)/shim/limits.o \
               $(B)/shim/mapcalls.o,$(SHIM_OBJ))
HDRS      := $(wildcard shim/*.h common/*.h include/*.h)

# tools/: what hmpt-tune and hmpt-bench share that the shim must not link
# (it uses jansson, malloc and stdio): pools named on a command line
TOOLS_SRC := $(wildcard tools/*.c)
TOOLS_OBJ := $(TOOLS_SRC:tools/%.c=$(B)/tools/%.o)
TOOLS_HDRS := $(wildcard tools/*.h)

TUNER_SRC := $(wildcard tuner/*.c)
TUNER_OBJ := $(TUNER_SRC:tuner/%.c=$(B)/tuner/%.o)
TUNER_LIBS := -ljansson -ldw -lelf -lstdc++ -lnuma -ldl -lpthread -lm

UNIT_SRC  := $(wildcard tests/unit/test_*.c)
NPROC     := $(shell nproc 2>/dev/null || echo 2)

# the sanitizer builds check the lock order too (common/lockrank.h)
RANKS     := -DHMPT_LOCK_RANKS
SAN       := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all $(RANKS)

# keep every object: the sanitized shim objects reach the unit tests through
# a pattern rule only, and make would delete them as intermediate after each
# test it links (and build them again for the next)
.SECONDARY:

.PHONY: all check check-build check-build-integration deps deps-run bench bench-build install uninstall \
        format format-check clean demo demo-apply progs
all: $(B)/libhmpt.so $(B)/hmpt-tune $(B)/hmpt-bench

$(B)/shim/%.o: shim/%.c $(HDRS) | $(B)/shim
	$(CC) $(CPPFLAGS) $(SHIM_CFLAGS) -c -o $@ $<
$(B)/common/%.o: common/%.c $(HDRS) | $(B)/common
	$(CC) $(CPPFLAGS) $(SHIM_CFLAGS) -c -o $@ $<
$(B)/libhmpt.so: $(SHIM_OBJ) shim/libhmpt.map
	$(CC) $(SHIM_CFLAGS) $(SHIM_LDFLAGS) -o $@ $(SHIM_OBJ) $(SHIM_LIBS)

# The shim itself under UBSan, for the stress tests (ASan cannot take a
# malloc interposer: its own interceptors would replace it)
UBSAN      := -fsanitize=undefined -fno-sanitize-recover=all $(RANKS)
UBSAN_OBJ  := $(SHIM_SRC:shim/%.c=$(B)/ubsan/shim/%.o) $(COMMON_SRC:common/%.c=$(B)/ubsan/common/%.o)
$(B)/ubsan/shim/%.o: shim/%.c $(HDRS) | $(B)/ubsan/shim
	$(CC) $(CPPFLAGS) $(SHIM_CFLAGS) $(UBSAN) -c -o $@ $<
$(B)/ubsan/common/%.o: common/%.c $(HDRS) | $(B)/ubsan/common
	$(CC) $(CPPFLAGS) $(SHIM_CFLAGS) $(UBSAN) -c -o $@ $<
$(B)/ubsan/libhmpt.so: $(UBSAN_OBJ) shim/libhmpt.map
	$(CC) $(SHIM_CFLAGS) $(UBSAN) $(SHIM_LDFLAGS) -o $@ $(UBSAN_OBJ) $(SHIM_LIBS)

# hmpt-bench: OpenMP kernels over arrays placed by the shim's own pool code
BENCH_SRC := $(wildcard bench/hb_*.c) bench/hmpt_bench.c
BENCH_OBJ := $(BENCH_SRC:bench/%.c=$(B)/hb/%.o)
$(B)/hb/%.o: bench/%.c bench/hb.h $(TOOLS_HDRS) $(HDRS) | $(B)/hb
	$(CC) $(CPPFLAGS) -Itools $(CFLAGS) -fopenmp -c -o $@ $<
$(B)/hmpt-bench: $(BENCH_OBJ) $(TOOLS_OBJ) $(COMMON_OBJ)
	$(CC) $(CFLAGS) -fopenmp -o $@ $^ -ljansson -lnuma -ldl -lpthread -lm

$(B)/tools/%.o: tools/%.c $(TOOLS_HDRS) $(HDRS) | $(B)/tools
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<
$(B)/tuner/%.o: tuner/%.c $(wildcard tuner/*.h) $(TOOLS_HDRS) $(HDRS) | $(B)/tuner
	$(CC) $(CPPFLAGS) -Itools $(CFLAGS) -c -o $@ $<
$(B)/hmpt-tune: $(TUNER_OBJ) $(TOOLS_OBJ) $(COMMON_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(TUNER_LIBS)

# ASan/UBSan builds of the tuner and the unit tests
$(B)/asan/shim/%.o: shim/%.c $(HDRS) | $(B)/asan/shim
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SAN) -c -o $@ $<
$(B)/asan/common/%.o: common/%.c $(HDRS) | $(B)/asan/common
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SAN) -c -o $@ $<
$(B)/asan/tools/%.o: tools/%.c $(TOOLS_HDRS) $(HDRS) | $(B)/asan/tools
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SAN) -c -o $@ $<
$(B)/asan/tuner/%.o: tuner/%.c $(wildcard tuner/*.h) $(TOOLS_HDRS) $(HDRS) | $(B)/asan/tuner
	$(CC) $(CPPFLAGS) -Itools $(CFLAGS) $(SAN) -c -o $@ $<
$(B)/asan/hmpt-tune: $(TUNER_OBJ:$(B)/%=$(B)/asan/%) $(TOOLS_OBJ:$(B)/%=$(B)/asan/%) \
		$(COMMON_OBJ:$(B)/%=$(B)/asan/%)
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(TUNER_LIBS)
$(B)/asan/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(SHIM_PURE:$(B)/%=$(B)/asan/%) \
		$(filter-out $(B)/asan/tuner/main.o,$(TUNER_OBJ:$(B)/%=$(B)/asan/%)) \
		$(TOOLS_OBJ:$(B)/%=$(B)/asan/%) | $(B)/asan/unit
	$(CC) $(CPPFLAGS) -Ishim -Ituner -Itools -Itests/unit $(CFLAGS) $(SAN) -o $@ $(filter %.c %.o,$^) $(TUNER_LIBS) $(SHIM_LIBS)

# test_walk's libraries: frames with frame pointers and without, in a
# module of their own (walk_lib.c)
$(B)/asan/unit/libwalk_fp.so: tests/unit/walk_lib.c | $(B)/asan/unit
	$(CC) $(CFLAGS) -fPIC -shared -fno-omit-frame-pointer -o $@ $<
$(B)/asan/unit/libwalk_nofp.so: tests/unit/walk_lib.c | $(B)/asan/unit
	$(CC) $(CFLAGS) -fPIC -shared -fomit-frame-pointer -DWALK_NOFP -o $@ $<
$(B)/asan/unit/test_walk: $(B)/asan/unit/libwalk_fp.so $(B)/asan/unit/libwalk_nofp.so

# The confirmation's statistics at full power (120,000 simulated phases):
# optimised and without the sanitizers, which would make it ten times
# slower; its measurement layer is the test's own (-Wl,--wrap replaces the
# confirmation's call of hmpt_measure_round)
$(B)/asan/unit/test_confirm: tests/unit/test_confirm.c tests/unit/check.h \
		$(filter-out $(B)/tuner/main.o,$(TUNER_OBJ)) $(TOOLS_OBJ) $(COMMON_OBJ) | $(B)/asan/unit
	$(CC) $(CPPFLAGS) -Ituner -Itools -Itests/unit $(CFLAGS) -Wl,--wrap=hmpt_measure_round -o $@ \
		$(filter %.c %.o,$^) $(TUNER_LIBS)

# hmpt-bench's kernels (OpenMP) and its cache size under the same sanitizers
$(B)/asan/unit/test_hb_kern: tests/unit/test_hb_kern.c tests/unit/check.h \
		bench/hb_kern.c bench/hb.h | $(B)/asan/unit
	$(CC) $(CPPFLAGS) -Ibench -Itests/unit $(CFLAGS) $(SAN) -fopenmp -o $@ \
		tests/unit/test_hb_kern.c bench/hb_kern.c -lm
$(B)/asan/unit/test_hb_cache: tests/unit/test_hb_cache.c tests/unit/check.h \
		tests/unit/sysfs_fixture.h bench/hb_cache.c bench/hb.h | $(B)/asan/unit
	$(CC) $(CPPFLAGS) -Ibench -Itests/unit $(CFLAGS) $(SAN) -o $@ \
		tests/unit/test_hb_cache.c bench/hb_cache.c

$(B)/shim $(B)/common $(B)/tools $(B)/tuner $(B)/hb $(B)/asan/shim $(B)/asan/common \
		$(B)/asan/tools $(B)/asan/tuner $(B)/asan/unit $(B)/bench $(B)/ubsan/shim $(B)/ubsan/common:
	mkdir -p $@

UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/asan/unit/%)

# libFuzzer targets (clang); run for a bounded time by tests/integration/t_fuzz.sh.
# UBSan halts on the first error, so a fuzzer reports it as a crash.
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
# the backends' registry and the backends it names (plans name backends)
BACKEND_SRC := common/backend.c $(wildcard common/pool_*.c) common/log.c
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(B)/fuzz/%)
FUZZ_CC  := clang $(CPPFLAGS) -Ishim -Ituner -Itools -std=gnu11 $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined \
            -fno-sanitize-recover=all
$(B)/fuzz/fuzz_options: tests/fuzz/fuzz_options.c common/options.c common/fmt.c | $(B)/fuzz
	$(FUZZ_CC) -o $@ $(filter %.c,$^)
$(B)/fuzz/fuzz_plan: tests/fuzz/fuzz_plan.c common/plan.c common/json.c common/topo.c \
		common/options.c common/fmt.c common/sys.c $(BACKEND_SRC) | $(B)/fuzz
	$(FUZZ_CC) -o $@ $(filter %.c,$^)
$(B)/fuzz/fuzz_profile: tests/fuzz/fuzz_profile.c tuner/profiles.c common/pattern.c tools/outfile.c \
		common/sys.c | $(B)/fuzz
	$(FUZZ_CC) -o $@ $(filter %.c,$^) -ljansson
$(B)/fuzz/fuzz_journal: tests/fuzz/fuzz_journal.c tuner/runrec.c | $(B)/fuzz
	$(FUZZ_CC) -o $@ $(filter %.c,$^) -ljansson
$(B)/fuzz/fuzz_slurm: tests/fuzz/fuzz_slurm.c tuner/runrec.c | $(B)/fuzz
	$(FUZZ_CC) -o $@ $(filter %.c,$^) -ljansson
$(B)/fuzz/fuzz_ring: tests/fuzz/fuzz_ring.c shim/ring.c | $(B)/fuzz
	$(FUZZ_CC) -o $@ $(filter %.c,$^)
$(B)/fuzz/fuzz_elf: tests/fuzz/fuzz_elf.c shim/statics.c common/sys.c | $(B)/fuzz
	$(FUZZ_CC) -o $@ $(filter %.c,$^)
$(B)/fuzz/fuzz_poolspec: tests/fuzz/fuzz_poolspec.c tools/poolspec.c common/plan.c common/json.c \
		common/topo.c common/options.c common/fmt.c common/sys.c $(BACKEND_SRC) | $(B)/fuzz
	$(FUZZ_CC) -o $@ $(filter %.c,$^) -ljansson
$(FUZZ_BIN): tests/fuzz/fuzz_check.h
$(B)/fuzz:
	mkdir -p $@

progs: all
	$(MAKE) -C tests/progs B=$(abspath $(B))/progs

deps:
	@scripts/install-deps.sh
# what the demo and the benchmarks need: building, and python3 for their
# summaries (HMPT_DEPS=run); the test-only packages are not asked for
deps-run:
	@HMPT_DEPS=$${HMPT_DEPS:-run} scripts/install-deps.sh

# everything the test suite runs; tests/run.sh makes it first, so that one
# test runs after a plain `make` (HMPT_TEST_NO_BUILD=1: it was just made)
check-build-integration: all
	$(MAKE) $(B)/asan/hmpt-tune $(B)/ubsan/libhmpt.so $(FUZZ_BIN)
	$(MAKE) progs bench-build
check-build: check-build-integration
	$(MAKE) $(UNIT_BIN)

# check builds on every CPU, unless make was given -j (its jobserver then)
check: deps
	$(MAKE) $(if $(findstring -j,$(MAKEFLAGS)),,-j$(NPROC)) check-build
	$(MAKE) format-check
	HMPT_TEST_NO_BUILD=1 tests/run.sh

bench-build: all $(B)/bench/plan_load
	$(MAKE) -C bench B=$(abspath $(B))/bench

# plan_load: the plan loader and matcher themselves (common/plan.c)
$(B)/bench/plan_load: bench/plan_load.c $(COMMON_OBJ) $(HDRS) | $(B)/bench
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ bench/plan_load.c $(COMMON_OBJ) -lnuma -ldl -lpthread -lm
	$(MAKE) -C tests/progs B=$(abspath $(B))/progs $(abspath $(B))/progs/truthwalk

bench: deps-run
	$(MAKE) bench-build
	bench/run.sh

# The main job on the bundled workload: four arrays from four call sites,
# tuned with two pools this machine really has (THP 2 MiB pages against
# 4 KiB pages).  First a few seconds of hmpt-bench say whether those pools
# differ here at all, so that "no speedup" reads as the machine's answer,
# not the tuner's failure.  Rerunning resumes from (or reprints)
# $(DEMO_OUT)'s journal.  A 512 MiB table keeps it to ~5 minutes on 2 cores,
# the access phase still ~3x the page-fault phase.
DEMO_ARGS ?= -s 512 -i 2
DEMO_OUT  ?= $(B)/demo
DEMO_TUNE := --pools thp,4k --metric 'Time in seconds'
demo: deps-run
	$(MAKE) all bench-build
	scripts/demo-pools.sh $(B)
	$(B)/hmpt-tune -o $(DEMO_OUT) $(DEMO_TUNE) -- $(B)/bench/hmpt-demo $(DEMO_ARGS)

# The plan the demo chose, applied, against the all-slow reference
demo-apply: all bench-build
	@test -f $(DEMO_OUT)/plan-best.json || { echo "no $(DEMO_OUT)/plan-best.json: run 'make demo' first" >&2; exit 1; }
	$(B)/hmpt-tune compare --metric 'Time in seconds' \
	  $(DEMO_OUT)/plan-slow.json $(DEMO_OUT)/plan-best.json -- $(B)/bench/hmpt-demo $(DEMO_ARGS)

install: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(INCDIR) \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(PCDIR)
	install -m 755 $(B)/libhmpt.so $(DESTDIR)$(LIBDIR)/libhmpt.so
	install -m 755 $(B)/hmpt-tune $(DESTDIR)$(BINDIR)/hmpt-tune
	install -m 755 $(B)/hmpt-bench $(DESTDIR)$(BINDIR)/hmpt-bench
	install -m 644 include/hmpt.h $(DESTDIR)$(INCDIR)/hmpt.h
	install -m 644 docs/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 docs/man/*.7 $(DESTDIR)$(MANDIR)/man7/
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCDIR@|$(INCDIR)|; s|@VERSION@|$(VERSION)|' \
	  hmpt.pc.in > $(DESTDIR)$(PCDIR)/hmpt.pc

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libhmpt.so $(DESTDIR)$(BINDIR)/hmpt-tune $(DESTDIR)$(BINDIR)/hmpt-bench \
	  $(DESTDIR)$(INCDIR)/hmpt.h $(DESTDIR)$(PCDIR)/hmpt.pc
	cd docs/man && for m in *.1; do rm -f $(DESTDIR)$(MANDIR)/man1/$$m; done
	cd docs/man && for m in *.7; do rm -f $(DESTDIR)$(MANDIR)/man7/$$m; done

FMT_SRC = $(wildcard shim/*.[ch] common/*.[ch] tools/*.[ch] tuner/*.[ch] include/*.h bench/*.c tests/unit/*.[ch] tests/fuzz/*.[ch] \
            tests/progs/*.c tests/progs/*.cpp)
format:
	clang-format -i $(FMT_SRC)
format-check:
	@clang-format --dry-run --Werror $(FMT_SRC) && echo "format-check: $(words $(FMT_SRC)) files formatted as .clang-format says"

clean:
	rm -rf $(B)
