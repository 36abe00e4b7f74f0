# spark-lance: the two commands a fresh machine needs are `make demo` and `make test`.
# Everything is set up on first use: a virtualenv from the pinned requirements, the sbt
# launcher (build/sbt), the golden datasets (dev/golden). Downloads and the virtualenv are
# cached under the user's home, never in the repository: the virtualenv is keyed by the
# requirements file, and .venv is only a link to it. The package under python/ is not
# installed into it (clones share the virtualenv); commands that import it put python/ on
# PYTHONPATH.

SHELL := /bin/bash
PYTHON ?= python3
CACHE := $(HOME)/.cache/spark-lance
VENV_HOME := $(CACHE)/venvs/$(shell $(PYTHON) -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()[:16])' python/requirements-dev.txt)
VENV := .venv
VPY := $(VENV)/bin/python
WITH_PKG := PYTHONPATH=$(CURDIR)/python
# The Spark line built and tested (project/SparkLines.scala): `make test SPARK_LINE=4.1`; 3.5 also
# takes SCALA_BINARY=2.12. Each line's classes and jar live apart under connector/target/spark-<line>.
SPARK_LINE ?= 4.2
SCALA_BINARY ?= 2.13
LINE := $(SPARK_LINE)_$(SCALA_BINARY)
SBT := build/sbt -DsparkLine=$(SPARK_LINE) -DscalaBinary=$(SCALA_BINARY)
JAR_DIR := python/pyspark_lance/jars
JAR := $(JAR_DIR)/spark-lance.jar
GOLDEN := target/golden

JAR_INPUTS := $(shell find connector/src/main protos project -type f 2>/dev/null) build.sbt

.PHONY: demo test test-scala test-python jar wheel golden venv bench bench-encode bench-write bench-dml clean

# The quickstart as a user runs it: the wheel installed into a virtualenv of its own (pyspark
# from the pinned requirements, nothing from this checkout on the path).
DEMO_VENV := $(CACHE)/demo-venv
demo: wheel
	test -x $(DEMO_VENV)/bin/python || $(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install -q "$$(grep '^pyspark==' python/requirements-dev.txt)"
	$(DEMO_VENV)/bin/python -m pip install -q --force-reinstall --no-deps dist/pyspark_lance-*.whl
	cd examples && env -u PYTHONPATH -u SPARK_HOME $(DEMO_VENV)/bin/python quickstart.py

test: golden
	$(SBT) "connector/test" "bench/compile" "connector/assembly" </dev/null
	$(MAKE) --no-print-directory install-jar
	$(MAKE) --no-print-directory test-python

test-scala: golden
	$(SBT) "connector/test" </dev/null

test-python: $(JAR) golden
	cd python && $(WITH_PKG) ../$(VPY) -m pytest -q tests

# Always asks sbt (incremental), so that `make jar SPARK_LINE=4.1` after a 4.2 build builds 4.1.
jar: | venv
	$(SBT) "connector/assembly" </dev/null
	$(MAKE) --no-print-directory install-jar

# The pip package with the jar inside: dist/pyspark_lance-<version>-py3-none-any.whl (the jar's version).
wheel: $(JAR)
	rm -rf python/build dist/pyspark_lance-*.whl
	$(VPY) -m pip wheel -q --no-deps --no-build-isolation -w dist ./python

$(JAR): $(JAR_INPUTS) | venv
	$(SBT) "connector/assembly" </dev/null
	$(MAKE) --no-print-directory install-jar

.PHONY: install-jar
install-jar:
	mkdir -p $(JAR_DIR)
	cp connector/target/spark-$(LINE)/spark-lance-$(LINE)-*.jar $(JAR)

golden: venv
	$(VPY) dev/golden/generate.py --out $(GOLDEN) --old

# The virtualenv's name is a hash of the requirements, so it needs no other staleness check.
venv: $(VENV_HOME)/.installed
	@test "$$(readlink $(VENV))" = "$(VENV_HOME)" || { rm -rf $(VENV) && ln -s $(VENV_HOME) $(VENV); }

$(VENV_HOME)/.installed:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { \
	  echo "error: $(PYTHON) is Python $$($(PYTHON) -c 'import platform; print(platform.python_version())'); the pinned test tools need 3.11 or newer. Run with PYTHON=python3.11 (or newer)."; exit 1; }
	test -x $(VENV_HOME)/bin/python || $(PYTHON) -m venv $(VENV_HOME)
	$(VENV_HOME)/bin/python -m pip install -q -r python/requirements-dev.txt
	touch $@

bench: $(JAR)
	$(WITH_PKG) $(VPY) bench/spark_bench.py $(BENCH_ARGS)

# The file writer against pylance's, per column kind (bench/ENCODE.md); `BENCH_ARGS="--scale 0.1"` for a quick run.
bench-encode: venv
	$(VPY) bench/encode_bench.py $(BENCH_ARGS)

# Spark writing Lance against Spark writing Parquet, same session (bench/README.md); reuses bench's data.
bench-write: $(JAR)
	$(WITH_PKG) $(VPY) bench/write_bench.py $(BENCH_ARGS)

# DELETE, UPDATE and MERGE INTO on Lance against Delta, same session (bench/README.md); reuses bench's data.
bench-dml: $(JAR)
	$(WITH_PKG) $(VPY) bench/dml_bench.py $(BENCH_ARGS)

clean:
	rm -rf target connector/target project/target $(JAR_DIR) dist python/build
