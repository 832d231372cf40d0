#!/usr/bin/env bash
# npm run bench:suite / bench:on-cpu: one command from a clean checkout. Installs what is missing, brings
# PostgreSQL/Redis/Kafka up, builds (Nx caches: a warm build is a cache replay), then runs the benchmark
# libs/testing/dist/bench/<entry> (its own stack, its own schemas; bench/README.md). URLs from the environment win.
# Usage: bash deploy/local/bench.sh suite/run-suite.js
set -euo pipefail
cd "$(dirname "$0")/../.."
log() { printf '[bench] %s\n' "$*" >&2; }
entry=${1:?usage: deploy/local/bench.sh <entry under libs/testing/dist/bench/>}
shift

source deploy/local/prepare.sh
ensure_npm_deps
if [ -z "${DATABASE_URL:-}" ] || [ -z "${REDIS_URL:-}" ] || [ -z "${KAFKA_BROKERS:-}" ]; then export_infra_env; fi
build_quietly

# The repository's Node (node_modules/.bin first, as npm scripts see it), as the stack's services run.
exec node "libs/testing/dist/bench/$entry" "$@"
