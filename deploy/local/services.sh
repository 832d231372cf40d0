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
