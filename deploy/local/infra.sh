#!/usr/bin/env bash
# deploy/local/infra.sh — local dev/test infrastructure without Docker:
#   PostgreSQL 15 (Debian cluster 15/main), Redis (no persistence), single-node KRaft Kafka 4.1.1
#   (jars from Maven Central via deploy/kafka/pom.xml). Everything binds to 127.0.0.1.
#
# Usage: deploy/local/infra.sh up     [pg|redis|kafka ...]   install what is missing, start (reuses running services)
#        deploy/local/infra.sh down   [pg|redis|kafka ...]   stop what this script started
#        deploy/local/infra.sh status [pg|redis|kafka ...]   one line per component; exit 0 only if all answer
#        deploy/local/infra.sh env                           DATABASE_URL / REDIS_URL / KAFKA_BROKERS
#
# Env: PG_PORT (5432) REDIS_PORT (6379) KAFKA_PORT (9092) KAFKA_CONTROLLER_PORT (9093)
#      INFRA_STATE_DIR (<repo>/.infra) KAFKA_START_TIMEOUT (seconds, 120)
#      PG_DURABILITY (on): off only for a throwaway cluster of a test (fsync, full_page_writes, synchronous_commit off)
#      PG_CLUSTER (main) KAFKA_LIB (<state dir>/kafka/lib): a second, private PostgreSQL cluster or Kafka broker
#      (fault tests restart their own; libs/testing/src/private-infra.ts) with another state dir and ports.
# Progress goes to stderr ("[infra] ..."); `up` and `env` print the connection variables on stdout.
# Must run as root (apt, pg_ctlcluster). Safe to run repeatedly; a no-op `up` takes well under a second.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KAFKA_CFG_DIR=$REPO_ROOT/deploy/kafka
STATE_DIR=${INFRA_STATE_DIR:-$REPO_ROOT/.infra}

PG_PORT=${PG_PORT:-5432}
REDIS_PORT=${REDIS_PORT:-6379}
KAFKA_PORT=${KAFKA_PORT:-9092}
KAFKA_CONTROLLER_PORT=${KAFKA_CONTROLLER_PORT:-9093}
KAFKA_START_TIMEOUT=${KAFKA_START_TIMEOUT:-120}

PG_VERSION=15
PG_CLUSTER=${PG_CLUSTER:-main}
PG_CONF_DIR=/etc/postgresql/$PG_VERSION/$PG_CLUSTER
PG_HBA=$PG_CONF_DIR/pg_hba.conf
PG_LOCAL_CONF=$PG_CONF_DIR/conf.d/zz-local-infra.conf
PG_MANAGED_MARK=$STATE_DIR/pg/managed
APP_USER=app APP_PASS=app APP_DB=app
# The tests' database (TEST_DATABASE_URL): commits there do not wait for their WAL flush (synchronous_commit off, a
# per-database setting), a crash may lose its last commits but never corrupts the cluster. APP_DB, which `npm start`
# keeps, is durable: PostgreSQL's safe defaults, stated so that a cluster an older version configured gets them back.
APP_TEST_DB=app_test
PG_DURABILITY=${PG_DURABILITY:-on}
case "$PG_DURABILITY" in
  on)  PG_SETTINGS=(fsync=on synchronous_commit=on full_page_writes=on max_connections=400) ;;
  off) PG_SETTINGS=(fsync=off synchronous_commit=off full_page_writes=off max_connections=400) ;;
  *) printf '[infra] ERROR: PG_DURABILITY must be on or off (got %s)\n' "$PG_DURABILITY" >&2; exit 1 ;;
esac

REDIS_DIR=$STATE_DIR/redis
REDIS_PID=$REDIS_DIR/redis.pid
REDIS_LOG=$REDIS_DIR/redis.log

KAFKA_DIR=$STATE_DIR/kafka
KAFKA_LIB=${KAFKA_LIB:-$KAFKA_DIR/lib}
KAFKA_DATA=$KAFKA_DIR/data
KAFKA_LOGS=$KAFKA_DIR/logs
KAFKA_PID=$KAFKA_DIR/kafka.pid
KAFKA_CLUSTER_ID=$KAFKA_DIR/cluster.id
KAFKA_PROPS=$KAFKA_DIR/server.properties
KAFKA_LIB_STAMP=$KAFKA_LIB/.complete

export DEBIAN_FRONTEND=noninteractive

log() { printf '[infra] %s\n' "$*" >&2; }
die() { printf '[infra] ERROR: %s\n' "$*" >&2; exit 1; }

print_env() {
  echo "DATABASE_URL=postgres://$APP_USER:$APP_PASS@127.0.0.1:$PG_PORT/$APP_DB"
  echo "TEST_DATABASE_URL=postgres://$APP_USER:$APP_PASS@127.0.0.1:$PG_PORT/$APP_TEST_DB"
  echo "REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
  echo "KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT"
}

# ---------------------------------------------------------------- probes (fast, no side effects)
pg_up()    { command -v pg_isready >/dev/null && pg_isready -q -h 127.0.0.1 -p "$PG_PORT" -t 2; }
redis_up() { command -v redis-cli >/dev/null && [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }

port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

# A live broker answers an ApiVersions v0 request (api_key 18) and echoes our correlation id ("INFR").
# A plain TCP connect is not enough: the socket accepts before request processing is enabled.
kafka_up() {
  local out
  out=$(timeout 3 bash -c '
    exec 3<>/dev/tcp/127.0.0.1/'"$KAFKA_PORT"' || exit 1
    printf "\x00\x00\x00\x0f\x00\x12\x00\x00INFR\x00\x05infra" >&3
    head -c 8 <&3 | od -An -tx1' 2>/dev/null) || return 1
  [[ $(echo $out) == *"49 4e 46 52" ]]
}

# FindCoordinator v1 (api_key 10) for a dummy group: the first one makes the broker create
# __consumer_offsets; returns 0 once the group coordinator is available (error_code 0).
kafka_coordinator_ready() {
  local out
  out=$(timeout 3 bash -c '
    exec 3<>/dev/tcp/127.0.0.1/'"$KAFKA_PORT"' || exit 1
    printf "\x00\x00\x00\x1e\x00\x0a\x00\x01INFR\x00\x05infra\x00\x0cinfra-warmup\x00" >&3
    head -c 14 <&3 | od -An -tx1' 2>/dev/null) || return 1
  [[ $(echo $out) == *"49 4e 46 52 "*" 00 00" ]]
}

# pid from a pidfile, only if alive and its command line matches (guards against pid reuse).
live_pid() { # <pidfile> <cmdline-substring>
  local pid
  [ -s "$1" ] || return 1
  pid=$(head -1 "$1")
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$2" || return 1
  echo "$pid"
}

# ---------------------------------------------------------------- installation
ensure_packages() {
  local need=()
  if want pg; then
    { [ -x /usr/lib/postgresql/$PG_VERSION/bin/postgres ] && command -v pg_ctlcluster >/dev/null; } || need+=(postgresql)
  fi
  if want redis; then
    { command -v redis-server >/dev/null && command -v redis-cli >/dev/null; } || need+=(redis-server)
  fi
  if want kafka; then
    command -v java >/dev/null || need+=(openjdk-17-jre-headless)
    if ! kafka_lib_complete && ! command -v mvn >/dev/null; then need+=(maven); fi
  fi
  ((${#need[@]})) || return 0
  [ "$(id -u)" = 0 ] || die "missing packages (${need[*]}) and not root"
  log "installing: ${need[*]} (apt)"
  apt-get update -qq >&2
  # policy-rc.d (exit 101) stops postinst from starting services: expected, we start them ourselves.
  apt-get install -y -qq -o Dpkg::Use-Pty=0 "${need[@]}" >&2
}

# ---------------------------------------------------------------- PostgreSQL
pg_cluster_running() { pg_ctlcluster "$PG_VERSION" "$PG_CLUSTER" status >/dev/null 2>&1; }
pg_psql() { psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtAX "$@"; }

pg_configure() { # returns via globals: PG_CONF_CHANGED, PG_NEEDS_RESTART
  PG_CONF_CHANGED=0 PG_NEEDS_RESTART=0
  if ! pg_lsclusters -h 2>/dev/null | awk '{print $1" "$2}' | grep -qx "$PG_VERSION $PG_CLUSTER"; then
    log "creating cluster $PG_VERSION/$PG_CLUSTER"
    pg_createcluster "$PG_VERSION" "$PG_CLUSTER" --port "$PG_PORT" >&2
  fi
  local cur_port
  cur_port=$(pg_conftool -s "$PG_VERSION" "$PG_CLUSTER" show port 2>/dev/null || echo 5432)
  if [ "$cur_port" != "$PG_PORT" ]; then
    log "postgres: port $cur_port -> $PG_PORT"
    pg_conftool "$PG_VERSION" "$PG_CLUSTER" set port "$PG_PORT"
    PG_CONF_CHANGED=1 PG_NEEDS_RESTART=1
  fi
  # pg_hba is first-match: prepend trust for local socket + loopback.
  if ! grep -q '^# local-infra: trust' "$PG_HBA"; then
    log "postgres: trust auth for local/127.0.0.1/::1 (pg_hba.conf)"
    sed -i '1i # local-infra: trust\nlocal all all trust\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$PG_HBA"
    PG_CONF_CHANGED=1
  fi
  # PG_SETTINGS in conf.d (included by Debian's postgresql.conf; zz- sorts last).
  local want_conf s
  want_conf="# managed by deploy/local/infra.sh (PG_DURABILITY=$PG_DURABILITY)"$'\n'
  for s in "${PG_SETTINGS[@]}"; do want_conf+="${s%%=*} = ${s#*=}"$'\n'; done
  if [ "$(cat "$PG_LOCAL_CONF" 2>/dev/null)"$'\n' != "$want_conf" ]; then
    log "postgres: writing $PG_LOCAL_CONF (${PG_SETTINGS[*]})"
    mkdir -p "$(dirname "$PG_LOCAL_CONF")"
    printf '%s' "$want_conf" >"$PG_LOCAL_CONF"
    chown postgres:postgres "$PG_LOCAL_CONF" 2>/dev/null || true
    PG_CONF_CHANGED=1
  fi
}

# names of PG_SETTINGS whose live value differs; with "postmaster": only those needing a restart
pg_mismatched() {
  local where="" s
  for s in "${PG_SETTINGS[@]}"; do where+="${where:+ OR }(name='${s%%=*}' AND setting<>'${s#*=}')"; done
  [ "${1:-}" = postmaster ] && where="($where) AND context='postmaster'"
  pg_psql -c "SELECT name FROM pg_settings WHERE $where" | tr '\n' ' '
}

pg_start() {
  pg_configure
  if pg_up; then
    if pg_cluster_running; then
      if ((PG_CONF_CHANGED)); then
        log "postgres: reloading configuration"
        pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" "$PG_CLUSTER" reload >&2
        sleep 0.3
      fi
      # Restart only for restart-only (postmaster) settings that this run changed, or that a
      # reload reported as pending; a value overridden elsewhere (postgresql.auto.conf) only warns.
      local pm=""
      ((PG_CONF_CHANGED)) && pm=$(pg_mismatched postmaster)
      pm+=$(pg_psql -c "SELECT name FROM pg_settings WHERE pending_restart" | tr '\n' ' ')
      pm=$(printf '%s\n' $pm | sort -u | tr '\n' ' ')
      if ((PG_NEEDS_RESTART)) || [ -n "${pm// /}" ]; then
        log "postgres: restarting (restart-only settings changed: ${pm:-port})"
        pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" "$PG_CLUSTER" restart >&2
        pg_isready -q -h 127.0.0.1 -p "$PG_PORT" -t 30 || die "postgres did not come back after restart"
      fi
    else
      log "postgres: something else already answers on 127.0.0.1:$PG_PORT (not cluster $PG_VERSION/$PG_CLUSTER); reusing it"
    fi
    log "postgres: already running on 127.0.0.1:$PG_PORT"
  else
    log "postgres: starting cluster $PG_VERSION/$PG_CLUSTER on 127.0.0.1:$PG_PORT"
    pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" "$PG_CLUSTER" start >&2 \
      || { tail -n 20 "/var/log/postgresql/postgresql-$PG_VERSION-$PG_CLUSTER.log" >&2 || true; die "postgres failed to start"; }
    mkdir -p "$(dirname "$PG_MANAGED_MARK")" && : >"$PG_MANAGED_MARK"
    pg_isready -q -h 127.0.0.1 -p "$PG_PORT" -t 30 || die "postgres not ready on 127.0.0.1:$PG_PORT after 30 s"
  fi
  local bad
  bad=$(pg_mismatched)
  [ -z "${bad// /}" ] || log "postgres: WARNING settings not in effect (overridden in postgresql.auto.conf?): $bad"
  # role + database
  case "$(pg_psql -c "SELECT rolsuper FROM pg_roles WHERE rolname='$APP_USER'")" in
    t) ;;
    f) log "postgres: making role $APP_USER SUPERUSER"
       pg_psql -c "ALTER ROLE \"$APP_USER\" LOGIN SUPERUSER PASSWORD '$APP_PASS'" ;;
    *) log "postgres: creating role $APP_USER"
       pg_psql -c "CREATE ROLE \"$APP_USER\" LOGIN SUPERUSER PASSWORD '$APP_PASS'" ;;
  esac
  local db
  for db in "$APP_DB" "$APP_TEST_DB"; do
    if [ "$(pg_psql -c "SELECT 1 FROM pg_database WHERE datname='$db'")" != 1 ]; then
      log "postgres: creating database $db"
      pg_psql -c "CREATE DATABASE \"$db\" OWNER \"$APP_USER\""
    fi
  done
  if [ "$(pg_psql -c "SELECT count(*) FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
        WHERE d.datname = '$APP_TEST_DB' AND s.setrole = 0 AND 'synchronous_commit=off' = ANY (s.setconfig)")" != 1 ]; then
    log "postgres: $APP_TEST_DB commits without waiting for the WAL flush (synchronous_commit off)"
    pg_psql -c "ALTER DATABASE \"$APP_TEST_DB\" SET synchronous_commit = off"
  fi
}

pg_stop() {
  if [ ! -e "$PG_MANAGED_MARK" ]; then
    if pg_up; then log "postgres: running but not started by this script; leaving it"; else log "postgres: not running"; fi
    return 0
  fi
  if pg_cluster_running; then
    log "postgres: stopping cluster $PG_VERSION/$PG_CLUSTER"
    pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" "$PG_CLUSTER" stop >&2
  else
    log "postgres: not running"
  fi
  rm -f "$PG_MANAGED_MARK"
}

# ---------------------------------------------------------------- Redis
redis_start() {
  if redis_up; then log "redis: already running on 127.0.0.1:$REDIS_PORT"; return 0; fi
  port_open "$REDIS_PORT" && die "redis: port $REDIS_PORT is taken by something that does not answer PING"
  log "redis: starting on 127.0.0.1:$REDIS_PORT (no persistence)"
  mkdir -p "$REDIS_DIR"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no \
    --dir "$REDIS_DIR" --logfile "$REDIS_LOG" --pidfile "$REDIS_PID" </dev/null >&2
  local i
  for i in $(seq 100); do redis_up && return 0; sleep 0.1; done
  tail -n 20 "$REDIS_LOG" >&2 || true
  die "redis did not answer PING on 127.0.0.1:$REDIS_PORT within 10 s"
}

redis_stop() {
  local pid
  if ! pid=$(live_pid "$REDIS_PID" redis-server); then
    if redis_up; then log "redis: running but not started by this script; leaving it"; else log "redis: not running"; fi
    rm -f "$REDIS_PID"; return 0
  fi
  log "redis: shutdown nosave (pid $pid)"
  redis-cli -h 127.0.0.1 -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || kill -TERM "$pid" 2>/dev/null || true
  local i
  for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && { log "redis: still alive, KILL"; kill -KILL "$pid" 2>/dev/null || true; }
  rm -f "$REDIS_PID"
}

# ---------------------------------------------------------------- Kafka
pom_hash() { sha256sum "$KAFKA_CFG_DIR/pom.xml" | cut -d' ' -f1; }

# complete = stamp written after a successful copy, for this pom.xml, and every listed jar present
kafka_lib_complete() {
  [ -s "$KAFKA_LIB_STAMP" ] || return 1
  [ "$(head -1 "$KAFKA_LIB_STAMP")" = "$(pom_hash)" ] || return 1
  local jar
  while read -r jar; do [ -s "$KAFKA_LIB/$jar" ] || return 1; done < <(tail -n +2 "$KAFKA_LIB_STAMP")
}

kafka_resolve_jars() {
  kafka_lib_complete && return 0
  log "kafka: resolving broker jars from Maven Central (deploy/kafka/pom.xml) -> $KAFKA_LIB"
  local tmp=$KAFKA_DIR/lib.tmp
  rm -rf "$tmp"; mkdir -p "$KAFKA_DIR" "$(dirname "$KAFKA_LIB")"
  # (sed: Maven 3.8 prints stray ANSI resets even with -B -q)
  mvn -q -B -Dstyle.color=never -f "$KAFKA_CFG_DIR/pom.xml" \
    org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
    -DoutputDirectory="$tmp" -DincludeScope=runtime 2>&1 </dev/null | sed 's/\x1b\[[0-9;]*m//g' >&2 \
    || die "kafka: mvn copy-dependencies failed"
  ls "$tmp"/kafka_2.13-*.jar >/dev/null 2>&1 || die "kafka: kafka_2.13 jar missing after copy-dependencies"
  { pom_hash; (cd "$tmp" && ls -1 -- *.jar); } >"$tmp/.complete"
  rm -rf "$KAFKA_LIB"; mv "$tmp" "$KAFKA_LIB"
  log "kafka: $(($(wc -l <"$KAFKA_LIB_STAMP") - 1)) jars in $KAFKA_LIB"
}

kafka_java_opts() {
  # -XX:TieredStopAtLevel=1 -XX:-UsePerfData: faster JVM start on small machines (dev/test only)
  JOPTS=(-XX:TieredStopAtLevel=1 -XX:-UsePerfData -Dlog4j2.configurationFile="$KAFKA_CFG_DIR/log4j2.properties" -Dkafka.logs.dir="$KAFKA_LOGS"
         -Djava.awt.headless=true -cp "$KAFKA_LIB/*")
}

kafka_render_config() { # [file] (default: $KAFKA_PROPS)
  local out=${1:-$KAFKA_PROPS}
  mkdir -p "$KAFKA_DATA" "$KAFKA_LOGS"
  sed -e "s#@LOG_DIRS@#$KAFKA_DATA#g" -e "s#@KAFKA_PORT@#$KAFKA_PORT#g" \
      -e "s#@CONTROLLER_PORT@#$KAFKA_CONTROLLER_PORT#g" \
      "$KAFKA_CFG_DIR/server.properties.tmpl" >"$out.tmp"
  mv "$out.tmp" "$out"
}

# Our broker runs with a configuration other than the template's (a checkout that changed it): restart it once.
kafka_config_stale() {
  live_pid "$KAFKA_PID" kafka.Kafka >/dev/null || return 1
  [ -f "$KAFKA_PROPS" ] || return 1
  kafka_render_config "$KAFKA_DIR/server.properties.want"
  if cmp -s "$KAFKA_DIR/server.properties.want" "$KAFKA_PROPS"; then rm -f "$KAFKA_DIR/server.properties.want"; return 1; fi
  rm -f "$KAFKA_DIR/server.properties.want"
}

# Format once; the cluster id lives next to data/ and must match data/meta.properties.
kafka_format() {
  local meta=$KAFKA_DATA/meta.properties id
  if [ -s "$meta" ]; then
    id=$(sed -n 's/^cluster\.id=//p' "$meta")
    [ -n "$id" ] || die "kafka: $meta has no cluster.id"
    [ "$(cat "$KAFKA_CLUSTER_ID" 2>/dev/null)" = "$id" ] || echo "$id" >"$KAFKA_CLUSTER_ID"
    return 0
  fi
  if [ ! -s "$KAFKA_CLUSTER_ID" ]; then
    java "${JOPTS[@]}" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1 >"$KAFKA_CLUSTER_ID.tmp"
    grep -Eq '^[A-Za-z0-9_-]{22}$' "$KAFKA_CLUSTER_ID.tmp" || die "kafka: random-uuid failed: $(cat "$KAFKA_CLUSTER_ID.tmp")"
    mv "$KAFKA_CLUSTER_ID.tmp" "$KAFKA_CLUSTER_ID"
  fi
  log "kafka: formatting $KAFKA_DATA (cluster id $(cat "$KAFKA_CLUSTER_ID"))"
  # static quorum (controller.quorum.voters) -> no --standalone; -g = ignore already formatted dirs
  java "${JOPTS[@]}" kafka.tools.StorageTool format -t "$(cat "$KAFKA_CLUSTER_ID")" -c "$KAFKA_PROPS" -g >&2 \
    || die "kafka: storage format failed"
}

kafka_wait_ready() { # <pid>
  local pid=$1 deadline=$((SECONDS + KAFKA_START_TIMEOUT))
  while ((SECONDS < deadline)); do
    if grep -q 'Kafka Server started' "$KAFKA_LOGS/server.log" 2>/dev/null && kafka_up; then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then
      log "kafka: broker process $pid exited during startup; last log lines:"
      tail -n 30 "$KAFKA_LOGS/server.log" >&2 2>/dev/null || true
      tail -n 15 "$KAFKA_LOGS/stdout.log" >&2 2>/dev/null || true
      die "kafka failed to start (logs: $KAFKA_LOGS)"
    fi
    sleep 0.25
  done
  log "kafka: no 'Kafka Server started' after ${KAFKA_START_TIMEOUT}s; last log lines:"
  tail -n 30 "$KAFKA_LOGS/server.log" >&2 2>/dev/null || true
  tail -n 15 "$KAFKA_LOGS/stdout.log" >&2 2>/dev/null || true
  die "kafka start timed out after ${KAFKA_START_TIMEOUT}s (pid $pid still running; logs: $KAFKA_LOGS)"
}

kafka_start() {
  local pid
  if kafka_up && kafka_config_stale; then
    log "kafka: deploy/kafka/server.properties.tmpl changed since the broker started; restarting it"
    kafka_stop
  fi
  if kafka_up; then log "kafka: already running on 127.0.0.1:$KAFKA_PORT"; return 0; fi
  if pid=$(live_pid "$KAFKA_PID" kafka.Kafka); then      # ours, still starting
    log "kafka: broker pid $pid is starting; waiting"
    kafka_wait_ready "$pid"; log "kafka: ready on 127.0.0.1:$KAFKA_PORT"; return 0
  fi
  port_open "$KAFKA_PORT" && die "kafka: port $KAFKA_PORT is taken by something that is not a live Kafka broker"
  port_open "$KAFKA_CONTROLLER_PORT" && die "kafka: controller port $KAFKA_CONTROLLER_PORT is already in use"
  command -v java >/dev/null || die "java not found"
  kafka_resolve_jars
  kafka_java_opts
  kafka_render_config
  kafka_format
  [ -f "$KAFKA_LOGS/server.log" ] && mv -f "$KAFKA_LOGS/server.log" "$KAFKA_LOGS/server.log.prev"
  [ -f "$KAFKA_LOGS/stdout.log" ] && mv -f "$KAFKA_LOGS/stdout.log" "$KAFKA_LOGS/stdout.log.prev"
  log "kafka: starting KRaft broker on 127.0.0.1:$KAFKA_PORT (controller $KAFKA_CONTROLLER_PORT)"
  # Own session (setsid): survives this shell / CI step, no controlling TTY; stdin detached.
  # The inner shell writes its own pid and execs java, so the pidfile is the JVM's pid even if setsid forks.
  rm -f "$KAFKA_PID"
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$KAFKA_PID" \
    java -Xms256m -Xmx768m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 "${JOPTS[@]}" \
    kafka.Kafka "$KAFKA_PROPS" </dev/null >"$KAFKA_LOGS/stdout.log" 2>&1 &
  for _ in $(seq 50); do [ -s "$KAFKA_PID" ] && break; sleep 0.1; done
  pid=$(cat "$KAFKA_PID" 2>/dev/null) || die "kafka: launcher did not write $KAFKA_PID"
  kafka_wait_ready "$pid"
  # Pre-create __consumer_offsets so the first consumer group does not hit
  # "The group coordinator is not available" (a retried, but ERROR-logged, response in kafkajs).
  local i
  for i in $(seq 60); do kafka_coordinator_ready && break; sleep 0.25; done
  kafka_coordinator_ready || log "kafka: WARNING group coordinator not available yet (clients will retry)"
  log "kafka: ready on 127.0.0.1:$KAFKA_PORT (pid $pid)"
}

kafka_stop() {
  local pid i
  if ! pid=$(live_pid "$KAFKA_PID" kafka.Kafka); then
    if kafka_up; then log "kafka: running but not started by this script; leaving it"; else log "kafka: not running"; fi
    rm -f "$KAFKA_PID"; return 0
  fi
  log "kafka: stopping broker (pid $pid, TERM)"
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  if kill -0 "$pid" 2>/dev/null; then
    log "kafka: still alive after 30 s, KILL"
    kill -KILL "$pid" 2>/dev/null || true
    for i in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$KAFKA_PID"
}

# ---------------------------------------------------------------- main
ALL=(pg redis kafka)
COMPONENTS=()
want() { local c; for c in "${COMPONENTS[@]}"; do [ "$c" = "$1" ] && return 0; done; return 1; }

parse_components() {
  local c
  COMPONENTS=()
  (($#)) || { COMPONENTS=("${ALL[@]}"); return 0; }
  for c in "$@"; do
    case "$c" in
      pg|postgres|postgresql) COMPONENTS+=(pg) ;;
      redis) COMPONENTS+=(redis) ;;
      kafka) COMPONENTS+=(kafka) ;;
      *) die "unknown component '$c' (expected: pg redis kafka)" ;;
    esac
  done
}

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; }

cmd=${1:-}; (($#)) && shift
case "$cmd" in
  up)
    parse_components "$@"
    [ "$(id -u)" = 0 ] || die "run as root (apt-get, pg_ctlcluster)"
    mkdir -p "$STATE_DIR"
    ensure_packages
    if want pg; then pg_start; fi
    if want redis; then redis_start; fi
    if want kafka; then kafka_start; fi
    print_env
    ;;
  down)
    parse_components "$@"
    if want kafka; then kafka_stop; fi
    if want redis; then redis_stop; fi
    if want pg; then pg_stop; fi
    ;;
  status)
    parse_components "$@"
    rc=0
    if want pg; then
      if pg_up; then echo "pg     up    127.0.0.1:$PG_PORT"; else echo "pg     down  127.0.0.1:$PG_PORT"; rc=1; fi
    fi
    if want redis; then
      if redis_up; then echo "redis  up    127.0.0.1:$REDIS_PORT"; else echo "redis  down  127.0.0.1:$REDIS_PORT"; rc=1; fi
    fi
    if want kafka; then
      if kafka_up; then echo "kafka  up    127.0.0.1:$KAFKA_PORT"; else echo "kafka  down  127.0.0.1:$KAFKA_PORT"; rc=1; fi
    fi
    exit $rc
    ;;
  env) print_env ;;
  -h|--help|help) usage ;;
  *) usage; exit 2 ;;
esac
