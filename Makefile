# kgroup: `make demo` and `make test` are all a fresh machine needs (Python >= 3.10, Java 17 for Spark).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test bench lint docs protocol clean venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[sandbox]'
	$(BIN)/python -m compileall -q kgroup
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test,sandbox,spark]'
	touch $@

venv: $(VENV)/.installed

## demo: venv + kgroup, start the sandbox broker, seed it, show the groups and their lag,
##       plan a reset, simulate an assignor, decode a sample __consumer_offsets directory
demo: $(VENV)/.installed
	$(BIN)/kgroup sandbox start
	$(BIN)/kgroup sandbox seed
	$(BIN)/kgroup list
	$(BIN)/kgroup describe --all-groups
	$(BIN)/kgroup describe --all-groups --state
	$(BIN)/kgroup reset-offsets billing --topic orders --to-offset 35
	$(BIN)/kgroup simulate-assign --strategy cooperative-sticky --members c1,c2,c3 \
		--topics orders:6,payments:3 --events "+c4,-c1"
	rm -rf build/demo-offsets && $(BIN)/python scripts/sample_offsets.py build/demo-offsets
	$(BIN)/kgroup decode --segments build/demo-offsets
	$(BIN)/kgroup decode --segments build/demo-offsets --latest --type offset
	$(BIN)/kgroup decode --segments build/demo-offsets --summary
	@echo "The sandbox keeps running; stop it with: $(BIN)/kgroup sandbox stop"

## test: install test extras and run the whole suite (unit, cli, integration on the sandbox)
test: $(VENV)/.installed-test
	$(BIN)/python -m ruff check kgroup tests scripts benchmarks
	$(BIN)/python -m pytest

## bench: speed and memory benchmarks (figures printed; targets in each script)
bench: $(VENV)/.installed-test
	@for script in benchmarks/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

lint: $(VENV)/.installed-test
	$(BIN)/python -m ruff check kgroup tests scripts benchmarks
	$(BIN)/python -m ruff format --check kgroup tests scripts benchmarks

## docs: regenerate completions/ and man/ from the CLI
docs: $(VENV)/.installed
	$(BIN)/python scripts/gen_docs.py

## protocol: regenerate kgroup/protocol/generated/, the C reader's opcodes and the
##           `__consumer_offsets` readers and writers (kgroup/offsets/generated/) from the JSON
##           declarations (test_protocol_generated.py, test_offsets_codec_generated.py fail when stale);
##           scripts/gen_protocol.py runs scripts/gen_offsets_codec.py after its own files
protocol: $(VENV)/.installed
	$(BIN)/python scripts/gen_protocol.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
