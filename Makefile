# polyapm — top-level build.
#
#   make run         install missing Debian packages (as root), build, open the TUI on an example
#   make test        build and run every test (unit, command line, TUI, MPI)
#   make check-asan  the whole suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make fuzz        bounded libFuzzer runs of the parser, the simulator and the C importer, then the
#                    derive-and-export fuzzer (FUZZ_SECONDS each, default 60; `make fuzz-import`,
#                    `make fuzz-derive` run only those)
#   make bench       benchmarks, printing ratios measured side by side in one run
#   make install PREFIX=/usr/local    make clean    make deps
#
# Sources are found by wildcard: engine/*.c -> libengine.a, transforms/*.c and its rooms'
# transforms/*/*.c -> libxf.a, store/*.c -> libstore.a, tui/app/*.c -> libapp.a, tui/cli/*.c and
# tui/*.c -> the polyapm binary; tests/unit/*.c -> one test program each, tests/drivers/*.c -> the
# suites' driver programs.  Each folder compiles with only the include paths of what it may use
# (engine <- transforms, store <- app <- cli, tui), so the layering is enforced.

BUILD    ?= build
PREFIX   ?= /usr/local
CC       ?= cc
OPT      ?= -O2 -g
SAN      ?=
CFLAGS   += -std=c11 $(OPT) $(SAN) -Wall -Wextra -D_GNU_SOURCE -MMD -MP

# The include paths of each folder: what it may use, nothing above it.
INC_engine     = -Iengine
# transforms/: its public headers (xf.h, import.h) and the registry at the top, a room per family below,
# each with a private header that only transforms/ reaches (the paths and POLYAPM_XF_PRIVATE are its own)
INC_transforms = -Iengine -Itransforms -Itransforms/core -DPOLYAPM_XF_PRIVATE
XF_ROOMS_core       =
XF_ROOMS_poly       = poly
XF_ROOMS_stm        = poly stm
XF_ROOMS_distribute = poly distribute
XF_ROOMS_place      = poly place
XF_ROOMS_fuse       = fuse
XF_ROOMS_export     = poly export
XF_ROOMS_import     = import
XF_ROOMS_local      = poly local
xf_rooms = $(foreach r,$(XF_ROOMS_$(1)),-Itransforms/$(r))
INC_store      = -Iengine -Istore
INC_app        = -Iengine -Itransforms -Istore -Itui/app
INC_cli        = $(INC_app) -Itui/cli -I$(BUILD)/gen
INC_tui        = $(INC_app) -Itui
INC_tests      = $(INC_app) -Itui/cli
# libclang (the C importer, transforms/import/): its headers as system
# headers so that -Wall -Wextra stay about our code
LLVM_DIR ?= /usr/lib/llvm-14
CLANG_INC  = -isystem $(LLVM_DIR)/include -DLLVM_CLANG='"$(LLVM_DIR)/bin/clang"' \
             -DLIBCLANG='"$(LLVM_DIR)/lib/libclang.so.1"'
# libclang is opened when C is first imported (transforms/import/import_clang.c), not linked
CLANG_LIBS = -ldl
LDLIBS   += -lgit2 -lsqlite3 -lncursesw -ltinfo -lisl -lgmp -lpthread -lm
LDFLAGS  += $(SAN)

# Debian packages the build, the tests and `make run` need (clang-14 and libclang: the C importer
# preprocesses with clang and parses with libclang); `make fuzz` also needs libFuzzer's runtime,
# installed on its first run rather than by every `make test`.
DEB_PKGS  = build-essential pkg-config libncurses-dev libsqlite3-dev sqlite3 libgit2-dev libisl-dev \
            libgmp-dev openmpi-bin libopenmpi-dev libsimgrid-dev tmux git python3 bc time gnuplot-nox \
            libclang-14-dev clang-14
DEB_FUZZ_PKGS = clang libclang-rt-14-dev
# `make bench` also: LLVM's OpenMP runtime, for bench_peers' Polly OpenMP peer (clang-14 -fopenmp);
# where it cannot be installed that peer is left out
DEB_BENCH_PKGS = libomp-14-dev
# $(call deb_missing,PKGS): a shell command printing the packages of PKGS not installed
deb_missing = dpkg-query -W -f='$${Package} $${Status}\n' $(1) 2>&1 | \
            awk '/no packages found matching/ {print $$NF; next} !/install ok installed/ {print $$1}'
# $(call deb_install,PKGS): installs what PKGS misses (root) or prints the apt-get line (anyone else)
define deb_install
	@missing=$$($(call deb_missing,$(1))); \
	if [ -z "$$missing" ]; then echo "deps: all present"; exit 0; fi; \
	echo "deps: missing" $$missing; \
	if [ "$$(id -u)" = 0 ]; then \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "run as root:  apt-get update && apt-get install -y" $$missing; exit 1; fi
endef

ENGINE_SRC = $(wildcard engine/*.c)
XF_SRC     = $(wildcard transforms/*.c transforms/*/*.c)
STORE_SRC  = $(wildcard store/*.c)
APP_SRC    = $(wildcard tui/app/*.c)
CLI_SRC    = $(wildcard tui/cli/*.c)
TUI_SRC    = $(wildcard tui/*.c)
UNIT_SRC   = $(wildcard tests/unit/*.c)
DRIVER_SRC = $(wildcard tests/drivers/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
LIBS = $(BUILD)/libapp.a $(BUILD)/libstore.a $(BUILD)/libxf.a $(BUILD)/libengine.a
UNIT_BIN = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
DRIVER_BIN = $(patsubst tests/drivers/%.c,$(BUILD)/tests/drivers/%,$(DRIVER_SRC))

.PHONY: print-inc all deps deps-fuzz run test check-asan fuzz fuzz-import fuzz-derive bench install clean unit cli
.DELETE_ON_ERROR:

all: deps-check $(BUILD)/polyapm $(UNIT_BIN) $(DRIVER_BIN)

# `deps` installs what is missing (root) or prints the apt-get line (anyone else).
deps:
	$(call deb_install,$(DEB_PKGS))
deps-fuzz:
	$(call deb_install,$(DEB_FUZZ_PKGS))
deps-bench:
	-$(call deb_install,$(DEB_BENCH_PKGS))

# Cheap check before every build; installs only when something is missing.
deps-check:
	@[ -z "$$($(call deb_missing,$(DEB_PKGS)))" ] || $(MAKE) --no-print-directory deps

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC) -c $< -o $@

$(BUILD)/obj/engine/%.o:     INC = $(INC_engine)
$(BUILD)/obj/transforms/%.o: INC = $(INC_transforms) $(call xf_rooms,$(word 2,$(subst /, ,$<)))
$(BUILD)/obj/transforms/import/%.o: INC = $(INC_transforms) $(call xf_rooms,import) $(CLANG_INC)
$(BUILD)/obj/gen/%.o:        INC = $(INC_transforms) $(call xf_rooms,export)
$(BUILD)/obj/store/%.o:      INC = $(INC_store)
$(BUILD)/obj/tui/app/%.o:    INC = $(INC_app)
$(BUILD)/obj/tui/cli/%.o:    INC = $(INC_cli)
$(BUILD)/obj/tui/%.o:        INC = $(INC_tui)
$(BUILD)/obj/tests/%.o:      INC = $(INC_tests)
# test_xf tests the isl model's internals: the one unit test that sees a family's private header
$(BUILD)/obj/tests/unit/test_xf.o: INC = $(INC_tests) -Itransforms/core $(call xf_rooms,poly) -DPOLYAPM_XF_PRIVATE

$(BUILD)/libengine.a: $(call obj,$(ENGINE_SRC))
	@mkdir -p $(BUILD); rm -f $@; ar rcs $@ $^
$(BUILD)/libxf.a: $(call obj,$(XF_SRC)) $(BUILD)/obj/gen/rt_embed.o
	@mkdir -p $(BUILD); rm -f $@; ar rcs $@ $^

# The runtime sources that `polyapm export` copies next to an exported program, embedded as strings;
# with them engine/intsem.h, the one integer semantics (exported programs include "intsem.h"), and
# engine/crand.h, the C library's random numbers (programs whose inits call crand include it).
RT_EMBED = $(sort $(wildcard runtime/rt*.c runtime/rt*.h)) engine/intsem.h engine/crand.h
$(BUILD)/gen/rt_embed.c: $(RT_EMBED) Makefile
	@mkdir -p $(dir $@)
	@{ echo '/* generated by the Makefile from runtime/: the sources polyapm export copies */'; \
	  echo '#include "export_int.h"'; echo 'const xf_rt_file xf_rt_files[] = {'; \
	  for f in $(RT_EMBED); do \
	    printf '    {"%s",\n' "$$(basename $$f)"; \
	    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/     "/' -e 's/$$/\\n"/' $$f; \
	    echo '    },'; \
	  done; echo '    {0, 0}};'; } >$@
$(BUILD)/obj/gen/rt_embed.o: $(BUILD)/gen/rt_embed.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC_transforms) $(call xf_rooms,export) -c $< -o $@
$(BUILD)/libstore.a: $(call obj,$(STORE_SRC))
	@mkdir -p $(BUILD); rm -f $@; ar rcs $@ $^
$(BUILD)/libapp.a: $(call obj,$(APP_SRC))
	@mkdir -p $(BUILD); rm -f $@; ar rcs $@ $^

# The calibration benchmark's sources, embedded in polyapm as C strings (calibrate writes and builds them).
EMBED_TEXT = sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< >$@
$(BUILD)/gen/calibrate_bench.inc: runtime/calibrate/bench.c
	@mkdir -p $(dir $@)
	$(EMBED_TEXT)
$(BUILD)/gen/calibrate_micro.inc: runtime/calibrate/micro.c
	@mkdir -p $(dir $@)
	$(EMBED_TEXT)
$(BUILD)/gen/calibrate_micro_h.inc: runtime/calibrate/micro.h
	@mkdir -p $(dir $@)
	$(EMBED_TEXT)
$(BUILD)/obj/tui/cli/cmd_calibrate.o: $(BUILD)/gen/calibrate_bench.inc $(BUILD)/gen/calibrate_micro.inc \
    $(BUILD)/gen/calibrate_micro_h.inc

# The engine's identity (a hash of its sources): a stored simulation is answered again only to the
# same simulator and prices (tui/app/ops.c, ops_machine_key_text).
ENGINE_ID_SRC = $(sort $(wildcard engine/*.c engine/*.h))
$(BUILD)/gen/engine_id.h: $(ENGINE_ID_SRC)
	@mkdir -p $(dir $@)
	@echo "#define POLYAPM_ENGINE_ID \"$$(cat $(ENGINE_ID_SRC) | sha1sum | cut -c1-16)\"" >$@
$(BUILD)/obj/tui/app/ops.o: $(BUILD)/gen/engine_id.h
$(BUILD)/obj/tui/app/ops.o: INC = $(INC_app) -I$(BUILD)/gen

$(BUILD)/polyapm: $(call obj,$(CLI_SRC) $(TUI_SRC)) $(LIBS)
	$(CC) $(LDFLAGS) $(call obj,$(CLI_SRC) $(TUI_SRC)) $(LIBS) $(LDLIBS) $(CLANG_LIBS) -o $@

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(LIBS) $(LDLIBS) $(CLANG_LIBS) -o $@

# Test drivers (tests/drivers/*.c: small programs the shell suites run against the libraries),
# built and linked as the unit tests are, so that no script carries its own compile line.
$(BUILD)/tests/drivers/%: $(BUILD)/obj/tests/drivers/%.o $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(LIBS) $(LDLIBS) $(CLANG_LIBS) -o $@

# The include flags of a folder (make -s print-inc FOLDER=tui): what tests compile probes and drivers with.
print-inc:
	@echo $(INC_$(FOLDER))

# The TUI on examples/findiff.apm, in a workspace under the build directory (reopened on later runs).
run: all
	@mkdir -p $(BUILD)/run && cp -n examples/findiff.apm $(BUILD)/run/; $(BUILD)/polyapm $(BUILD)/run/findiff.apm

# Every test: unit programs and the shell suites (command line, TUI via tmux, MPI), TEST_JOBS
# (default 3) at a time, then every verified syndm node they derived exported and run.
# The build runs on every core (after the package check, which may install what the build needs).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test:
	@$(MAKE) --no-print-directory deps-check
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@BUILD=$(BUILD) SAN="$(SAN)" tests/run.sh

check-asan:
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined" test

fuzz: deps-check deps-fuzz
	@mkdir -p $(BUILD)/fuzz/corpus $(BUILD)/fuzz/corpus-sim
	clang -std=c11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -Iengine \
	  tests/fuzz/fuzz_parse.c $(ENGINE_SRC) -lm -o $(BUILD)/fuzz/fuzz_parse
	clang -std=c11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -Iengine \
	  tests/fuzz/fuzz_sim.c $(ENGINE_SRC) -lm -o $(BUILD)/fuzz/fuzz_sim
	cp -n tests/fuzz/corpus/* examples/*.apm examples/thesis/*.apm $(BUILD)/fuzz/corpus/ 2>/dev/null || true
	$(BUILD)/fuzz/fuzz_parse -max_total_time=$${FUZZ_SECONDS:-60} -max_len=4096 -timeout=5 \
	  -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus tests/fuzz/corpus
	$(BUILD)/fuzz/fuzz_sim -max_total_time=$${FUZZ_SECONDS:-60} -max_len=4096 -timeout=10 -rss_limit_mb=4096 \
	  -artifact_prefix=$(BUILD)/fuzz/sim- $(BUILD)/fuzz/corpus-sim tests/fuzz/corpus-sim
	$(MAKE) --no-print-directory fuzz-import
	$(MAKE) --no-print-directory fuzz-derive

# The C importer's fuzzer (tests/fuzz/fuzz_import.c): mutations of tests/import/*.c with C's tokens
# (tests/fuzz/import.dict), FUZZ_SECONDS.
fuzz-import: deps-check deps-fuzz
	@mkdir -p $(BUILD)/fuzz/corpus-import $(BUILD)/fuzz/import-work
	clang -std=c11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -Iengine -Itransforms \
	  -Itransforms/import -DPOLYAPM_XF_PRIVATE $(CLANG_INC) -DIMPORT_TESTS_DIR='"$(CURDIR)/tests/import"' \
	  tests/fuzz/fuzz_import.c $(wildcard transforms/import/*.c) $(ENGINE_SRC) $(CLANG_LIBS) -lm \
	  -o $(BUILD)/fuzz/fuzz_import
	FUZZ_IMPORT_DIR=$(abspath $(BUILD))/fuzz/import-work $(BUILD)/fuzz/fuzz_import \
	  -max_total_time=$${FUZZ_SECONDS:-60} -max_len=4096 -timeout=20 -rss_limit_mb=4096 \
	  -dict=tests/fuzz/import.dict -artifact_prefix=$(BUILD)/fuzz/import- $(BUILD)/fuzz/corpus-import tests/import

# The derive-and-export fuzzer (tests/fuzz/derive): random small programs, random derivation chains,
# every verified syndm node exported and run under mpirun at its procs (FUZZ_SECONDS, FUZZ_JOBS,
# FUZZ_SEED: the first seed, default the time); findings go to $(BUILD)/fuzz/derive-findings.
fuzz-derive: all
	@PATH="$(CURDIR)/tests/mpi/bin:$$PATH" POLYAPM_EXPORT_CACHE="$(abspath $(BUILD))/export-cache" \
	  python3 tests/fuzz/derive/fuzz_derive.py --polyapm $(BUILD)/polyapm --seconds $${FUZZ_SECONDS:-60} \
	  --jobs $${FUZZ_JOBS:-2} --seed $${FUZZ_SEED:-$$(date +%s)} \
	  --work $(BUILD)/fuzz/derive-work --findings $(BUILD)/fuzz/derive-findings

bench: all
	@$(MAKE) --no-print-directory deps-bench
	@BUILD=$(BUILD) tests/bench/run.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 755 $(BUILD)/polyapm $(DESTDIR)$(PREFIX)/bin/polyapm
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	-install -m 644 man/*.7 $(DESTDIR)$(PREFIX)/share/man/man7/

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
