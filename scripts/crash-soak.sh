#!/usr/bin/env bash
# Runs the crash suite with many more kills than CI does, and prints how many it survived.
#   scripts/crash-soak.sh [KILLS_PER_SCENARIO_AND_TARGET] [SEED]
# 8 scenarios x 2 targets: the default 20 is 320 kill cycles (about 15 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
export SQLLOAD_CRASH_KILLS="${1:-20}" SQLLOAD_CRASH_SEED="${2:-$RANDOM}"
echo "crash soak: $SQLLOAD_CRASH_KILLS kills per scenario and target, seed $SQLLOAD_CRASH_SEED"
npx vitest run apps/cli/test/crash-duckdb.e2e.test.ts apps/cli/test/crash-postgres.e2e.test.ts --reporter=verbose --testTimeout=3600000
