# skill-conformance: every entry point of the project. `make help` lists them.
SHELL := /bin/bash
.DEFAULT_GOAL := help

# uv: the one on PATH, else the project's own, installed on first use from the package index into
# a venv under build/ (the way PEP 668 allows: Debian's and Ubuntu's own python3 refuse
# `pip install --user`; uv's standalone installer is not needed). Exported, so that the tests
# that run uv use this same one (tests/runs/runs_helpers.py asks `make uv-path` otherwise).
UV_TOOLS := $(CURDIR)/build/tools/uv
ifndef UV
UV := $(shell command -v uv 2>/dev/null || echo $(UV_TOOLS)/bin/uv)
endif
export UV
OPENSPEC ?= npx --yes @fission-ai/openspec@1.13.2
IMPL ?= reference
export OPENSPEC_TELEMETRY := 0
# Bytecode is written as on a developer's machine, also where the environment says not to (this
# project's machines and CI do): pytest then keeps the modules it rewrites for its assertions (the
# suite's, the steps', every plugin's), which every pytest process otherwise rewrites again, a
# hundred and more processes in `make ci` (docs/benchmarks.md).
unexport PYTHONDONTWRITEBYTECODE

$(UV_TOOLS)/bin/uv:
	rm -rf $(UV_TOOLS) && python3 -m venv $(UV_TOOLS)
	$(UV_TOOLS)/bin/python -m pip install --quiet --disable-pip-version-check uv

.PHONY: uv-path
uv-path: $(UV) ## Print the uv that make uses (installing it first when there is none)
	@echo $(UV)

.PHONY: sync
sync: $(UV) ## Install the locked environment, its bytecode compiled
	@# Compiled once here, so that no run compiles a module from source (with
	@# PYTHONDONTWRITEBYTECODE set, as a caller of uv may have it, nothing else would write it,
	@# and large modules such as pydantic-ai's price table would be compiled in every run).
	$(UV) sync --frozen --quiet --compile-bytecode

.PHONY: conformance
conformance: sync ## Run the conformance suite against IMPL (default: the reference)
	$(UV) run --frozen skill-conformance run --impl $(IMPL)

# The fast loop (about 5 minutes on 2 cores): every check, the conformance run against the
# reference and the project's tests but the slow ones, one screen (-q): the conformance run's
# summary in build/test/conformance.log, each test's details in build/test/junit.xml. `make ci`
# is the full gate: this, then the slow tests (every hand-written mutant, the costliest runs of
# the command), the oldest pins and the matrix of implementations.
.PHONY: test
test: sync specs-validate features-check trace-summary lint typecheck ## Checks and tests, conformance run included, slow tests left for `make ci`
	@mkdir -p build/test
	@echo "skill-conformance run --impl reference -q (its summary: build/test/conformance.log)"
	@$(UV) run --frozen skill-conformance run --impl reference -q >build/test/conformance.log 2>&1 \
		|| { cat build/test/conformance.log; exit 1; }
	@tail -n 1 build/test/conformance.log
	$(UV) run --frozen pytest -m "not slow" -q -n auto --junitxml=build/test/junit.xml

.PHONY: ci
ci: test ## The full gate (.ci/run): `make test`, then the slow tests, the oldest and newest pins, the matrix, the MCP skills servers, the maintenance targets
	SC_ALL_MUTANTS=1 $(UV) run --frozen pytest -m slow tests/mutants
	$(UV) run --frozen pytest -m slow -n auto --ignore=tests/mutants
	$(MAKE) --no-print-directory conformance-oldest
	$(MAKE) --no-print-directory conformance-newest
	$(MAKE) --no-print-directory matrix
	$(MAKE) --no-print-directory servers
	$(MAKE) --no-print-directory mutation MUTANTS='$(CI_MUTANTS)'
	$(MAKE) --no-print-directory bench BENCH_REPEAT=1
	$(MAKE) --no-print-directory history-synthetic

.PHONY: features
features: sync ## Regenerate features/ from openspec/specs
	$(UV) run --frozen skill-conformance gherkin --specs openspec/specs --out features

.PHONY: features-check
features-check: sync ## Fail with a diff when features/ is stale
	$(UV) run --frozen skill-conformance gherkin --specs openspec/specs --out features --check

.PHONY: trace
trace: sync ## Every clause and requirement has a scenario, every step a definition (AGAINST=DIR: coverage of another tree)
	$(UV) run --frozen skill-conformance trace $(if $(AGAINST),--against $(AGAINST))

# make test's trace: its clause-by-clause list in build/test/trace.log, shown whole if it fails.
.PHONY: trace-summary
trace-summary: sync
	@mkdir -p build/test
	@$(UV) run --frozen skill-conformance trace >build/test/trace.log 2>&1 \
		|| { cat build/test/trace.log; exit 1; }
	@echo "skill-conformance trace (the list: build/test/trace.log)"; head -n 2 build/test/trace.log; tail -n 2 build/test/trace.log

.PHONY: report
report: sync ## HTML report of RESULTS (results files of --results) into build/report.html
	$(UV) run --frozen skill-conformance report $(RESULTS) --out build/report.html

.PHONY: specs-validate
specs-validate: ## Validate openspec/ with the OpenSpec CLI (strict)
	$(OPENSPEC) validate --specs --strict --no-interactive

.PHONY: lint
lint: sync ## ruff check and format check; the layers and no import cycles (import-linter)
	$(UV) run --frozen ruff check .
	$(UV) run --frozen ruff format --check .
	$(UV) run --frozen lint-imports --no-cache

.PHONY: typecheck
typecheck: sync ## mypy --strict over the suite, the steps and the reference
	$(UV) run --frozen mypy src benchmarks

BENCH_REPEAT ?= 5

.PHONY: bench
bench: sync ## Benchmarks, side by side (BENCH_REPEAT rounds): the run against its collect-only run (aim 2x, reported), what each route saves; tool-list scaling
	$(UV) run --frozen python benchmarks/conformance_run.py --impl $(IMPL) --repeat $(BENCH_REPEAT)
	$(foreach p,$(REAL_PYTHON),$(UV) run --frozen python benchmarks/conformance_run.py --impl agentpool --python $(p) --repeat 3;)
	$(UV) run --frozen python benchmarks/tool_list_scaling.py --impl $(IMPL) \
		$(foreach p,$(REAL_PYTHON),--real-python $(p))

# MUTANTS bounds the run to the mutants whose names match (mutmut's fnmatch patterns).
MUTANTS ?=
# What CI runs: the mutants of one module, the same every time (the whole run takes about 25 min).
CI_MUTANTS := skill_conformance.reference.uri.*

.PHONY: mutation
mutation: sync ## mutmut over reference/ (MUTANTS='pattern ...' bounds it): kill rate of the scenarios alone, then with tests/reference
	$(UV) run --frozen python tests/mutants/mutation_report.py --max-children $$(nproc) \
		$(foreach m,$(MUTANTS),--only '$(m)')

THIRD_PARTY := agno deepagents pydantic-ai-skills fast-agent
THIRD_PARTY_VENVS := $(THIRD_PARTY:%=build/venvs/%/.built)
# The interpreter of a venv, where the suite's own would not do (fast-agent needs 3.12 or later).
PYTHON_fast-agent = $(NEWEST_PYTHON)

build/venvs/%/.built: thirdparty/%.txt thirdparty/venv.sh pyproject.toml | sync
	UV=$(UV) thirdparty/venv.sh $* $(or $(PYTHON_$*),.venv/bin/python)

# @mastra/core (--impl mastra) is JavaScript: its environment is thirdparty/mastra's lock, Node.js
# included (the `node` package), installed with `npm ci` beside the program that drives it.
MASTRA := build/venvs/mastra
$(MASTRA)/.built: thirdparty/mastra/package.json thirdparty/mastra/package-lock.json thirdparty/mastra/skills.mjs
	rm -rf $(MASTRA) && mkdir -p $(MASTRA)
	cp $^ $(MASTRA)/
	cd $(MASTRA) && npm ci --no-audit --no-fund --loglevel=error
	@echo "mastra: Node.js $$($(MASTRA)/node_modules/.bin/node --version), @mastra/core $$(cd $(MASTRA) && node_modules/.bin/node -p "require('@mastra/core/package.json').version")"
	touch $@

# MCP servers serving skills per MCP's Skills Extension, each checked by the server profile
# (`skill-conformance run --server ENTRY`, entries in thirdparty/skills-servers/entries/): the npm
# ones in one Node.js environment beside their drivers, the PyPI ones in a venv each.
SKILLS_SERVERS := build/venvs/skills-servers
SKILLS_SERVERS_NPM := $(addprefix thirdparty/skills-servers/,package.json package-lock.json sdk-server.mjs olaservo-server.mjs)
$(SKILLS_SERVERS)/.built: $(SKILLS_SERVERS_NPM)
	rm -rf $(SKILLS_SERVERS) && mkdir -p $(SKILLS_SERVERS)
	cp $^ $(SKILLS_SERVERS)/
	cd $(SKILLS_SERVERS) && npm ci --no-audit --no-fund --loglevel=error
	touch $@
build/venvs/skills-fastmcp/.built: thirdparty/skills-servers/fastmcp.txt
	rm -rf $(@D) && $(UV) venv --quiet --no-config --python $(call find-python,3.11) $(@D)
	$(UV) pip install --quiet --no-config --python $(@D)/bin/python -r $<
	touch $@
build/venvs/skills-agentskills/.built: thirdparty/skills-servers/agentskills.txt
	rm -rf $(@D) && $(UV) venv --quiet --no-config --python $(call find-python,3.12) $(@D)
	$(UV) pip install --quiet --no-config --python $(@D)/bin/python -r $<
	touch $@

# The suite's client on protocol 2026-07-28 needs the mcp 2.x SDK: a venv of the suite on it.
build/venvs/skills-client/.built: thirdparty/skills-servers/client.txt pyproject.toml | sync
	rm -rf $(@D) && $(UV) venv --quiet --no-config --python .venv/bin/python $(@D)
	$(UV) pip install --quiet --no-config --python $(@D)/bin/python -r $< -e .
	touch $@

# Each server on each protocol era: 2025-11-25 by the lock's client (mcp 1.x), 2026-07-28 by
# build/venvs/skills-client's (mcp 2.x); results in build/servers/NAME@ERA.json. An era the entry
# names unsupported starts no server: its run needs no workers.
SERVER_ERAS := 2025-11-25 2026-07-28
CLIENT_2025-11-25 := .venv/bin/python
CLIENT_2026-07-28 := build/venvs/skills-client/bin/python

.PHONY: servers
servers: sync $(SKILLS_SERVERS)/.built build/venvs/skills-fastmcp/.built build/venvs/skills-agentskills/.built build/venvs/skills-client/.built ## The MCP skills servers (thirdparty/skills-servers/) under the server profile on each protocol era, into build/servers/
	rm -rf build/servers && mkdir -p build/servers
	@status=0; for entry in thirdparty/skills-servers/entries/*.json; do \
	  name=$$(basename $$entry .json); \
	  $(foreach era,$(SERVER_ERAS),workers=2; grep -q '"$(era)"' $$entry && workers=0; \
	  $(CLIENT_$(era)) -m skill_conformance run --server $$entry --protocol-era $(era) -q \
	    -p no:randomly -n $$workers --results build/servers/$$name@$(era).json \
	    >build/servers/$$name@$(era).txt 2>&1 || status=1; \
	  echo "$$name on $(era): $$(tail -n 1 build/servers/$$name@$(era).txt)";) \
	done; exit $$status

.PHONY: venvs
venvs: $(THIRD_PARTY_VENVS) $(MASTRA)/.built ## One environment per third-party implementation (thirdparty/) with the suite

.PHONY: matrix
matrix: sync $(THIRD_PARTY_VENVS) $(MASTRA)/.built ## Every implementation into build/matrix/ (+REAL_PYTHON=venv python...), report index.html
	rm -rf build/matrix
	$(UV) run --frozen python -m skill_conformance.commands.matrix --out build/matrix \
		--run reference=.venv/bin/python \
		$(foreach p,$(REAL_PYTHON),--run agentpool=$(p)) \
		$(foreach n,$(THIRD_PARTY),--run $(n)=build/venvs/$(n)/bin/python) \
		--run mastra=.venv/bin/python

HISTORY_CACHE ?= build/history
UNTIL ?= HEAD

.PHONY: history
history: sync ## The suite at each commit of REPO touching skills, SINCE..UNTIL (+PR="344 350"): $(HISTORY_CACHE)/timeline.html
	@test -n "$(REPO)" -a -n "$(SINCE)" || { echo "usage: make history REPO=GITDIR SINCE=REV [UNTIL=REV] [PR='N ...']"; exit 2; }
	$(UV) run --frozen skill-conformance history --repo $(REPO) --since $(SINCE) --until $(UNTIL) \
		--cache $(HISTORY_CACHE) --uv $(UV) $(foreach n,$(PR),--pr $(n))

SYNTHETIC := build/synthetic-codebase

.PHONY: history-synthetic
history-synthetic: sync ## `history` on a synthetic codebase (tests/history/synthetic_codebase.py): a regression and its fix
	rm -rf $(SYNTHETIC) && mkdir -p $(SYNTHETIC)
	$(UV) run --frozen python tests/history/synthetic_codebase.py $(SYNTHETIC)/repo $(UV) > $(SYNTHETIC)/first
	$(UV) run --frozen skill-conformance history --repo $(SYNTHETIC)/repo --since $$(cat $(SYNTHETIC)/first) \
		--cache $(SYNTHETIC)/cache --uv $(UV) --python $$(readlink -f .venv/bin/python) \
		--impl synthskills.adapter:SynthImplementation --path ':(glob)src/*/skills/**' \
		--title 'synthskills history'
	@grep -q 'regress' $(SYNTHETIC)/cache/findings.md || { echo "history-synthetic: the regression was not found" >&2; exit 1; }

.PHONY: help
help: ## List the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

OLDEST := "pydantic-ai-slim[mcp]==1.102.0" "mcp==1.27.1" "pytest==8.0.2" "pydantic==2.13.4" "pytest-bdd==8.1.0" "pyyaml==6.0.2" "anyio==4.5.0" "jsonschema==4.20.0" "hypothesis==6.120.0"

.PHONY: conformance-oldest
conformance-oldest: $(UV) ## The conformance run at the oldest pins the suite supports (the real codebase's)
	rm -rf build/oldest && $(UV) venv --quiet build/oldest
	$(UV) pip install --quiet --python build/oldest/bin/python $(OLDEST) -e .
	build/oldest/bin/python -m skill_conformance run --impl reference -q
	build/oldest/bin/python -m pytest tests/runs/test_compat.py -p no:cacheprovider -q

# An interpreter of version $(1) (pyenv's where pyenv manages it, also when pyenv is not on PATH,
# as in .ci/run's clean environment), or nothing.
find-python = $(or $(shell PYENV_VERSION=$$(pyenv versions --bare 2>/dev/null | grep -m1 '^$(1)') \
	python$(1) -c 'import sys; print(sys.executable)' 2>/dev/null), \
	$(lastword $(sort $(wildcard $(HOME)/.pyenv/versions/$(1).*/bin/python$(1)))))
NEWEST_PYTHON ?= $(or $(call find-python,3.14),$(call find-python,3.13))
NEWEST := "mcp>=2"

.PHONY: conformance-newest
conformance-newest: $(UV) ## The conformance run on mcp 2.x and the newest Python found (3.14, else 3.13)
	@test -n "$(NEWEST_PYTHON)" || { echo "conformance-newest: no Python 3.14 or 3.13 found" >&2; exit 1; }
	rm -rf build/newest && $(UV) venv --quiet --python $(NEWEST_PYTHON) build/newest
	$(UV) pip install --quiet --python build/newest/bin/python $(NEWEST) -e .
	build/newest/bin/python -m skill_conformance run --impl reference -q
