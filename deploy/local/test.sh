#!/usr/bin/env bash
# npm test: install what is missing, bring PostgreSQL/Redis/Kafka up, build (incl. buf lint +
# generate), then every unit, integration and end-to-end test against the real infrastructure.
# Extra arguments go to jest (e.g. npm test -- apps/projects).
set -euo pipefail
cd "$(dirname "$0")/../.."
t0=$SECONDS
log() { printf '[test] %s\n' "$*" >&2; }

if [ ! -x node_modules/.bin/nx ]; then log "installing npm dependencies"; npm ci --no-audit --no-fund --loglevel=error; fi

# Infrastructure: URLs from the environment win; otherwise the local processes, which the
# Kafka-restart tests need (they stop and start the broker with infra.sh). Running jest directly
# without URLs, libs/testing uses testcontainers when a Docker engine answers, else infra.sh.
# Tests use the tests' database (TEST_DATABASE_URL), never the one `npm start` keeps.
if [ -z "${DATABASE_URL:-}" ] || [ -z "${REDIS_URL:-}" ] || [ -z "${KAFKA_BROKERS:-}" ]; then
  while IFS='=' read -r key value; do
    case $key in DATABASE_URL) continue ;; TEST_DATABASE_URL) key=DATABASE_URL ;; esac
    [ -n "$key" ] && [ -z "${!key:-}" ] && export "$key=$value"
  done < <(bash deploy/local/infra.sh up)
fi

bash deploy/local/python-clients.sh   # python-gitlab for the e2e tests, kubernetes-validate for the chart tests
bash deploy/local/helm.sh >/dev/null  # helm for the chart tests (charts/*/test)

log "buf lint"
(cd proto && ../node_modules/.bin/buf lint)
log "build"
npx nx run-many -t build --outputStyle=static

# Tests that stop shared infrastructure (Kafka restart) run alone, after the rest.
SERIAL='kafka-restart'
log "jest (parallel part)"
npx jest --ci "$@" --testPathIgnorePatterns="$SERIAL"
if [ $# -eq 0 ]; then
  log "jest (serial part: tests that restart infrastructure)"
  npx jest --ci --runInBand --testPathPatterns="$SERIAL"
fi
log "all tests passed in $((SECONDS - t0)) s"
