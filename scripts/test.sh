#!/usr/bin/env bash
# Runs every check and test: typecheck, lint and format beside the unit and integration tests (the
# integration tests start real etcd, kube-apiserver, controller-manager, scheduler and KWOK).
# Ends with a plain "N passed, N failed, N skipped" line.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"
export PATH="$(bash scripts/setup.sh | tail -n 1)"

status=0
mkdir -p .run
# Typecheck, lint and format run beside the first integration files, which spend most of their
# time waiting on timers; their output follows the tests'.
log "typecheck, lint, format (beside the tests; output below)"
npm run --silent check > .run/check.log 2>&1 &
check_pid=$!

report=".run/test-report.json"
rm -f "$report"
log "vitest (unit + integration)"
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=1

check_status=0
wait "$check_pid" || check_status=$?
log "typecheck, lint, format: exit $check_status"
cat .run/check.log
[ "$check_status" -eq 0 ] || status=1

if [ -f "$report" ]; then
  node -e '
    const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
  ' "$report"
else
  echo "0 passed, 1 failed"
  status=1
fi
exit $status
