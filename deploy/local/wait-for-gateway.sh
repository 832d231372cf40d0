#!/usr/bin/env bash
# wait-for-gateway.sh URL INSTANCE_ID TIMEOUT_SECONDS [PID...]
# Waits until GET URL/-/readiness answers 200 with "instance":"INSTANCE_ID": our own gateway, not whatever other
# process may answer on that port. Exits 1 when a watched PID exits, or at the timeout (saying what answered, if
# anything did). Used by start.sh; tested in apps/gateway/test/e2e/start-script.test.ts.
set -uo pipefail
url=$1 instance=$2 timeout_s=$3
shift 3
deadline=$((SECONDS + timeout_s))
foreign=''
while [ "$SECONDS" -lt "$deadline" ]; do
  body=$(curl -fsS --max-time 2 "$url/-/readiness" 2>/dev/null) && {
    case $body in
      *"\"instance\":\"$instance\""*) exit 0 ;;
      *) foreign=$body ;;
    esac
  }
  for pid in "$@"; do
    kill -0 "$pid" 2>/dev/null || { echo "a service exited during start-up (see its log above)" >&2; exit 1; }
  done
  sleep 0.1
done
if [ -n "$foreign" ]; then
  echo "another process answers on $url (its readiness: $foreign); our gateway (instance $instance) never did" >&2
else
  echo "gateway not ready after ${timeout_s} s" >&2
fi
exit 1
