# polyapm — top-level build.
#
#   make run         install missing Debian packages (as root), build, open the TUI on an example
#   make test        build and run every test (unit, command line, TUI, MPI)
#   make check-asan  the whole suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make fuzz        a bounded libFuzzer run of the parser (FUZZ_SECONDS, default 60)
#   make bench       benchmarks, printing ratios measured side by side in one run
#   make install PREFIX=/usr/local    make clean    make deps
#
# Sources are found by wildcard: engine/*.c -> libengine.a, transforms/*.c -> libxf.a,
# store/*.c -> libstore.a, tui/*.c -> the polyapm binary; tests/unit/*.c -> one test program each.

BUILD    ?= build
PREFIX   ?= /usr/local
CC       ?= cc
OPT      ?= -O2 -g
SAN      ?=
CFLAGS   += -std=c11 $(OPT) $(SAN) -Wall -Wextra -D_GNU_SOURCE -MMD -MP \
            -Iengine -Itransforms -Istore -Itui -I$(BUILD)/gen
LDLIBS   += -lgit2 -lsqlite3 -lncursesw -ltinfo -lisl -lgmp -lpthread -lm
LDFLAGS  += $(SAN)

# Debian packages the build, the tests and `make run` need.
DEB_PKGS  = build-essential pkg-config libncurses-dev libsqlite3-dev sqlite3 libgit2-dev libisl-dev \
            libgmp-dev openmpi-bin libopenmpi-dev tmux git clang libclang-rt-14-dev python3 bc time \
            gnuplot-nox
DEB_MISSING = dpkg-query -W -f='$${Package} $${Status}\n' $(DEB_PKGS) 2>&1 | \
            awk '/no packages found matching/ {print $$NF; next} !/install ok installed/ {print $$1}'

ENGINE_SRC = $(wildcard engine/*.c)
XF_SRC     = $(wildcard transforms/*.c)
STORE_SRC  = $(wildcard store/*.c)
TUI_SRC    = $(wildcard tui/*.c)
UNIT_SRC   = $(wildcard tests/unit/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
LIBS = $(BUILD)/libstore.a $(BUILD)/libxf.a $(BUILD)/libengine.a
UNIT_BIN = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

.PHONY: all deps run test check-asan fuzz bench install clean unit cli
.DELETE_ON_ERROR:

all: deps-check $(BUILD)/polyapm $(UNIT_BIN)

# `deps` installs what is missing (root) or prints the apt-get line (anyone else).
deps:
	@missing=$$($(DEB_MISSING)); \
	if [ -z "$$missing" ]; then echo "deps: all present"; exit 0; fi; \
	echo "deps: missing" $$missing; \
	if [ "$$(id -u)" = 0 ]; then \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "run as root:  apt-get update && apt-get install -y" $$missing; exit 1; fi

# Cheap check before every build; installs only when something is missing.
deps-check:
	@[ -z "$$($(DEB_MISSING))" ] || $(MAKE) --no-print-directory deps

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libengine.a: $(call obj,$(ENGINE_SRC))
	@mkdir -p $(BUILD); rm -f $@; ar rcs $@ $^
$(BUILD)/libxf.a: $(call obj,$(XF_SRC))
	@mkdir -p $(BUILD); rm -f $@; ar rcs $@ $^
$(BUILD)/libstore.a: $(call obj,$(STORE_SRC))
	@mkdir -p $(BUILD); rm -f $@; ar rcs $@ $^

# The calibration benchmark's source, embedded in polyapm as a C string (calibrate builds it).
$(BUILD)/gen/calibrate_bench.inc: runtime/calibrate/bench.c
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< >$@
$(BUILD)/obj/tui/cmd_calibrate.o: $(BUILD)/gen/calibrate_bench.inc

$(BUILD)/polyapm: $(call obj,$(TUI_SRC)) $(LIBS)
	$(CC) $(LDFLAGS) $(call obj,$(TUI_SRC)) $(LIBS) $(LDLIBS) -o $@

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(LIBS) $(LDLIBS) -o $@

# The TUI on examples/findiff.apm, in a workspace under the build directory (reopened on later runs).
run: all
	@mkdir -p $(BUILD)/run && cp -n examples/findiff.apm $(BUILD)/run/; $(BUILD)/polyapm $(BUILD)/run/findiff.apm

# Every test: unit programs, then the shell suites (command line, TUI via tmux, MPI).
test: all
	@BUILD=$(BUILD) tests/run.sh

check-asan:
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined" test

fuzz: deps-check
	@mkdir -p $(BUILD)/fuzz
	clang -std=c11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -Iengine \
	  tests/fuzz/fuzz_parse.c $(ENGINE_SRC) -lm -o $(BUILD)/fuzz/fuzz_parse
	@mkdir -p $(BUILD)/fuzz/corpus
	cp -n tests/fuzz/corpus/* examples/*.apm examples/thesis/*.apm $(BUILD)/fuzz/corpus/ 2>/dev/null || true
	$(BUILD)/fuzz/fuzz_parse -max_total_time=$${FUZZ_SECONDS:-60} -max_len=4096 -timeout=5 \
	  -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus tests/fuzz/corpus

bench: all
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
