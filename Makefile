# The two commands of the README: `make workbook` and `make test`. Each installs what it needs first.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
SITE   ?= inputs/example.yaml
STAMP  := $(VENV)/.installed

JOBS   ?= auto
.PHONY: workbook workbooks pdf quote test test-fast lint bench verify libreoffice clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

## build one site's workbook (default: the example site) into outputs/
workbook: $(STAMP)
	$(PY) -m workbook build $(SITE)

## build one site's workbook and export it to PDF beside it (outputs/<site>.pdf), with LibreOffice
pdf: $(STAMP) libreoffice
	$(PY) -m workbook pdf $(SITE)

## a request for quotation from one site's bill of materials (VENDOR="Name" names the vendor; GROUPS=network,services
## asks for some groups only; DATE=YYYY-MM-DD is its issue date, default today)
quote: $(STAMP)
	$(PY) -m workbook quote $(SITE) $(if $(VENDOR),--vendor "$(VENDOR)") $(if $(GROUPS),--groups "$(GROUPS)") $(if $(DATE),--date "$(DATE)")

## build every site in inputs/, one process per core (JOBS=n to choose; a progress bar when on a terminal)
workbooks: $(STAMP)
	$(PY) -m workbook build $(if $(JOBS),-j $(JOBS)) inputs/*.yaml

## recalculate the built workbooks in LibreOffice and Gnumeric and compare every formula cell
verify: $(STAMP) libreoffice
	$(PY) -m workbook verify outputs/*.xlsx

# The tests start Python many times (two or more test processes, and the commands a test runs as a process of their
# own): each keeps the bytecode it compiles, whatever the shell says (PYTHONDONTWRITEBYTECODE=1 made every process
# compile the package, its tests and pytest's rewritten asserts again: 6.3 CPU-s of collection a process, not 2.6).
test test-fast: export PYTHONDONTWRITEBYTECODE :=

## run the whole test suite, one process per core (JOBS=n to choose; installs LibreOffice Calc and Gnumeric when
## missing and we are root): what CI runs
test: $(STAMP) libreoffice
	$(PY) -m ruff check workbook tests bench tools
	$(PY) -m mypy
	$(PY) -m pytest -n $(JOBS) --durations=15

## the fast lane while changing code: no spreadsheet engine (LibreOffice, Gnumeric), no slow or fuzz test (the
## formula core, inputs, hand-worked model values, CLI errors); pytest's last line gives how long it took,
## --durations the slowest tests
test-fast: $(STAMP)
	$(PY) -m ruff check workbook tests bench tools
	$(PY) -m mypy
	$(PY) -m pytest -n $(JOBS) -m "not libreoffice and not slow and not fuzz" --durations=15

## LibreOffice Calc, and Carlito (metrically the same as Calibri, the workbook's font: without it LibreOffice
## lays text out wider than Excel and the printed pages differ); and Gnumeric, the second engine of the parity tests
libreoffice:
	@if command -v soffice >/dev/null 2>&1 && fc-list 2>/dev/null | grep -q Carlito && command -v ssconvert >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		echo "installing LibreOffice Calc (headless), the Carlito font and Gnumeric with apt-get"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libreoffice-calc-nogui fonts-crosextra-carlito gnumeric >/dev/null; \
	else \
		echo "LibreOffice Calc, Carlito and Gnumeric are needed for the parity tests and the PDF: sudo apt-get install -y --no-install-recommends libreoffice-calc-nogui fonts-crosextra-carlito gnumeric"; \
		exit 1; \
	fi

lint: $(STAMP)
	$(PY) -m ruff check workbook tests bench tools
	$(PY) -m mypy

## benchmarks: one `RATIO <target> = <x>x (target <= <y>x)` line per target of issue 10
bench: $(STAMP)
	$(PY) bench/run.py
	@if [ -f bench/evaluation.py ]; then echo "$(PY) bench/evaluation.py"; $(PY) bench/evaluation.py; fi
	$(PY) bench/risk.py
	$(PY) bench/explain.py

clean:
	rm -rf outputs/*.xlsx outputs/*.pdf outputs/preview .pytest_cache .hypothesis
