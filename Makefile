# The two set-up commands: `make demo` and `make test`. Both create .venv when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test test-pi lint bench clean translations docs

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

# The whole suite again with the Raspberry Pi's versions (numpy 1.24 as Bookworm ships
# it, the OpenCV and onnxruntime that work with it): a second venv, .venv-pi, made with
# the same constraints file install.sh uses. CI runs it after `make test`.
PI_VENV := .venv-pi
PI_CONSTRAINTS := firmware_config/pi-constraints.txt
$(PI_VENV)/.installed-test: pyproject.toml $(PI_CONSTRAINTS)
	$(PYTHON) -m venv $(PI_VENV)
	$(PI_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(PI_VENV)/bin/python -m pip install --quiet -c $(PI_CONSTRAINTS) -e ".[test]"
	touch $@

test-pi: $(PI_VENV)/.installed-test
	$(PI_VENV)/bin/python -m zatre_vision.import_check numpy cv2 onnxruntime
	$(PI_VENV)/bin/python -m pytest -p no:cacheprovider; rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest: no tests collected"; exit 0; fi; exit $$rc

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
	$(R)/serve.json
BENCH_SLOW := $(R)/adapt.json $(R)/adapt-fit.json $(R)/vision.json $(R)/vision-seed-8101.json \
	$(R)/vision-training-ranges.json $(R)/vision-scanned-board.json \
	$(R)/vision-heldout-tiles.json $(R)/vision-heldout-prints.json $(R)/vision-outside.json \
	$(R)/tracking.json $(R)/tracking-wide-games1-8.json $(R)/tracking-wide-games9-20.json \
	$(R)/tracking-hurried.json $(R)/tracking-heldout-tiles-hurried.json
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
	$(BIN)/zatre bench vision --board scanned --photos 60 --no-card --out $@
$(R)/vision-heldout-tiles.json: $(VENV)/.installed
	$(BIN)/zatre bench vision --tiles held-out --photos 60 --no-card --out $@
$(R)/vision-heldout-prints.json: $(VENV)/.installed
	$(BIN)/zatre bench vision --prints held-out --photos 60 --no-card --out $@
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
	rm -rf $(VENV) $(PI_VENV) build site *.egg-info .pytest_cache .hypothesis
