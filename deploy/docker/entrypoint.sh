#!/bin/sh
# Runs one service of the image: SERVICE=<name> chooses apps/<name>/dist/main.js.
#   ROLE=serve (default)   the service
#   ROLE=migrate           that service's regular migrations, then exit (also: the argument `migrate`); before a rollout
#   ROLE=migrate-post      its regular and post-deployment migrations (migrations/post/), then exit; after a rollout
# The gateway has no database: its migrate role is a no-op.
set -eu
role=${ROLE:-serve}
if [ "${1:-}" = migrate ]; then role=migrate; shift; fi

case "${SERVICE:-}" in
  gateway|identity|projects|access-requests|repo-admin|hooks|webhook-dispatcher|push-rules) ;;
  *)
    echo "entrypoint: SERVICE must be one of gateway identity projects access-requests repo-admin hooks webhook-dispatcher push-rules (got '${SERVICE:-}')" >&2
    exit 64 ;;
esac
main=${APP_DIR:-/app}/apps/$SERVICE/dist/main.js

case "$role" in
  # --no-memory-reducer: as deploy/local/services.sh SERVICE_NODE_FLAGS (an idle process's heap is not shrunk);
  # --max-semi-space-size=4 for gateway and projects: as its HOT_PATH_NODE_FLAGS (short scavenge pauses).
  serve)
    hot_path=
    case "$SERVICE" in gateway|projects) hot_path=--max-semi-space-size=4 ;; esac
    # shellcheck disable=SC2086 # empty for the other services: no argument at all
    exec node --no-memory-reducer $hot_path "$main" "$@" ;;
  migrate|migrate-post)
    if [ "$SERVICE" = gateway ]; then echo "entrypoint: gateway has no migrations"; exit 0; fi
    if [ "$role" = migrate-post ]; then exec node "$main" migrate --post; fi
    exec node "$main" migrate ;;
  *) echo "entrypoint: ROLE must be serve, migrate or migrate-post (got '$role')" >&2; exit 64 ;;
esac
