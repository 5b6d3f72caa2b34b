# cabo-kit: `make demo` and `make test` set everything up in .venv on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXTRAS ?= dev
STAMP := $(VENV)/.installed-$(EXTRAS)

.PHONY: setup demo test lab bench typecheck golden clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "cabo-kit needs Python 3.10 or newer")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'
	@touch $@

demo: $(STAMP)
	$(BIN)/cabo-kit demo

test: $(STAMP)
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
