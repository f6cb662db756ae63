# fsplan — one flat Makefile: objects in build/, flags from pkg-config.
#   make            ./fsplan
#   make deps       install the Debian packages the build, tests and demos need
#   make check      deps, an -Werror ASan/UBSan build, the Criterion suite
#   make demo       run plans/demo.yaml and print its report
#   make fuzz       libFuzzer on the plan loader and the worker API (FUZZ_SECONDS each)
#   make bench      the benchmarks in bench/
#   make install    PREFIX=/usr/local

VERSION  := 0.1.0
PREFIX   ?= /usr/local
DATADIR  ?= $(PREFIX)/share/fsplan
BUILD    ?= build
PKGS     := yaml-0.1 lua5.4 liburing libcap jansson blkid sqlite3

CC       ?= cc
WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wwrite-strings
CFLAGS   ?= -O2 -g
# A struct's zeroing (struct engine_req, 128 bytes, on every op) inline
# as vector stores: GCC's generic x86-64 tuning makes it a rep stos,
# whose start-up alone was two thirds of f:read's own time.
MEMSET   := -mmemset-strategy=vector_loop:256:noalign,libcall:-1:noalign
TUNE     := $(shell $(CC) $(MEMSET) -c -o /dev/null -x c /dev/null \
              2>/dev/null && echo '$(MEMSET)')
CPPFLAGS += -std=c11 -D_GNU_SOURCE -MMD -MP -Iinterp -Iengines \
            -DFSPLAN_VERSION='"$(VERSION)"' -DFSPLAN_DATADIR='"$(DATADIR)"' \
            $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS   += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm

# interp/ by layer (DESIGN.md section 7); headers included by path
LAYERS   := cli plan cells run host phase results report util
SRCS     := $(foreach l,$(LAYERS),$(wildcard interp/$(l)/*.c)) \
            $(wildcard engines/*.c)
LIB_SRCS := $(filter-out interp/cli/%.c,$(SRCS))
OBJS     := $(SRCS:%.c=$(BUILD)/%.o)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
TEST_SRCS := $(wildcard tests/test_*.c tests/reliability/test_*.c) tests/e2e.c

# The sanitizer build that `make check` tests.
SAN      ?= build/san
SANFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
            -fno-sanitize-recover=undefined -Werror

ifeq ($(V),1)
Q :=
else
Q := @
endif

.PHONY: all deps check test demo fuzz bench install clean

all: fsplan

# cp then rename: a running ./fsplan keeps its old file ("Text file busy")
fsplan: $(BUILD)/fsplan
	$(Q)cp $< $@.tmp && mv -f $@.tmp $@

$(BUILD)/fsplan: $(OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(TUNE) -c -o $@ $<

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(CC) $(CPPFLAGS) $(WARN) -Wno-missing-prototypes $(CFLAGS) -c -o $@ $<

$(BUILD)/fsplan-tests: $(LIB_OBJS) $(TEST_SRCS:%.c=$(BUILD)/%.o)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcriterion

-include $(OBJS:.o=.d) $(TEST_SRCS:%.c=$(BUILD)/%.d) \
	$(LIB_SRCS:%.c=build/fuzz/%.d)

# ---- packages ------------------------------------------------------------

DEB_PKGS := build-essential pkg-config libyaml-dev liblua5.4-dev \
            liburing-dev libcap-dev libcriterion-dev libjansson-dev \
            libblkid-dev e2fsprogs xfsprogs btrfs-progs util-linux \
            bonnie++ dbench fio time clang libclang-rt-14-dev \
            groff-base mandoc mariadb-server sysbench chromium \
            fonts-dejavu-core tidy slurm-wlm munge parallel python3-yaml \
            procps libsqlite3-dev

# Service packages (mariadb-server; munge, slurmctld, slurmd, which the
# scale-out test starts itself) must leave no daemon running or enabled:
# a policy-rc.d refuses every start while apt installs (unless the machine
# has one already), and mariadb is disabled after it.
deps:
	@missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		if [ "$$(id -u)" != 0 ]; then \
			echo "make deps: run as root (sudo make deps)" >&2; exit 1; \
		fi; \
		policy=/usr/sbin/policy-rc.d; made=; \
		if [ ! -e $$policy ]; then \
			printf '#!/bin/sh\nexit 101\n' > $$policy && \
			chmod 755 $$policy && made=1; \
		fi; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends \
			$$missing; rc=$$?; \
		[ -z "$$made" ] || rm -f $$policy; \
		case " $$missing " in *" mariadb-server "*) \
			systemctl disable --now mariadb >/dev/null 2>&1 || :; \
			update-rc.d mariadb disable >/dev/null 2>&1 || :; \
		esac; \
		exit $$rc; \
	fi

# ---- tests ---------------------------------------------------------------

check: deps
	$(Q)bash tests/layers.sh interp
	$(Q)bash tests/sizes.sh
	$(Q)$(MAKE) --no-print-directory BUILD=$(SAN) CFLAGS="$(SANFLAGS)" \
		LDFLAGS="-fsanitize=address,undefined" \
		$(SAN)/fsplan $(SAN)/fsplan-tests
	$(Q)$(MAKE) --no-print-directory test BUILD=$(SAN)
	$(Q)FSPLAN_BIN=$(CURDIR)/$(SAN)/fsplan sh tests/man-lint.sh man

# Criterion forks each test; ASan's leak check runs in every child.
# The whole output goes to $(BUILD)/test.log too; when a test fails, what
# failed is printed again at the end, where a CI log's tail shows it.
TESTLOG = $(CURDIR)/$(BUILD)/test.log
test:
	$(Q)cd tests && { FSPLAN_BIN=$(CURDIR)/$(BUILD)/fsplan \
		FSPLAN_LIB=$(CURDIR)/lua FSPLAN_ROOT=$(CURDIR) \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(CURDIR)/$(BUILD)/fsplan-tests --jobs=2 $(TESTFLAGS) 2>&1; \
		echo $$? > $(TESTLOG).rc; } | tee $(TESTLOG); \
	rc=$$(cat $(TESTLOG).rc); rm -f $(TESTLOG).rc; \
	if [ "$$rc" != 0 ]; then \
		echo "---- what failed (the whole output: $(TESTLOG)) ----"; \
		grep -E -A2 '^\[----\].*(Assert|CRASH|crash|signal|Timed)|Sanitizer|runtime error' \
			$(TESTLOG) | grep -v -E '^\[----\] *$$|^\[FAIL\]' | \
			cut -c1-300 | tail -n 40; \
		grep -E '^\[FAIL\]|crashed' $(TESTLOG); \
	fi; exit $$rc

# ---- demo, fuzz, bench ---------------------------------------------------

# Runs as root (it makes and mounts loop images); the phases run as nobody.
# About five minutes: plans/demo.yaml over ext4 and xfs, its bonnie++
# lines through bon_csv2txt, then the report.
demo: deps fsplan
	./fsplan check plans/demo.yaml
	@d=results/demo-$$(date +%Y%m%d-%H%M%S); \
	echo "./fsplan run plans/demo.yaml -o $$d"; \
	./fsplan run plans/demo.yaml -o $$d; rc=$$?; \
	if [ -s $$d/bonnie.csv ]; then \
		echo; echo "== bon_csv2txt < $$d/bonnie.csv"; \
		bon_csv2txt < $$d/bonnie.csv; \
	fi; \
	echo; echo "== ./fsplan report $$d"; \
	./fsplan report $$d; exit $$rc

FUZZ         := build/fuzz
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS  := -O1 -g -fsanitize=fuzzer-no-link,address,undefined \
                -fno-sanitize-recover=undefined

$(FUZZ)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CLANG   $@"
	$(Q)clang $(CPPFLAGS) $(FUZZ_CFLAGS) -c -o $@ $<

$(FUZZ)/fuzz_plan: $(LIB_SRCS:%.c=$(FUZZ)/%.o) $(FUZZ)/tests/fuzz/fuzz_plan.o
	@echo "  LD      $@"
	$(Q)clang -fsanitize=fuzzer,address,undefined -o $@ $^ $(LDLIBS)

$(FUZZ)/fuzz_workerapi: $(LIB_SRCS:%.c=$(FUZZ)/%.o) $(FUZZ)/tests/fuzz/fuzz_workerapi.o
	@echo "  LD      $@"
	$(Q)clang -fsanitize=fuzzer,address,undefined -o $@ $^ $(LDLIBS)

# Both targets, FUZZ_SECONDS each: the plan loader, and the worker and
# file API on a tmpfs work directory (/dev/shm, removed at exit).
fuzz: deps $(FUZZ)/fuzz_plan $(FUZZ)/fuzz_workerapi
	@mkdir -p $(FUZZ)/corpus $(FUZZ)/corpus-workerapi
	$(Q)cp -n plans/*.yaml examples/*.yaml tests/fixtures/*.yaml \
		tests/fixtures/bad/*.yaml $(FUZZ)/corpus/ 2>/dev/null || true
	cd $(FUZZ) && FSPLAN_LIB=$(CURDIR)/lua ./fuzz_plan \
		-dict=$(CURDIR)/tests/fuzz/plan.dict \
		-max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 \
		-rss_limit_mb=2048 corpus $(CURDIR)/tests/fuzz/regressions
	cd $(FUZZ) && ./fuzz_workerapi -max_total_time=$(FUZZ_SECONDS) \
		-max_len=512 -timeout=20 -rss_limit_mb=2048 corpus-workerapi

# bench/limit: the minimal liburing loop bench/limit.sh measures against
$(BUILD)/limit: bench/limit.c bench/timing.h
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -o $@ $< \
		$(shell pkg-config --cflags --libs liburing 2>/dev/null)

# bench/lualimit: the same reads from bench/randread_ops.lua in a bare
# Lua state (the floor under fsplan's Lua runtime, for bench/limit.sh)
$(BUILD)/lualimit: bench/lualimit.c bench/timing.h
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -o $@ $< \
		$(shell pkg-config --cflags --libs lua5.4 liburing 2>/dev/null)

# bench/fsyncloop: bench/fsyncloop.lua's loop in plain C (bench/fio.sh's
# floor under fsplan's fsync loop)
$(BUILD)/fsyncloop: bench/fsyncloop.c bench/timing.h
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -o $@ $<

# bench/agebench: age_run on a directory, for bench/agecost.sh
AGE_OBJS := $(addprefix $(BUILD)/interp/,host/age.o util/diag.o \
              util/strbuf.o util/sha256.o util/sha256ni.o util/grow.o \
              util/file.o)
$(BUILD)/agebench: bench/agebench.c $(AGE_OBJS)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(CC) $(CPPFLAGS) $(WARN) -O2 -o $@ $^ -lm

# each bench prints its own figures and notes its ratios (bench/note.awk);
# the one table of them all comes last (bench/summary.awk)
bench: fsplan $(BUILD)/limit $(BUILD)/lualimit $(BUILD)/agebench \
		$(BUILD)/fsyncloop
	$(Q)s=$$(mktemp); for b in bench/*.sh; do \
		BENCH_SUMMARY=$$s BENCH_NAME=$$(basename $$b .sh) bash $$b || \
			{ rm -f $$s; exit 1; }; \
	done; awk -f bench/summary.awk $$s; rm -f $$s

# ---- install -------------------------------------------------------------

# The binary, the phase library it looks for in $(DATADIR)/lua, the man
# pages, and the plans and examples the pages point to; DESTDIR stages it.
MANDIR   ?= $(PREFIX)/share/man
DOCDIR   ?= $(PREFIX)/share/doc/fsplan
MANPAGES := man/fsplan.1 man/fsplan-plan.5 man/fsplan-lua.7

.PHONY: uninstall

# The binary has $(DATADIR) built in, so it is built for it, in a build
# directory of its own: ./fsplan may have been built for another PREFIX.
INSTALL_BUILD = $(BUILD)/install$(subst /,-,$(DATADIR))

install:
	$(Q)$(MAKE) --no-print-directory BUILD=$(INSTALL_BUILD) \
		DATADIR=$(DATADIR) $(INSTALL_BUILD)/fsplan
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(DATADIR)/lua \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(DOCDIR)/plans \
		$(DESTDIR)$(DOCDIR)/examples
	install -m 755 $(INSTALL_BUILD)/fsplan $(DESTDIR)$(PREFIX)/bin/fsplan
	cp -r lua/. $(DESTDIR)$(DATADIR)/lua/
	for p in $(MANPAGES); do \
		install -m 644 $$p $(DESTDIR)$(MANDIR)/man$${p##*.}/ || exit 1; \
	done
	install -m 644 plans/*.yaml $(DESTDIR)$(DOCDIR)/plans/
	cp -r examples/. $(DESTDIR)$(DOCDIR)/examples/

# Removes what install put there, by the names in this tree, and then
# the directories that are left empty.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/fsplan
	for p in $(MANPAGES); do \
		rm -f $(DESTDIR)$(MANDIR)/man$${p##*.}/$${p#man/}; \
	done
	for f in $$(cd lua && find . -type f); do \
		rm -f "$(DESTDIR)$(DATADIR)/lua/$$f"; \
	done
	for f in plans/*.yaml $$(find examples -type f); do \
		rm -f "$(DESTDIR)$(DOCDIR)/$$f"; \
	done
	find $(DESTDIR)$(DATADIR)/lua $(DESTDIR)$(DOCDIR)/examples -depth \
		-mindepth 1 -type d -empty -delete 2>/dev/null || true
	find $(DESTDIR)$(DATADIR)/lua -depth -type d -empty -delete 2>/dev/null || true
	rmdir $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)/plans \
		$(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man7 2>/dev/null || true

clean:
	rm -rf build fsplan
