# spark-lance: the two commands a fresh machine needs are `make demo` and `make test`.
# Everything is set up on first use: a project virtualenv (.venv) from the pinned
# requirements, the sbt launcher (build/sbt), the golden datasets (dev/golden).
# Downloads are cached under the user's home, never in the repository.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
SBT := build/sbt
JAR_DIR := python/pyspark_lance/jars
JAR := $(JAR_DIR)/spark-lance.jar
GOLDEN := target/golden

JAR_INPUTS := $(shell find connector/src/main protos project -type f 2>/dev/null) build.sbt

.PHONY: demo test test-scala test-python jar golden venv bench clean

demo: $(JAR)
	$(VPY) examples/quickstart.py

test: golden
	$(SBT) "connector/test" "bench/compile" "connector/assembly" </dev/null
	$(MAKE) --no-print-directory install-jar
	$(MAKE) --no-print-directory test-python

test-scala: golden
	$(SBT) "connector/test" </dev/null

test-python: $(JAR) golden
	cd python && ../$(VPY) -m pytest -q tests

jar: $(JAR)

$(JAR): $(JAR_INPUTS) | $(VENV)/.installed
	$(SBT) "connector/assembly" </dev/null
	$(MAKE) --no-print-directory install-jar

.PHONY: install-jar
install-jar:
	mkdir -p $(JAR_DIR)
	cp connector/target/scala-2.13/spark-lance-*.jar $(JAR)

golden: $(VENV)/.installed
	$(VPY) dev/golden/generate.py --out $(GOLDEN) --old

venv: $(VENV)/.installed

$(VENV)/.installed: python/requirements-dev.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { \
	  echo "error: $(PYTHON) is Python $$($(PYTHON) -c 'import platform; print(platform.python_version())'); the pinned test tools need 3.11 or newer. Run with PYTHON=python3.11 (or newer)."; exit 1; }
	test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q -r python/requirements-dev.txt
	$(VPY) -m pip install -q -e python --no-deps
	touch $@

bench: $(JAR)
	$(VPY) bench/spark_bench.py $(BENCH_ARGS)

clean:
	rm -rf target connector/target project/target $(JAR_DIR)
