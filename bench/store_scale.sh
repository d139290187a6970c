#!/usr/bin/env bash
# The store and the UI at a year of results (issue 37 item 5).
#
# 1. A template store from real runs: a 60-s monitored oltp_read_write run
#    (4 connections, the monitor at 1 s) and a 3-step sweep, on a sandbox;
#    the store's growth for the 60-s run gives the size per hour of a
#    monitored run.
# 2. bench/store_scale_gen.py writes RUNS runs of 60-600 s over a year and
#    CAMPAIGNS campaigns (the first with BIG points) from the template's
#    rows (their sizes are qpslab's own).
# 3. How fast each reader answers on it, median of ROUNDS: `runs`, `show`,
#    `best`, `scalability`, the campaign report, and the UI's start page,
#    a run page and the big campaign's page (curl, server time).
#
# 4. Retention (a qpslab with `store prune`): the first open to write
#    (which migrates a store of an older schema: its time is the
#    migration's), and `store prune --dry-run` of the oldest month.
#
# Usage: bench/store_scale.sh   env: RUNS=10000 CAMPAIGNS=200 BIG=500 ROUNDS=3
#        YEAR=/path/year.db (reuse a generated store; kept after the run)
#        NO_REPORT=1 (leave out the campaign report, the slowest reader)
#        QPSLAB=/path/qpslab (another build, e.g. the one before a change:
#        run it first on a store of the old schema, then this one)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-10000}; CAMPAIGNS=${CAMPAIGNS:-200}; BIG=${BIG:-500}; ROUNDS=${ROUNDS:-3}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
Q=${QPSLAB:-$PWD/target/release/qpslab}
[ -x "$Q" ] || cargo build --release
W=${WORK:-$PWD/target/store-scale}
mkdir -p "$W"
YEAR=${YEAR:-$W/year-$RUNS.db}
echo "# host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ ! -s "$YEAR" ]; then
  T=$W/template.db
  rm -f "$T" "$T-wal" "$T-shm"
  "$Q" server start --name scale --preset bench >/dev/null
  "$Q" prepare oltp_read_write --server scale >/dev/null 2>&1 || true
  "$Q" sweep oltp_read_write --server scale --threads 1,2,4 --time 3 --store "$T" >/dev/null
  sqlite3 "$T" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
  before=$(sqlite3 "$T" "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size")
  "$Q" run oltp_read_write --server scale --threads 4 --time 60 --store "$T" >/dev/null
  sqlite3 "$T" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
  after=$(sqlite3 "$T" "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size")
  run=$(sqlite3 "$T" "SELECT MAX(id) FROM runs")
  per_s=$(sqlite3 "$T" "SELECT (SELECT SUM(pgsize) FROM dbstat WHERE name IN ('samples','sample_statements','metric_snaps'))")
  echo "store growth for a 60-s monitored run: $(( (after - before) / 1024 )) KB in all; its per-second rows (samples, statements, monitor snapshots) $(( per_s / 1024 )) KB over the store's $(sqlite3 "$T" "SELECT SUM(seconds) FROM runs") measured seconds"
  awk -v b="$((after - before))" 'BEGIN {printf "=> %.1f MB per hour of a 1-s monitored run (60 s extrapolated, whole run included)\n", b * 60 / 1048576}'
  echo "snapshots of the 60-s run by source: $(sqlite3 "$T" "SELECT group_concat(source || ':' || n, ' ') FROM (SELECT source, COUNT(*) n FROM metric_snaps WHERE run_id=$run GROUP BY source)")"
  "$Q" server stop --name scale >/dev/null
  python3 bench/store_scale_gen.py "$T" "$YEAR" --runs "$RUNS" --campaigns "$CAMPAIGNS" --big "$BIG"
fi
echo "store: $YEAR, $(du -h "$YEAR" | cut -f1); $(sqlite3 "$YEAR" "SELECT COUNT(*) || ' runs, ' || (SELECT COUNT(*) FROM campaigns) || ' campaigns, ' || (SELECT COUNT(*) FROM samples) || ' samples, ' || (SELECT COUNT(*) FROM metric_snaps) || ' snapshots' FROM runs")"
if "$Q" store prune --help >/dev/null 2>&1; then
  v0=$(sqlite3 "$YEAR" "PRAGMA user_version")
  /usr/bin/time -f "%e %U %S" -o "$W/time.txt" "$Q" store prune --before 1970-01-01 --store "$YEAR" >/dev/null
  printf "%-44s wall %7.3f s  cpu %7.3f s  (schema v%s -> v%s)\n" "first open to write (migration)" \
    "$(cut -d' ' -f1 "$W/time.txt")" "$(awk '{print $2 + $3}' "$W/time.txt")" "$v0" "$(sqlite3 "$YEAR" "PRAGMA user_version")"
  MONTH=$(sqlite3 "$YEAR" "SELECT substr(date(MIN(started_at), '+1 month'), 1, 10) FROM runs")
  "$Q" store prune --before "$MONTH" --dry-run --store "$YEAR"
fi
RUN=$(sqlite3 "$YEAR" "SELECT MAX(id) FROM runs")
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
# Wall and CPU seconds (user + sys) of a command, medians of ROUNDS: on a
# host shared with other work the wall time includes waiting for a CPU.
timed() { # label, command...
  local label=$1; shift
  for _ in $(seq "$ROUNDS"); do
    /usr/bin/time -f "%e %U %S" -o "$W/time.txt" "$@" >/dev/null 2>&1 || { echo "$label failed: $*" >&2; exit 1; }
    awk '{print $1, $2 + $3}' "$W/time.txt"
  done > "$W/times.txt"
  printf "%-44s wall %7.3f s  cpu %7.3f s\n" "$label" "$(cut -d' ' -f1 "$W/times.txt" | median)" "$(cut -d' ' -f2 "$W/times.txt" | median)"
}
timed "runs" "$Q" runs --store "$YEAR"
timed "show $RUN" "$Q" show "$RUN" --store "$YEAR"
timed "best" "$Q" best --store "$YEAR"
timed "scalability" "$Q" scalability --store "$YEAR"
if [ -n "${MONTH:-}" ]; then timed "store prune --dry-run (before $MONTH)" "$Q" store prune --before "$MONTH" --dry-run --store "$YEAR"; fi
timed "scalability --campaign 1 ($BIG points)" "$Q" scalability --campaign 1 --store "$YEAR"
[ -n "${NO_REPORT:-}" ] || timed "report --campaign 1" "$Q" report --campaign 1 -o "$W/campaign1.html" --store "$YEAR"
PORT=${PORT:-8793}
"$Q" ui --port "$PORT" --store "$YEAR" >/dev/null 2>&1 & UI=$!
trap 'kill $UI 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.2; done
cpu_ticks() { awk '{print $14 + $15}' "/proc/$UI/stat"; }
page() { # label, path: the server's answer time (curl), and the UI process's CPU a request
  local c0 c1
  c0=$(cpu_ticks)
  for _ in $(seq "$ROUNDS"); do curl -s -o /dev/null -w "%{time_total}\n" "http://127.0.0.1:$PORT$2"; done > "$W/times.txt"
  c1=$(cpu_ticks)
  printf "%-44s wall %7.3f s  cpu %7.3f s\n" "$1" "$(median < "$W/times.txt")" "$(echo "($c1 - $c0) / $(getconf CLK_TCK) / $ROUNDS" | bc -l)"
}
page "ui: start page" /
page "ui: run page ($RUN)" "/run/$RUN"
page "ui: campaign page (1, $BIG points)" /campaign/1
echo "goals: start page and campaign page < 0.3 s, run page < 0.5 s, runs/best < 0.2 s; growth <= 50 MB per hour"
