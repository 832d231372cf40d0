#!/usr/bin/env bash
# The service processes of the stack, in start order: "<name> <entry point>".
# Sourced by start.sh; the e2e launcher (libs/testing/src/stack.ts) starts the same list.
SERVICES=(
  "identity apps/identity/dist/main.js"
  "projects apps/projects/dist/main.js"
  "access-requests apps/access-requests/dist/main.js"
  "repo-admin apps/repo-admin/dist/main.js"
  "hooks apps/hooks/dist/main.js"
  "webhook-dispatcher apps/webhook-dispatcher/dist/main.js"
  "push-rules apps/push-rules/dist/main.js"
  "gateway apps/gateway/dist/main.js"
)

# Node flags every service runs with (also libs/testing/src/stack.ts SERVICE_NODE_FLAGS, deploy/docker/entrypoint.sh).
# --no-memory-reducer: V8 shrinks an idle process's heap to its live size; under the next load a major GC then ran
# every ~0.2 s instead of ~2 s for tens of seconds, and the gateway's CPU per listing doubled (1.0-1.2 -> 2.1-2.4 ms,
# bench/README.md). Each process keeps the heap its load grew instead.
SERVICE_NODE_FLAGS=(--no-memory-reducer)
# Added for gateway and projects, which every read goes through (also stack.ts HOT_PATH_NODE_FLAGS, entrypoint.sh):
# a 4 MB young generation makes each scavenge a pause of a few ms instead of 7-25 ms every ~0.35 s under listing load;
# the offset listing at c=32 had p90 46.3 against 50.4 ms and p99 69.8 against 78.6 at the same throughput (bench/README.md).
HOT_PATH_NODE_FLAGS=(--max-semi-space-size=4)
