# The two set-up commands: `make demo` and `make test`. Both create .venv when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test test-pi lint bench clean translations models docs locks

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Re-install whenever pyproject.toml changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# CI adds the train extra (TEST_EXTRAS=test,train) so the training path is tested too;
# the docs extra (MkDocs) always comes along: the manual is built and checked by the tests.
TEST_EXTRAS ?= test
$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[$(TEST_EXTRAS),docs]"
	touch $@

# The dashboard at http://localhost:8000 on a simulated game that plays itself
# through the whole pipeline (synthetic camera frames, vision, tracking, rules).
# `make demo PORT=8080` serves it on another port.
PORT ?= 8000
demo: $(VENV)/.installed
	$(BIN)/zatre serve --demo --host 127.0.0.1 --port $(PORT)

# The manual at http://127.0.0.1:8000 while it is written (mkdocs.yml, docs/).
docs: $(VENV)/.installed-test
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

# pytest exits 5 when it collects no test: that is not a failure of the build.
test: $(VENV)/.installed-test
	$(BIN)/ruff check zatre_vision tests benchmarks
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir build/site
	$(BIN)/python -m pytest; rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest: no tests collected"; exit 0; fi; exit $$rc

# The tests that touch numpy, OpenCV and onnxruntime (vision, camera, tracking, the
# server's camera paths, the Pi's calibration and camera watchdog) again under each Raspberry Pi OS release's
# versions, in a venv per release made from the lock file install.sh installs there
# (every package pinned, with hashes: `pip install --require-hashes -r`):
#   Bookworm: Python 3.11, numpy 1.24 (firmware_config/locks/bookworm.txt), .venv-pi
#   Trixie:   Python 3.13, numpy 2.2  (firmware_config/locks/trixie.txt), .venv-pi-trixie
# then the project (--no-deps, as on the Pi) and the test extra on top, held to the
# lock's versions; `pip check` must pass. tests/pi/test_locks.py checks each venv.
# A subset, not the whole suite: the rest (rules, cards, store, browser) imports none of
# the three and has run in `make test`. CI runs `make test-pi` after `make test`.
# Each interpreter is looked for on PATH, then in pyenv's and the usual folders, and
# must answer as that version (pyenv's shim for a version not selected does not);
# PYTHON311=/path or PYTHON313=/path names one. A release whose Python cannot be found
# is skipped with a line that says so.
PI_TESTS ?= tests/vision tests/camera tests/tracking tests/server/test_live_view.py \
	tests/server/test_tile_learning.py tests/pi/test_calibrate.py \
	tests/pi/test_calibration_page.py tests/pi/test_watchdog.py tests/pi/test_locks.py
find_python = $(shell for p in $$(command -v python$(1) 2>/dev/null) \
	$$(ls -d $$HOME/.pyenv/versions/$(1)*/bin/python$(1) /root/.pyenv/versions/$(1)*/bin/python$(1) \
	/usr/local/bin/python$(1) /usr/bin/python$(1) 2>/dev/null); do \
	"$$p" -c 'import sys; sys.exit(sys.version_info[:2] != ($(subst .,$(comma),$(1))))' \
	2>/dev/null && { echo "$$p"; break; }; done)
comma := ,
PYTHON311 ?= $(call find_python,3.11)
PYTHON313 ?= $(call find_python,3.13)
PI_VENV := .venv-pi
PI_TRIXIE_VENV := .venv-pi-trixie
PI_LOCK := firmware_config/locks/bookworm.txt
PI_TRIXIE_LOCK := firmware_config/locks/trixie.txt

# pi_venv VENV PYTHON LOCK: the lock with its hashes; the project without dependencies
# or build isolation (setuptools is in the lock); the test extra (not hashed) held to
# the lock's pins; VENV/zatre-lock names the lock for tests/pi/test_locks.py.
define pi_venv
	@test -n "$(2)" || { echo "make: no Python for $(1) found (set PYTHON3xx=/path)"; exit 1; }
	rm -rf $(1)
	$(2) -m venv $(1)
	$(1)/bin/python -m pip install --quiet --upgrade pip
	$(1)/bin/python -m pip install --quiet --require-hashes -r $(3)
	$(1)/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .
	grep -Eo '^[a-z0-9._-]+==[^ ]+' $(3) > $(1)/lock-pins.txt
	$(1)/bin/python -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["test"]))' > $(1)/test-requirements.txt
	$(1)/bin/python -m pip install --quiet -c $(1)/lock-pins.txt -r $(1)/test-requirements.txt
	$(1)/bin/python -m pip check
	echo $(3) > $(1)/zatre-lock
	touch $(1)/.installed-test
endef
# pi_test VENV RELEASE
define pi_test
	$(1)/bin/python -m zatre_vision.import_check numpy cv2 onnxruntime
	$(1)/bin/python -m pytest -p no:cacheprovider -q $(PI_TESTS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest: no tests collected"; exit 0; fi; exit $$rc
endef

$(PI_VENV)/.installed-test: pyproject.toml $(PI_LOCK)
	$(call pi_venv,$(PI_VENV),$(PYTHON311),$(PI_LOCK))
$(PI_TRIXIE_VENV)/.installed-test: pyproject.toml $(PI_TRIXIE_LOCK)
	$(call pi_venv,$(PI_TRIXIE_VENV),$(PYTHON313),$(PI_TRIXIE_LOCK))

.PHONY: test-pi-bookworm test-pi-trixie
test-pi: test-pi-bookworm test-pi-trixie
test-pi-bookworm:
	@if [ -z "$(PYTHON311)" ]; then echo "test-pi-bookworm: skipped, no Python 3.11 found (PYTHON311=/path/python3.11)"; \
	else $(MAKE) --no-print-directory $(PI_VENV)/.installed-test PYTHON311="$(PYTHON311)" && \
	$(MAKE) --no-print-directory pi-run-bookworm PYTHON311="$(PYTHON311)"; fi
test-pi-trixie:
	@if [ -z "$(PYTHON313)" ]; then echo "test-pi-trixie: skipped, no Python 3.13 found (PYTHON313=/path/python3.13)"; \
	else $(MAKE) --no-print-directory $(PI_TRIXIE_VENV)/.installed-test PYTHON313="$(PYTHON313)" && \
	$(MAKE) --no-print-directory pi-run-trixie PYTHON313="$(PYTHON313)"; fi
.PHONY: pi-run-bookworm pi-run-trixie
pi-run-bookworm:
	$(call pi_test,$(PI_VENV))
pi-run-trixie:
	$(call pi_test,$(PI_TRIXIE_VENV))

# The Pi's lock files, firmware_config/locks/<release>.txt, written anew from
# pyproject.toml and locks/<release>.in (firmware_config/locks/make_locks.py): needs the
# registry and Python 3.11 and 3.13 (found as for test-pi). Keeps the locked versions
# the inputs allow; `make locks LOCKS_ARGS=--upgrade` takes the newest.
LOCKS_ARGS ?=
locks: $(VENV)/.installed
	$(BIN)/python firmware_config/locks/make_locks.py \
	$(if $(PYTHON311),--python bookworm=$(PYTHON311)) \
	$(if $(PYTHON313),--python trixie=$(PYTHON313)) $(LOCKS_ARGS)

# The dashboard's catalogues (zatre_vision/server/translations): the words of the
# templates and the server (messages) and of the page scripts (js) extracted anew,
# merged into each language's .po (translate the new entries there), then compiled to
# the .mo files the server reads, which are committed (tests/server/test_i18n.py).
I18N := zatre_vision/server/translations
translations: $(VENV)/.installed
	$(BIN)/pybabel extract -F $(I18N)/babel-messages.cfg -k _ -k N_ --no-location --sort-output -o $(I18N)/messages.pot .
	$(BIN)/pybabel extract -F $(I18N)/babel-js.cfg -k _ --no-location --sort-output -o $(I18N)/js.pot .
	$(BIN)/pybabel update -i $(I18N)/messages.pot -d $(I18N) -D messages --no-fuzzy-matching
	$(BIN)/pybabel update -i $(I18N)/js.pot -d $(I18N) -D js --no-fuzzy-matching
	$(BIN)/pybabel compile -d $(I18N) -D messages
	$(BIN)/pybabel compile -d $(I18N) -D js

# New models, unattended: renders the training data, trains both networks, fits the
# reader's decision, runs the gate against models/, and lands the candidates there only
# if the gate passes (docs/vision-training.md#make-models). Resumable: the same command
# goes on from where it stopped (state, chunks and checkpoints outside the clone, in
# ~/.cache/zatre-vision/models/; MODELS_ARGS="--run DIR" for another folder). About
# 3 hours on a 2-core CPU; `make models MODELS_ARGS=--gpu` where a GPU is lent.
MODELS_ARGS ?=
$(VENV)/.installed-train: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[train]"
	touch $@

models: $(VENV)/.installed-train
	$(BIN)/python -m zatre_vision.training.make_models $(MODELS_ARGS)

# Regenerates every result file under benchmarks/results/ from a fresh clone, each with
# the commit, date, machine and command that made it and the paths it measures (hours
# on a shared 2-core machine; the vision and tracking runs need the committed models).
# One target per file: `make -j2 bench` runs two at a time (times are ratios to a
# baseline measured in the same run); `make bench-fast` only the quick ones.
# tests/bench/test_result_freshness.py holds the committed files to this list. Photos
# from outside the repository (OUTSIDE_PHOTOS) are measured only where that folder exists.
R := benchmarks/results
OUTSIDE_PHOTOS ?= ../shared/photos/outside-renderer
BENCH_FAST := $(R)/rules.json $(R)/analyse.json $(R)/startup.json $(R)/bad_input.json \
	$(R)/camera_pacing.json $(R)/synth.json $(R)/sse_load.json $(R)/serve_load.json \
	$(R)/serve.json $(R)/pin_flood.json $(R)/slow_clients.json $(R)/backup_access.json
BENCH_SLOW := $(R)/adapt.json $(R)/adapt-fit.json $(R)/vision.json $(R)/vision-seed-8101.json \
	$(R)/vision-training-ranges.json $(R)/vision-scanned-board.json \
	$(R)/vision-heldout-tiles.json $(R)/vision-heldout-prints.json $(R)/vision-outside.json \
	$(R)/tracking.json $(R)/tracking-wide-games1-8.json $(R)/tracking-wide-games9-20.json \
	$(R)/tracking-hurried.json $(R)/tracking-heldout-tiles-hurried.json $(R)/camera_hang.json
.PHONY: bench-fast $(BENCH_FAST) $(BENCH_SLOW)
bench: $(BENCH_FAST) $(BENCH_SLOW)
bench-fast: $(BENCH_FAST)

$(R)/rules.json: $(VENV)/.installed
	$(BIN)/zatre bench rules
$(R)/analyse.json: $(VENV)/.installed
	$(BIN)/zatre bench analyse
$(R)/startup.json: $(VENV)/.installed
	$(BIN)/zatre bench startup
$(R)/bad_input.json: $(VENV)/.installed
	$(BIN)/zatre bench bad-input
$(R)/camera_pacing.json: $(VENV)/.installed
	$(BIN)/zatre bench camera
$(R)/synth.json: $(VENV)/.installed
	$(BIN)/zatre bench synth
$(R)/sse_load.json: $(VENV)/.installed
	$(BIN)/zatre bench sse
$(R)/serve_load.json: $(VENV)/.installed
	$(BIN)/zatre bench load
$(R)/serve.json: $(VENV)/.installed
	$(BIN)/zatre bench serve
$(R)/pin_flood.json: $(VENV)/.installed
	$(BIN)/zatre bench pin-flood
$(R)/slow_clients.json: $(VENV)/.installed
	$(BIN)/zatre bench slow-clients
$(R)/backup_access.json: $(VENV)/.installed
	$(BIN)/zatre bench backup-access
$(R)/camera_hang.json: $(VENV)/.installed
	$(BIN)/zatre bench camera-hang
$(R)/adapt.json: $(VENV)/.installed
	$(BIN)/zatre bench adapt
$(R)/adapt-fit.json: $(VENV)/.installed
	$(BIN)/python -m zatre_vision.training.fit_tile_adaptation --out $@
$(R)/vision.json: $(VENV)/.installed
	$(BIN)/zatre bench vision --photos 150 --no-card --out $@
$(R)/vision-seed-8101.json: $(VENV)/.installed
	$(BIN)/zatre bench vision --seed 8101 --out $@
$(R)/vision-training-ranges.json: $(VENV)/.installed
	$(BIN)/zatre bench vision --ranges training --photos 200 --seed 9002 --out $@
$(R)/vision-scanned-board.json: $(VENV)/.installed
	$(BIN)/zatre bench vision --board scanned --photos 240 --no-card --out $@
$(R)/vision-heldout-tiles.json: $(VENV)/.installed
	$(BIN)/zatre bench vision --tiles held-out --photos 240 --no-card --out $@
$(R)/vision-heldout-prints.json: $(VENV)/.installed
	$(BIN)/zatre bench vision --prints held-out --photos 240 --no-card --out $@
$(R)/vision-outside.json: $(VENV)/.installed
	if [ -d "$(OUTSIDE_PHOTOS)" ]; then $(BIN)/zatre bench vision --folder "$(OUTSIDE_PHOTOS)" --out $@; \
	else echo "$(OUTSIDE_PHOTOS) not found: $@ kept as it is"; fi
$(R)/tracking.json: $(VENV)/.installed
	$(BIN)/zatre bench tracking --ranges training
$(R)/tracking-wide-games1-8.json: $(VENV)/.installed
	$(BIN)/zatre bench tracking --ranges wide --games 8 --out $@
$(R)/tracking-wide-games9-20.json: $(VENV)/.installed
	$(BIN)/zatre bench tracking --ranges wide --skip-games 8 --games 12 --out $@
$(R)/tracking-hurried.json: $(VENV)/.installed
	$(BIN)/zatre bench tracking --ranges training --games 5 --hurried
$(R)/tracking-heldout-tiles-hurried.json: $(VENV)/.installed
	$(BIN)/zatre bench tracking --ranges heldout-tiles --hurried --games 6

clean:
.PHONY: demo test test-pi lint bench clean translations models docs locks
