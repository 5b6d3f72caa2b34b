# cabo-kit: `make demo` and `make test` set everything up in .venv on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXTRAS ?= dev
STAMP := $(VENV)/.installed-$(EXTRAS)

.PHONY: setup browser-deps demo test lab bench typecheck golden clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "cabo-kit needs Python 3.10 or newer")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'
	@touch $@

# The card table's browser tests (tests/browser) drive Debian's chromium; install it when we can
# (root with apt-get), else say so: those tests then skip, or fail under CI=true.
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "Installing chromium for the browser tests (apt-get, about 40 s) ..."; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "chromium is missing and this is not root with apt-get: the browser tests will skip (fail under CI=true)" \
	         "(install it: sudo apt-get install chromium)"; \
	  fi; }

demo: $(STAMP)
	$(BIN)/cabo-kit demo

test: $(STAMP) browser-deps
	$(BIN)/python -m pytest -q -p no:randomly
	$(BIN)/python -m mypy

lab:
	$(MAKE) setup EXTRAS=all
	$(BIN)/python -m jupyter lab notebooks/

bench: $(STAMP)
	$(BIN)/python benchmarks/engine_speed.py

golden: $(STAMP)
	$(BIN)/python tests/golden/make_golden.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache *.egg-info
