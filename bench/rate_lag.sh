#!/usr/bin/env bash
# Rate mode: does the event latency (from the arrival, or from the wake-up
# when the connection waited for it) match the statements' own latency at a
# load the server handles easily? Prints, per round, event p95, statement
# p95, their ratio, and the schedule lag p99 (the generator's lateness,
# reported apart). Goal: event p95 within 20% (or 50 us) of statement p95.
#
# Usage: bench/rate_lag.sh      env: RATE=1000 THREADS=4 TIME=10 ROUNDS=3
set -euo pipefail
cd "$(dirname "$0")/.."
WORKLOAD=oltp_point_select TABLES=1 ROWS=10000
RATE=${RATE:-1000} THREADS=${THREADS:-4} TIME=${TIME:-10} ROUNDS=${ROUNDS:-3}
source bench/lib.sh
echo "# $(uptime)"
echo "# $($Q --version), --rate $RATE --threads $THREADS --time $TIME, $WORKLOAD $TABLES x $ROWS"
printf "%5s %12s %12s %8s %12s %6s\n" round event_p95 stmt_p95 ratio lag_p99 late
for r in $(seq 1 "$ROUNDS"); do
  "$Q" run "$WORKLOAD" --server bench --create --tables $TABLES --table-size $ROWS --threads "$THREADS" \
    --rate "$RATE" --time "$TIME" --no-store --format json 2>/dev/null | python3 -c '
import json, sys
j = json.load(sys.stdin); t = j["totals"]
e = t["latency_ms"]["p95"]; s = j["latency_by_statement"][0]["latency_ms"]["p95"]
print("%5s %9.3f ms %9.3f ms %8.2f %9.3f ms %6d" % (sys.argv[1], e, s, e / s, t["schedule_lag_ms"]["p99"], t["generator_late_intervals"]))
' "$r"
done
