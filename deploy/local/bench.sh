#!/usr/bin/env bash
# npm run bench:suite / bench:on-cpu: one command from a clean checkout. Installs what is missing, brings
# PostgreSQL/Redis/Kafka up, builds (Nx caches: a warm build is a cache replay), then runs the benchmark
# libs/testing/dist/bench/<entry> (its own stack, its own schemas; bench/README.md). URLs from the environment win.
# Usage: bash deploy/local/bench.sh suite/run-suite.js
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
log() { printf '[bench] %s\n' "$*" >&2; }
entry=${1:?usage: deploy/local/bench.sh <entry under libs/testing/dist/bench/>}
shift

if [ ! -x node_modules/.bin/nx ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm dependencies"
  npm ci --no-audit --no-fund --loglevel=error
fi

if [ -z "${DATABASE_URL:-}" ] || [ -z "${REDIS_URL:-}" ] || [ -z "${KAFKA_BROKERS:-}" ]; then
  while IFS='=' read -r key value; do
    [ -n "$key" ] && [ -z "${!key:-}" ] && export "$key=$value"
  done < <(bash deploy/local/infra.sh up)
fi

log "building"
npx nx run-many -t build --outputStyle=static >/dev/null 2>"$ROOT/.nx-build.log" || { cat "$ROOT/.nx-build.log" >&2; exit 1; }

# The repository's Node (node_modules/.bin first, as npm scripts see it), as the stack's services run.
exec node "libs/testing/dist/bench/$entry" "$@"
