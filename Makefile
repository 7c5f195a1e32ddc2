# Balcão — every target creates its own virtual environment (.venv) first.
#   make run    set up, migrate, and run the bot (the offline sandbox when BALCAO_TELEGRAM_TOKEN is unset)
#   make test   set up and run the whole suite on SQLite and on a throwaway PostgreSQL cluster, both at once
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: setup run demo test test-sqlite test-postgres lint typecheck catalogs bench clean axe

setup: $(STAMP) catalogs

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

catalogs: $(STAMP)
	$(BIN)/python -m bot.catalogs compile

run: setup
	@if [ -n "$$BALCAO_TELEGRAM_TOKEN" ] || grep -qs '^BALCAO_TELEGRAM_TOKEN=.' .env; then \
		$(BIN)/python -m bot db upgrade && $(BIN)/python -m bot run; \
	else \
		echo "No BALCAO_TELEGRAM_TOKEN: starting the offline sandbox (python -m bot demo)."; \
		$(BIN)/python -m bot demo; \
	fi

demo: setup
	$(BIN)/python -m bot demo

test: setup
	$(BIN)/python -m tests.auxil.system_deps
	$(MAKE) axe
	$(BIN)/python -m tests.auxil.both_databases

test-sqlite: setup
	$(BIN)/python -m tests.auxil.system_deps
	$(MAKE) axe
	$(BIN)/python -m pytest -q

test-postgres: setup
	$(BIN)/python -m pytest -q --db=postgres -m "not browser"

# axe-core (npm) for the accessibility checks of the browser tests, pinned in tests/auxil/package-lock.json
axe: tests/auxil/node_modules/axe-core/axe.min.js

tests/auxil/node_modules/axe-core/axe.min.js: tests/auxil/package.json tests/auxil/package-lock.json
	npm ci --prefix tests/auxil --no-audit --no-fund
	touch $@

lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy core bot handlers notifications models
	$(BIN)/lint-imports

bench: setup
	@for script in bench/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) balcao.db* locales/*/LC_MESSAGES/*.mo
