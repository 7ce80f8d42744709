# attnviz - build, demo, tests.
#   make          build ./attnviz (pkg-config, warnings on, never -ffast-math)
#   make demo     install missing packages, build, run the demo sentence
#   make test     install missing packages, build, run every test
#   make test SANITIZE=1   the same under -fsanitize=address,undefined
#   make bench    print speed and memory figures

CC      ?= cc
PKGS    := libpng freetype2 fontconfig
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN    := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-overlength-strings
OPT     ?= -O2 -g
# -ffp-contract=off: no fused multiply-add, so the same command gives the
# same bits on every x86-64 / arm64 machine. Never -ffast-math.
FPFLAGS := -ffp-contract=off -fno-fast-math
ifeq ($(SANITIZE),1)
  OPT   := -O1 -g -fno-omit-frame-pointer
  SAN   := -fsanitize=address,undefined -fno-sanitize-recover=all
  BUILD := build/san
else
  BUILD := build/rel
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS  += $(CSTD) $(WARN) $(OPT) $(FPFLAGS) $(SAN) $(PKG_CFLAGS) -Isrc
LDLIBS  += $(PKG_LIBS) -lm
LDFLAGS += $(SAN)

LIB_SRCS  := $(filter-out src/main.c,$(wildcard src/*.c))
LIB_OBJS  := $(LIB_SRCS:src/%.c=$(BUILD)/%.o)
TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
ifeq ($(SANITIZE),1)
  BIN := $(BUILD)/attnviz
else
  BIN := attnviz
endif

.PHONY: all deps demo test check bench clean figures memcheck fuzz
all: $(BIN)

$(BUILD)/%.o: src/%.c $(wildcard src/*.h) | $(BUILD)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libattnviz.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

$(BIN): $(BUILD)/main.o $(BUILD)/libattnviz.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD):
	mkdir -p $(BUILD)/tests

$(BUILD)/tests/%: tests/%.c tests/testutil.h $(BUILD)/libattnviz.a | $(BUILD)
	$(CC) $(CFLAGS) $(shell pkg-config --cflags cmocka 2>/dev/null) -Itests -o $@ $< $(BUILD)/libattnviz.a \
	    $(LDFLAGS) $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka) $(LDLIBS)

deps:
	@sh scripts/install-deps.sh

demo: deps
	@$(MAKE) --no-print-directory all
	./attnviz --heads 8 "I love deep learning"

# Every test binary runs even if an earlier one fails; the summary line counts them.
test: deps
	@$(MAKE) --no-print-directory $(BIN) $(TEST_BINS)
	@sh tests/run_tests.sh $(BUILD) $(BIN)

check: test

clean:
	rm -rf build attnviz
