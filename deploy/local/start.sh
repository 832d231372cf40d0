#!/usr/bin/env bash
# npm start: install what is missing, bring PostgreSQL/Redis/Kafka up, build, and run every
# service as its own process (logs prefixed by service). Gateway: http://127.0.0.1:${PORT:-8080}.
# Ctrl-C (or SIGTERM) stops the services; the infrastructure keeps running (deploy/local/infra.sh down).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
t0=$(date +%s.%N)
log() { printf '[start] %s\n' "$*" >&2; }

source deploy/local/prepare.sh
# 1. Dependencies (npm ci when the lock file is newer than the installed tree).
ensure_npm_deps
# 2. Infrastructure (idempotent; a no-op when everything answers). URLs from the environment win.
export_infra_env
# 3. Build (Nx caches: a warm build is a cache replay).
build_quietly

# 4. Services. NODE_ENV=development allows the built-in ACTOR_SECRET (services refuse it otherwise).
export NODE_ENV=${NODE_ENV:-development}
# The gateway echoes INSTANCE_ID on /-/readiness: "ready" below means OUR gateway answers, not any process on the port.
export INSTANCE_ID=${INSTANCE_ID:-start-$$-$RANDOM}
export DATA_DIR=${DATA_DIR:-$ROOT/.data}
# One node, every service restarted together: nothing of an older release still runs, so each service applies its
# post-deployment migrations (migrations/post/) at start-up too. A cluster runs them after its rollout instead.
export MIGRATE_POST_DEPLOYMENT=${MIGRATE_POST_DEPLOYMENT:-true}
export PORT=${PORT:-8080}
export IDENTITY_GRPC_ADDR=${IDENTITY_GRPC_ADDR:-127.0.0.1:50051} PROJECTS_GRPC_ADDR=${PROJECTS_GRPC_ADDR:-127.0.0.1:50052}
export ACCESS_REQUESTS_GRPC_ADDR=${ACCESS_REQUESTS_GRPC_ADDR:-127.0.0.1:50053} REPO_ADMIN_GRPC_ADDR=${REPO_ADMIN_GRPC_ADDR:-127.0.0.1:50054}
export HOOKS_GRPC_ADDR=${HOOKS_GRPC_ADDR:-127.0.0.1:50055} WEBHOOK_DISPATCHER_GRPC_ADDR=${WEBHOOK_DISPATCHER_GRPC_ADDR:-127.0.0.1:50056}
export PUSH_RULES_GRPC_ADDR=${PUSH_RULES_GRPC_ADDR:-127.0.0.1:50057}
# repo-admin's git HTTP listener (git clone/push at http_url_to_repo go gateway → there); its port follows the URL.
export REPO_ADMIN_HTTP_URL=${REPO_ADMIN_HTTP_URL:-http://127.0.0.1:8081}
repo_admin_http_port=${REPO_ADMIN_HTTP_URL##*:}; repo_admin_http_port=${repo_admin_http_port%%/*}
port_busy() { timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }
for p in "$PORT" "${IDENTITY_GRPC_ADDR##*:}" "${PROJECTS_GRPC_ADDR##*:}" "${ACCESS_REQUESTS_GRPC_ADDR##*:}" "${REPO_ADMIN_GRPC_ADDR##*:}" "$repo_admin_http_port" "${HOOKS_GRPC_ADDR##*:}" "${WEBHOOK_DISPATCHER_GRPC_ADDR##*:}" "${PUSH_RULES_GRPC_ADDR##*:}" 9100 9101 9102 9103 9104 9105 9106 9107; do
  if port_busy "$p"; then log "port $p is already in use (is the stack already running?)"; exit 1; fi
done
mkdir -p "$DATA_DIR"
source deploy/local/services.sh
pids=()
stop_all() {
  trap - INT TERM EXIT
  log "stopping services"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop_all INT TERM EXIT
for entry in "${SERVICES[@]}"; do
  name=${entry%% *} main=${entry#* }
  case $name in
    identity) export GRPC_PORT=${IDENTITY_GRPC_ADDR##*:} ;;
    projects) export GRPC_PORT=${PROJECTS_GRPC_ADDR##*:} ;;
    access-requests) export GRPC_PORT=${ACCESS_REQUESTS_GRPC_ADDR##*:} ;;
    repo-admin) export GRPC_PORT=${REPO_ADMIN_GRPC_ADDR##*:} HTTP_PORT=$repo_admin_http_port ;;
    hooks) export GRPC_PORT=${HOOKS_GRPC_ADDR##*:} ;;
    webhook-dispatcher) export GRPC_PORT=${WEBHOOK_DISPATCHER_GRPC_ADDR##*:} ;;
    push-rules) export GRPC_PORT=${PUSH_RULES_GRPC_ADDR##*:} ;;
  esac
  # Each service's output, line by line, prefixed with its name. The prefixer reads in blocks, writes per line,
  # and ignores Ctrl-C/TERM: it ends when its service closes the pipe, so shutdown lines are kept and a service
  # never writes into a pipe without a reader. The pid in $! is node's.
  flags=("${SERVICE_NODE_FLAGS[@]}")
  case $name in gateway|projects) flags+=("${HOT_PATH_NODE_FLAGS[@]}") ;; esac
  node "${flags[@]}" "$main" > >(trap '' INT TERM; exec awk -v p="[$name] " '{ print p $0; fflush() }') 2>&1 &
  pids+=($!)
done
unset GRPC_PORT HTTP_PORT

url="http://127.0.0.1:$PORT"
bash deploy/local/wait-for-gateway.sh "$url" "$INSTANCE_ID" 60 "${pids[@]}" || exit 1
elapsed=$(echo "$(date +%s.%N) - $t0" | bc)
if [ -n "${GITLAB_ROOT_TOKEN:-}" ]; then token_hint="the GITLAB_ROOT_TOKEN you set"; else token_hint="$DATA_DIR/root-token (cat it)"; fi
cat >&2 <<MSG

  GitLab-compatible API ready in ${elapsed%.*}s: $url/api/v4
  administrator: root, token: $token_hint
  try: curl -H "PRIVATE-TOKEN: \$(cat $DATA_DIR/root-token 2>/dev/null || echo \$GITLAB_ROOT_TOKEN)" -d name=demo $url/api/v4/projects
  Ctrl-C stops the services (infrastructure stays up: deploy/local/infra.sh down).

MSG
wait -n "${pids[@]}" || true
log "a service exited; stopping the others"
