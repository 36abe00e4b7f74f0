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
VENV := .venv
VPY := $(VENV)/bin/python
WITH_PKG := PYTHONPATH=$(CURDIR)/python
# The Spark line built and tested (project/SparkLines.scala): `make test SPARK_LINE=4.1`; 3.5 also
# takes SCALA_BINARY=2.12. Each line's classes and jar live apart under connector/target/spark-<line>.
# ALL_LINES are the jars a release carries (`make jars`), as project/SparkLines.scala lists them.
NEWEST_LINE := 4.2
ALL_LINES := 3.5_2.12 3.5_2.13 4.0_2.13 4.1_2.13 4.2_2.13
SPARK_LINE ?= $(NEWEST_LINE)
SCALA_BINARY ?= 2.13
LINE := $(SPARK_LINE)_$(SCALA_BINARY)
SBT := build/sbt -DsparkLine=$(SPARK_LINE) -DscalaBinary=$(SCALA_BINARY)
# The package carries a jar per line, named for it; pyspark_lance picks the installed pyspark's.
JAR_DIR := python/pyspark_lance/jars
JAR := $(JAR_DIR)/spark-lance-$(LINE).jar
# Each line's tests run with that line's pyspark in a virtualenv of its own, from
# python/requirements-<line>.txt (the newest line's is requirements-dev.txt, the main .venv).
# PyPI's pyspark is built for Scala 2.12 on 3.5 and 2.13 on 4.x: those are the jars pytest can use.
LINE_REQS := python/$(if $(filter $(NEWEST_LINE),$(SPARK_LINE)),requirements-dev.txt,requirements-$(SPARK_LINE).txt)
LINE_VENV := $(if $(filter $(NEWEST_LINE),$(SPARK_LINE)),$(VENV),$(VENV)-$(SPARK_LINE))
PYPI_SCALA := $(if $(filter 3.5,$(SPARK_LINE)),2.12,2.13)
PYPI_JAR := $(JAR_DIR)/spark-lance-$(SPARK_LINE)_$(PYPI_SCALA).jar
GOLDEN := target/golden

# What a jar is built from (not project/'s own build output, which every sbt run rewrites).
JAR_INPUTS := $(shell find connector/src/main protos project -path project/target -prune -o -path project/project -prune -o -type f -print 2>/dev/null) build.sbt

.PHONY: demo test test-cross test-scala test-python test-python-line test-line test-lines jar jars wheel golden venv venv-line \
	bench bench-encode bench-write bench-dml clean

# The quickstart as a user runs it: the wheel installed into a virtualenv of its own (pyspark
# from the pinned requirements, nothing from this checkout on the path).
DEMO_VENV := $(CACHE)/demo-venv
demo: wheel
	test -x $(DEMO_VENV)/bin/python || $(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install -q "$$(grep '^pyspark==' python/requirements-dev.txt)"
	$(DEMO_VENV)/bin/python -m pip install -q --force-reinstall --no-deps dist/pyspark_lance-*.whl
	cd examples && env -u PYTHONPATH -u SPARK_HOME $(DEMO_VENV)/bin/python quickstart.py

# The newest line in full (Scala suite, jar, pytest), then every other line's cross-line check.
test: golden
	$(SBT) "connector/test" "bench/compile" "connector/assembly" </dev/null
	$(MAKE) --no-print-directory install-jar
	$(MAKE) --no-print-directory test-python
	$(MAKE) --no-print-directory test-cross

# The other lines as `make test` checks them within CI's time. For each line PyPI's pyspark runs (3.5
# with Scala 2.12, 4.0, 4.1): its jar, built from every overlay it takes, and the cross-line pytest
# subset with its own pyspark, less the tests that start many Spark applications (run by `make
# test-lines`). For 3.5 with Scala 2.13, which no PyPI pyspark runs: its main and test sources
# compiled and the Scala cross-line suites run (golden reads, writes read by pylance, DDL, DML,
# CALL, concurrent commits, S3 commits through the SDK v1 client).
CROSS_PYSPARK_LINES := 3.5 4.0 4.1
CROSS_SCALA_SUITES := *TypesGoldenSuite *SparkWriteSuite *RowsRoundTripSuite *SessionCatalogSuite *LanceCatalogSuite \
	*DmlSuite *TableSuffixesSuite *CallStatementSuite *RefProceduresSuite *TableCommitterSuite *S3WriteSuite
test-cross: golden
	@for l in $(CROSS_PYSPARK_LINES); do \
	  $(MAKE) --no-print-directory test-python-line SPARK_LINE=$$l PYTEST_ARGS='-m "lines and not heavy"' || exit 1; done
	build/sbt -DsparkLine=3.5 -DscalaBinary=2.13 "connector/testOnly $(CROSS_SCALA_SUITES)" </dev/null

test-scala: golden
	$(SBT) "connector/test" </dev/null

test-python: $(JAR) golden
	cd python && $(WITH_PKG) ../$(VPY) -m pytest -q tests $(PYTEST_ARGS)

# The cross-line pytest subset (marker `lines`, python/tests/conftest.py) with one line's pyspark and
# jar: `make test-python-line SPARK_LINE=4.1`. `PYTEST_ARGS=` runs more (e.g. `-m ""` for all).
test-python-line: $(PYPI_JAR) golden venv-line
	cd python && $(WITH_PKG) ../$(LINE_VENV)/bin/python -m pytest -q -m lines tests $(PYTEST_ARGS)

# One line in full: the Scala suite, its jar, and the whole pytest with the line's pyspark (not for
# 3.5_2.13, which no PyPI pyspark runs). `make test-lines` runs every line (see README for how long).
test-line: golden
	$(SBT) "connector/test" "connector/assembly" </dev/null
	$(MAKE) --no-print-directory install-jar
	@if [ "$(SCALA_BINARY)" = "$(PYPI_SCALA)" ]; then \
	  $(MAKE) --no-print-directory test-python-line PYTEST_ARGS='-m "" $(PYTEST_ARGS)'; \
	else echo "Spark $(LINE): no pytest (PyPI's pyspark $(SPARK_LINE) is built for Scala $(PYPI_SCALA))"; fi

test-lines:
	@for l in $(ALL_LINES); do $(MAKE) --no-print-directory test-line SPARK_LINE=$${l%_*} SCALA_BINARY=$${l#*_} || exit 1; done

# Always asks sbt (incremental), so that `make jar SPARK_LINE=4.1` after a 4.2 build builds 4.1.
jar: | venv
	$(SBT) "connector/assembly" </dev/null
	$(MAKE) --no-print-directory install-jar

# Every line's jar, each built and installed as `make jar` does (one sbt run per line).
jars:
	@for l in $(ALL_LINES); do $(MAKE) --no-print-directory jar SPARK_LINE=$${l%_*} SCALA_BINARY=$${l#*_} || exit 1; done

# The pip package with the jars installed under python/pyspark_lance/jars (the release wheel: after
# `make jars`; the current line's jar is brought up to date first): dist/pyspark_lance-<version>-py3-none-any.whl.
wheel: $(JAR)
	rm -rf python/build dist/pyspark_lance-*.whl
	$(VPY) -m pip wheel -q --no-deps --no-build-isolation -w dist ./python

# A line's jar, rebuilt when a source changed since: spark-lance-4.1_2.13.jar is `make jar SPARK_LINE=4.1`.
$(JAR_DIR)/spark-lance-%.jar: $(JAR_INPUTS) | venv
	$(MAKE) --no-print-directory jar SPARK_LINE=$(firstword $(subst _, ,$*)) SCALA_BINARY=$(lastword $(subst _, ,$*))

# Installs the built line's jar under its own name (and drops the single spark-lance.jar of older trees).
.PHONY: install-jar
install-jar:
	mkdir -p $(JAR_DIR)
	rm -f $(JAR_DIR)/spark-lance.jar
	cp connector/target/spark-$(LINE)/spark-lance-$(LINE)-*.jar $(JAR)

golden: venv
	$(VPY) dev/golden/generate.py --out $(GOLDEN) --old

# The virtualenv's name is a hash of the requirements (dev/venv.sh), so it needs no other staleness check.
venv:
	@PYTHON=$(PYTHON) dev/venv.sh python/requirements-dev.txt $(VENV)

# A line's test virtualenv, linked as .venv-<line>: `make venv-line SPARK_LINE=3.5`.
venv-line:
	@PYTHON=$(PYTHON) dev/venv.sh $(LINE_REQS) $(LINE_VENV)

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
