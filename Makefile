# attnviz - build, demo, tests.
#   make          build ./attnviz (pkg-config, warnings on, never -ffast-math)
#   make demo     install missing packages, build, run the demo sentence
#   make test     install missing packages, build, run every test
#   make test SANITIZE=1   the same under -fsanitize=address,undefined (build/san);
#                 a sanitizer report fails the run (see "sanitizers" below)
#   make fuzz     build the libFuzzer targets (clang) and run each FUZZ_SECONDS
#                 (default 60) over its corpus in tests/fuzz/; FUZZ_SECONDS=0 replays
#   make memcheck valgrind on the demo and on error paths (scripts/memcheck.sh)
#   make bench    print speed and memory figures
#   make install  the binary, its man page, assets/ and docs/conventions.md (the
#                 file --help names) under $(DESTDIR)$(PREFIX) (PREFIX default
#                 /usr/local); make uninstall removes them

CC      ?= cc
PKGS    := libpng libisal freetype2 fontconfig openblas libutf8proc libcjson libpcre2-8 harfbuzz fribidi raqm zlib
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN    := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-overlength-strings
OPT     ?= -O2 -g
# -ffp-contract=off: no fused multiply-add, so the same command gives the
# same bits on every x86-64 / arm64 machine. Never -ffast-math.
FPFLAGS := -ffp-contract=off -fno-fast-math
# Let gcc vectorise plain element-wise loops at -O2. Without -ffast-math it
# never reorders a sum, so the bits stay the same; only the speed changes.
VECFLAGS := $(shell $(CC) -fvect-cost-model=dynamic -x c -c /dev/null -o /dev/null 2>/dev/null && echo -fvect-cost-model=dynamic)
ifeq ($(SANITIZE),1)
  OPT   := -O1 -g -fno-omit-frame-pointer
  SAN   := -fsanitize=address,undefined -fno-sanitize-recover=all
  BUILD := build/san
else
  BUILD := build/rel
endif
# OpenBLAS gives its headers only: nn/attention_blas.c opens the library with
# dlopen when sgemm is first needed, so a run on the reference kernel (and
# --help, --version) never loads it. bench/ calls cblas_sgemm itself and links
# it (BLAS_LIBS).
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(filter-out openblas,$(PKGS)) 2>/dev/null)
BLAS_LIBS  := $(shell pkg-config --libs openblas 2>/dev/null || echo -lopenblas)
CFLAGS  += $(CSTD) $(WARN) $(OPT) $(FPFLAGS) $(VECFLAGS) $(SAN) $(PKG_CFLAGS) -pthread -Isrc
LDLIBS  += $(PKG_LIBS) -lgif -lm -pthread
LDFLAGS += $(SAN)

# src/ is layered (see src/README.md): base, io, text, nn, render, app.
LAYERS    := base io text nn render app
LIB_SRCS  := $(filter-out src/app/main.c,$(foreach l,$(LAYERS),$(wildcard src/$(l)/*.c)))
LIB_OBJS  := $(LIB_SRCS:src/%.c=$(BUILD)/%.o) $(BUILD)/gen/html_assets.o
DEPS       = $(LIB_OBJS:.o=.d) $(BUILD)/app/main.d $(TEST_BINS:=.d)
TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
TEST_SHIMS := $(BUILD)/tests/shim_env.so $(BUILD)/tests/shim_noblas.so $(BUILD)/tests/shim_swap.so \
              $(BUILD)/tests/shim_truncate.so $(BUILD)/tests/shim_sgemm.so \
              $(BUILD)/tests/shim_signal.so $(BUILD)/tests/shim_nomem.so
ifeq ($(SANITIZE),1)
  BIN := $(BUILD)/attnviz
else
  BIN := attnviz
endif

.PHONY: all deps deps-test deps-bench demo test check bench clean figures train-figures memcheck fuzz fuzz-build install uninstall
all: $(BIN)

# ---------------------------------------------------------------------------- data folder
# The binary looks for its data (assets/: fonts, sentences, example weights)
# in $(DATADIR) first, then next to itself (src/app/assets.h). DATADIR is
# compiled into app/assets.o; the stamp rebuilds it when PREFIX changes.
PREFIX  ?= /usr/local
DATADIR := $(PREFIX)/share/attnviz
MANDIR  := $(PREFIX)/share/man/man1
DOCDIR  := $(PREFIX)/share/doc/attnviz
$(BUILD)/datadir.stamp: FORCE | $(BUILD)
	@echo '$(DATADIR)' | cmp -s - $@ || echo '$(DATADIR)' >$@
$(BUILD)/app/assets.o: $(BUILD)/datadir.stamp
$(BUILD)/app/assets.o: CFLAGS += -DAV_DATADIR='"$(DATADIR)"'
FORCE:

# -MMD -MP: each object depends on the headers it really includes.
$(BUILD)/%.o: src/%.c | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(DEPS)

# The interactive page's template, CSS and JavaScript (src/render/html/) are
# compiled in as C arrays, so the one binary is enough at run time.
HTML_ASSETS := av_html_template=src/render/html/page.html av_html_css=src/render/html/page.css \
               av_html_js=src/render/html/page.js
$(BUILD)/gen/html_assets.c: $(foreach a,$(HTML_ASSETS),$(lastword $(subst =, ,$(a)))) scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh $@ $(HTML_ASSETS)

$(BUILD)/gen/html_assets.o: $(BUILD)/gen/html_assets.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# The softmax loops (fastexp.h) are worth vectorising (VECFLAGS above lets
# GCC's cost model try), and without -fno-trapping-math GCC will not turn their
# float selects into blends. That does not change a value: vectorising never
# reorders a floating-point sum here, and no code reads the exception flags.
$(BUILD)/nn/flash.o $(BUILD)/nn/attention_blas.o $(BUILD)/nn/gpt2_batch.o: CFLAGS += -fno-trapping-math
# embed.c's batch of normals likewise; -fno-math-errno lets sqrt be the
# instruction (the same correctly rounded value) inside a vectorised loop.
# The same for optim.c's AdamW loop (its square root is of v >= 0).
$(BUILD)/nn/embed.o: CFLAGS += -fno-trapping-math -fno-math-errno
$(BUILD)/nn/optim.o: CFLAGS += -fno-math-errno

$(BUILD)/libattnviz.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

$(BIN): $(BUILD)/app/main.o $(BUILD)/libattnviz.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD):
	mkdir -p $(BUILD)/tests

$(BUILD)/tests/%: tests/%.c tests/testutil.h $(BUILD)/libattnviz.a | $(BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP $(shell pkg-config --cflags cmocka 2>/dev/null) -Itests -o $@ $< $(BUILD)/libattnviz.a \
	    $(LDFLAGS) $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka) $(LDLIBS)

# LD_PRELOAD libraries some tests run the binary with (tests/shim_*.c), never
# sanitized: they only replace a few library functions. shim_env hands
# attnviz its own handle in place of OpenBLAS's, so it needs OpenBLAS
# (SHIM_LIBS; --no-as-needed keeps it though the shim calls none of it).
$(BUILD)/tests/shim_env.so: SHIM_LIBS := -Wl,--no-as-needed $(BLAS_LIBS)
$(BUILD)/tests/shim_sgemm.so: SHIM_LIBS := -Wl,--no-as-needed $(BLAS_LIBS)
$(BUILD)/tests/%.so: tests/%.c | $(BUILD)
	$(CC) $(CSTD) $(WARN) -O1 -g -shared -fPIC -o $@ $< -ldl $(SHIM_LIBS)

# What running needs (make demo), and what the tests need on top (make test).
deps:
	@sh scripts/install-deps.sh run
deps-test:
	@sh scripts/install-deps.sh test
deps-bench:
	@sh scripts/install-deps.sh bench

# The demo sentence is the first of assets/sentences.txt.
DEMO_SENTENCE := $(shell grep -v '^\#' assets/sentences.txt | head -n 1)
demo: deps
	@$(MAKE) --no-print-directory all
	./attnviz --heads 8 "$(DEMO_SENTENCE)"

# The browser tests' npm package (puppeteer-core, pinned by package-lock.json).
BROWSER_MODULES := tests/browser/node_modules/puppeteer-core/package.json
$(BROWSER_MODULES): tests/browser/package.json tests/browser/package-lock.json
	cd tests/browser && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# Every test binary runs even if an earlier one fails; the summary line counts them.
# scripts/check-install.sh then installs into a temporary DESTDIR and draws a
# figure with that binary and no system fonts.
test: deps-test
	@$(MAKE) --no-print-directory $(BROWSER_MODULES)
	@sh scripts/check-layers.sh
	@$(MAKE) --no-print-directory $(BIN) $(TEST_BINS) $(TEST_SHIMS)
	@$(RUN_TESTS)
	@BIN=$(BIN) sh scripts/check-install.sh

# ---------------------------------------------------------------------------- install
# make install [PREFIX=/usr/local] [DESTDIR=]: bin/attnviz, share/man/man1/attnviz.1,
# share/attnviz/ (fonts with their licence, sentences.txt, weights/), share/doc/attnviz/conventions.md.
ASSETS := $(shell find assets -type f | LC_ALL=C sort)
# Every path is quoted: a DESTDIR with a space ("/tmp/stage x") made `install -d /tmp/stage x/usr/bin` (a
# folder x/ in the tree) and `rm -rf /tmp/stage x/usr/share/attnviz` (all of /tmp/stage) (a packager's pass).
install: $(BIN)
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(MANDIR)"
	install -m 755 $(BIN) "$(DESTDIR)$(PREFIX)/bin/attnviz"
	install -m 644 docs/attnviz.1 "$(DESTDIR)$(MANDIR)/attnviz.1"
	install -d "$(DESTDIR)$(DOCDIR)"
	install -m 644 docs/conventions.md "$(DESTDIR)$(DOCDIR)/conventions.md"
	for f in $(ASSETS:assets/%=%); do \
	    install -d "$(DESTDIR)$(DATADIR)/$$(dirname $$f)" && \
	    install -m 644 "assets/$$f" "$(DESTDIR)$(DATADIR)/$$f" || exit 1; \
	done

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/attnviz" "$(DESTDIR)$(MANDIR)/attnviz.1"
	rm -rf "$(DESTDIR)$(DATADIR)" "$(DESTDIR)$(DOCDIR)"

check: test

# ---------------------------------------------------------------------------- sanitizers
# With SANITIZE=1 every process of the suite (test binaries and the attnviz
# they start) exits 86 on a sanitizer report, so a report cannot pass as the
# expected exit code 1 or 2 of an error-path test. AddressSanitizer and
# LeakSanitizer reports also go to files in $(SAN_LOGS), and the run fails if
# any was written, whatever the test checked. (UBSan reports stay on stderr:
# gcc's combined asan+ubsan runtime ignores log_path for them; exit 86 and
# the test binary's own log still show them.)
SAN_LOGS := $(CURDIR)/$(BUILD)/sanitizer-logs
SAN_ENV  := ASAN_OPTIONS=detect_leaks=1:exitcode=86:log_path=$(SAN_LOGS)/asan:strict_string_checks=1:detect_stack_use_after_return=1 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86:log_path=$(SAN_LOGS)/ubsan \
            LSAN_OPTIONS=exitcode=86
ifeq ($(SANITIZE),1)
  RUN_TESTS = rm -rf $(SAN_LOGS) && mkdir -p $(SAN_LOGS) && \
      { $(SAN_ENV) sh tests/run_tests.sh $(BUILD) $(BIN); rc=$$?; \
        if [ -n "$$(ls -A $(SAN_LOGS))" ]; then \
          echo "sanitizer reports in $(SAN_LOGS):"; cat $(SAN_LOGS)/*; rc=1; \
        else echo "sanitizers: no reports"; fi; exit $$rc; }
else
  RUN_TESTS = sh tests/run_tests.sh $(BUILD) $(BIN)
endif

# ---------------------------------------------------------------------------- fuzzing
# libFuzzer targets, always clang with address+undefined; sources per target.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= tokenize args npy safetensors bpe hftok
FUZZ_DIR     := build/fuzz
FUZZ_CFLAGS  := $(CSTD) -g -O1 -fno-omit-frame-pointer $(FPFLAGS) \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Isrc
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)

# Per-target libraries: FUZZ_LIBS_<target>.
$(FUZZ_DIR)/fuzz_tokenize: src/text/tokenize.c src/base/utf8.c src/base/common.c
FUZZ_LIBS_tokenize := $(shell pkg-config --cflags --libs libutf8proc 2>/dev/null || echo -lutf8proc)
# cli.c's av_options_config checks the layer configuration (nn/model.c), which links the kernels;
# --title and --prefix are checked as UTF-8 text (base/utf8.c); its warnings print through app/term.c; a
# --weights folder's width is read for the --heads hint (io/npy.c, io/fileio.c); --train's defaults give the
# --head hint's d_model (app/train_defaults.c).
$(FUZZ_DIR)/fuzz_args: src/app/cli.c src/render/colormap.c src/nn/tasks.c src/nn/optim.c src/nn/embed.c src/base/common.c \
    src/nn/model.c src/nn/attention.c src/nn/attention_blas.c src/nn/flash.c src/base/parallel.c src/base/utf8.c \
    src/app/term.c src/app/teach.c src/text/tokenize.c src/io/npy.c src/io/fileio.c src/app/train_defaults.c
FUZZ_LIBS_args := $(shell pkg-config --cflags openblas 2>/dev/null) \
                  $(shell pkg-config --cflags --libs libutf8proc 2>/dev/null || echo -lutf8proc) -lpthread
$(FUZZ_DIR)/fuzz_npy: src/io/npy.c src/io/fileio.c src/base/utf8.c src/base/common.c
FUZZ_LIBS_npy := $(shell pkg-config --cflags --libs libutf8proc 2>/dev/null || echo -lutf8proc)
$(FUZZ_DIR)/fuzz_safetensors: src/io/safetensors.c src/io/jsonval.c src/base/utf8.c src/io/fileio.c src/base/common.c
FUZZ_LIBS_safetensors := $(shell pkg-config --cflags --libs libcjson libutf8proc 2>/dev/null || echo -lcjson -lutf8proc)
$(FUZZ_DIR)/fuzz_bpe: src/text/bpe.c src/text/bpe_files.c src/text/tokenize.c src/io/jsonval.c src/base/utf8.c src/io/fileio.c src/base/common.c
FUZZ_LIBS_bpe := $(shell pkg-config --cflags --libs libutf8proc libcjson libpcre2-8 zlib 2>/dev/null || echo -lutf8proc -lcjson -lpcre2-8 -lz)
$(FUZZ_DIR)/fuzz_hftok: src/text/hftok.c src/text/bpe.c src/text/bpe_files.c src/text/tokenize.c src/io/jsonval.c src/base/utf8.c \
                        src/io/fileio.c src/base/common.c
FUZZ_LIBS_hftok := $(FUZZ_LIBS_bpe)
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard src/*/*.h)
	@mkdir -p $(FUZZ_DIR)
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { echo "attnviz: error: make fuzz needs clang with libFuzzer; run: sh scripts/install-deps.sh fuzz" >&2; exit 1; }
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(WARN) -o $@ $(filter %.c,$^) $(FUZZ_LIBS_$*) -lm

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@sh scripts/fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# ---------------------------------------------------------------------------- valgrind
# The release build (-O2 -g) under valgrind: demo and error paths.
memcheck: deps-test
	@$(MAKE) --no-print-directory attnviz
	@sh scripts/memcheck.sh ./attnviz

# ---------------------------------------------------------------------------- docs and figures
# Regenerates docs/figures/ and the command outputs embedded in README.md and
# docs/tutorial*.md (scripts/excerpts.sh), with the release build.
figures: deps
	@$(MAKE) --no-print-directory attnviz $(BROWSER_MODULES)
	@sh scripts/figures.sh

# The "watch attention learn" chapter (docs/train.md, docs/train.zh.md):
# trains 7 small models and the ~30 runs of the reverse options table
# (scripts/train_options.sh, about 20 minutes in all), so it is not part of `make figures`.
train-figures: deps-bench
	@$(MAKE) --no-print-directory attnviz
	@sh scripts/train_figures.sh

# ---------------------------------------------------------------------------- benchmark
# Prints speed and memory figures; judges nothing (no timed tests).
# -MMD -MP: each program depends on the headers it really includes
# (bench_gpt2 includes the test fixtures, hence -Itests).
BENCH_BINS := $(BUILD)/bench $(BUILD)/bench_gpt2 $(BUILD)/bench_train
$(BENCH_BINS): $(BUILD)/%: bench/%.c $(BUILD)/libattnviz.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -Itests -o $@ $< $(BUILD)/libattnviz.a $(LDFLAGS) $(LDLIBS) $(BLAS_LIBS)

-include $(BENCH_BINS:=.d)

bench: deps-bench
	@$(MAKE) --no-print-directory attnviz $(BENCH_BINS)
	@$(BUILD)/bench ./attnviz
	@$(BUILD)/bench_gpt2 ./attnviz
	@$(BUILD)/bench_train ./attnviz

clean:
	rm -rf build attnviz
