#!/usr/bin/env bash
# qpslab's prepare of sysbench tables against the server's own floor for
# the same rows, in one run, rounds interleaved (issue 37 item 4).
#
# Each round:
#  1. qpslab: `qpslab prepare oltp_point_select --tables T --table-size N`
#     into an empty database (tables created, rows generated and streamed
#     by LOAD DATA LOCAL, the secondary index built after): wall seconds of
#     the whole process.
#  2. the server's floor: the rows qpslab just loaded are written out with
#     SELECT … INTO OUTFILE (one file per table, primary-key order), then
#     loaded into empty copies of the tables (same definition, secondary
#     index dropped) by T `mariadb` clients at once, each running LOAD DATA
#     INFILE (the server reads the file itself: no client generating rows,
#     no network) with unique/foreign key checks off, then CREATE INDEX k:
#     wall seconds from the first client's start to the last one's end.
# The sides' order alternates from round to round. Before each side is
# timed, the server settles (the last load's dirty pages flushed, its
# purge done), the floor's source tables are dropped, and the server is
# restarted (RESTART=0: not), so both start from the same empty, clean
# buffer pool.
# Prints each measure, the medians, and qpslab's rate as a share of the
# floor's (issue 37's goal: >= 0.90). Beside each side's wall seconds, a
# breakdown line: when the last table's rows were in (the load phase; the
# index builds after), the server's CPU seconds (mariadbd's user+sys from
# /proc), the client's (qpslab's, /usr/bin/time; the floor's `mariadb`
# clients only send one statement), and the host's idle CPU seconds in
# that time (both CPUs: idle means some thread waited on another). The
# floor's load end is read in its own session (a SELECT SYSDATE(6) between
# its LOAD DATA and its CREATE INDEX); qpslab's from its "Creating a
# secondary index" lines, time-stamped as printed (<= 0.1 s late).
#
# Usage: bench/prepare_floor.sh   env: TABLES=4 ROWS=500000 ROUNDS=3
#   QPSLAB_ARGS="…" (more options for qpslab prepare, e.g. --threads 16)
#   LOCAL=1: a third side in each round, the floor's files sent by the
#   `mariadb` client with LOAD DATA LOCAL INFILE (what qpslab's prepare
#   does): the floor of a loader on the client's side of the socket
# Results go to stdout and bench/results/prepare-floor-<date>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
TABLES=${TABLES:-4}
ROWS=${ROWS:-500000}
ROUNDS=${ROUNDS:-3}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
Q=$PWD/target/release/qpslab
[ -x "$Q" ] || cargo build --release
mkdir -p bench/results
OUT=bench/results/prepare-floor-$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$OUT") 2>&1
FILES=$QPSLAB_HOME/pfloor-files
mkdir -p "$FILES" && chmod 777 "$FILES"
"$Q" server start --name pfloor --preset bench --set "secure_file_priv=$FILES" >/dev/null
SOCK=$QPSLAB_HOME/sandboxes/pfloor/mysqld.sock
sql() { mariadb -uroot -N -B --socket="$SOCK" "$@"; }
DIR=$FILES/run-$$
mkdir -p "$DIR" && chmod 777 "$DIR"
M=$(mktemp -d)
trap 'rm -rf "$DIR" "$M"' EXIT
echo "prepare floor: $TABLES tables x $ROWS rows, $ROUNDS rounds, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(sql -e 'SELECT VERSION()')"
echo "buffer pool $(sql -e 'SELECT @@innodb_buffer_pool_size/1048576') MB, flush_log_at_trx_commit $(sql -e 'SELECT @@innodb_flush_log_at_trx_commit')"

now() { date +%s.%N; }
PID=$(cat "$(sql -e 'SELECT @@pid_file')")
# mariadbd's CPU seconds (user+sys) so far; the host's idle seconds (all CPUs).
server_cpu() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$PID/stat"; }
host_idle() { awk -v hz="$(getconf CLK_TCK)" '/^cpu / {print ($5 + $6) / hz}' /proc/stat; }
# The breakdown line of a side: its start, last load end, end, server and
# host figures before and after, client CPU.
detail() {
  awk -v who="$1" -v t0="$2" -v le="$3" -v t1="$4" -v s0="$5" -v s1="$6" -v i0="$7" -v i1="$8" -v c="$9" \
    'BEGIN {printf "  %s: load phase %.2f s, index phase %.2f s; server CPU %.2f s, client CPU %s s, host idle %.2f CPU-s\n", who, le - t0, t1 - le, s1 - s0, c, i1 - i0}' >&2
}

# Both sides start from the same server state: the pages the last load
# left dirty flushed and its purge done (without this, the side that runs
# right after the other's load shares the disk and CPUs with that load's
# background flushing: qpslab, right after the floor's load, lost 10-20%
# to it in rounds 2 and on). Waits at most 120 s.
settle() {
  local pct dirty hist i
  pct=$(sql -e "SELECT @@innodb_max_dirty_pages_pct")
  sql -e "SET GLOBAL innodb_max_dirty_pages_pct=0"
  for i in $(seq 240); do
    dirty=$(sql -e "SELECT variable_value FROM information_schema.global_status WHERE variable_name='INNODB_BUFFER_POOL_PAGES_DIRTY'")
    hist=$(sql -e "SELECT variable_value FROM information_schema.global_status WHERE variable_name='INNODB_HISTORY_LIST_LENGTH'")
    [ "${dirty:-0}" -lt 100 ] && [ "${hist:-0}" -lt 100 ] && break
    sleep 0.5
  done
  sql -e "SET GLOBAL innodb_max_dirty_pages_pct=$pct"
  sync
  # ... and from a freshly started server (RESTART=1, the default): an
  # empty buffer pool rather than one full of the dropped tables' pages.
  # Without it the server's CPU for the same 8M rows grew round after
  # round (38 -> 47 CPU-s in four rounds of the same qpslab prepare), so
  # a side's share depended on when it ran.
  if [ "${RESTART:-1}" = 1 ]; then
    "$Q" server stop --name pfloor >/dev/null
    "$Q" server start --name pfloor --preset bench --set "secure_file_priv=$FILES" >/dev/null 2>&1
    PID=$(cat "$(sql -e 'SELECT @@pid_file')")
  fi
}

qpslab_secs() {
  sql -e "DROP DATABASE IF EXISTS pfloor; CREATE DATABASE pfloor"
  settle
  local t0 t1 s0 s1 i0 i1 le c
  s0=$(server_cpu); i0=$(host_idle)
  t0=$(now)
  /usr/bin/time -f "%U %S" -o "$M/time" "$Q" prepare oltp_point_select --server pfloor --mysql-db pfloor --tables "$TABLES" \
    --table-size "$ROWS" ${QPSLAB_ARGS:-} | while IFS= read -r line; do
      case $line in "Creating a secondary index"*) now >>"$M/qle" ;; esac
    done
  t1=$(now)
  s1=$(server_cpu); i1=$(host_idle)
  le=$(sort -n "$M/qle" | tail -1); rm -f "$M/qle"
  [ -n "$le" ] || le=$t1
  c=$(awk '{printf "%.2f (user %.2f, sys %.2f)", $1 + $2, $1, $2}' "$M/time")
  detail qpslab "$t0" "$le" "$t1" "$s0" "$s1" "$i0" "$i1" "$c"
  echo "$t1 - $t0" | bc
}

# floor_secs [LOCAL]: the server's floor (LOAD DATA INFILE: the server
# reads the file itself), or with LOCAL the same files sent by the
# `mariadb` client (LOAD DATA LOCAL INFILE, as qpslab's prepare sends its
# rows: the floor of any loader on the client's side of the socket).
floor_secs() {
  local i local_kw="" client=""
  [ "${1:-}" = LOCAL ] && { local_kw=LOCAL; client=--local-infile=1; }
  if [ "$(sql pfloor -e "SHOW TABLES LIKE 'sbtest1'")" = sbtest1 ]; then
    rm -f "$DIR"/*
    for i in $(seq "$TABLES"); do
      sql pfloor -e "SELECT * FROM sbtest$i ORDER BY id INTO OUTFILE '$DIR/t$i.tsv'"
      sql pfloor -e "DROP TABLE IF EXISTS copy$i; CREATE TABLE copy$i LIKE sbtest$i; ALTER TABLE copy$i DROP INDEX k_$i"
    done
    chmod 644 "$DIR"/*
    # The floor loads into a buffer pool as empty as qpslab's was: the
    # tables it copies from are dropped first (at 8 x 1M rows, the
    # originals and the copies together overflow a 4 GB pool, which made
    # the floor evict and flush as qpslab's load never had to).
    for i in $(seq "$TABLES"); do sql pfloor -e "DROP TABLE sbtest$i"; done
  else
    for i in $(seq "$TABLES"); do
      sql pfloor -e "DROP TABLE copy$i; CREATE TABLE copy$i (id INTEGER NOT NULL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))"
    done
  fi
  settle
  local t0 t1 s0 s1 i0 i1 le
  s0=$(server_cpu); i0=$(host_idle)
  t0=$(now)
  for i in $(seq "$TABLES"); do
    sql $client pfloor -e "SET unique_checks=0, foreign_key_checks=0; LOAD DATA $local_kw INFILE '$DIR/t$i.tsv' INTO TABLE copy$i; SELECT UNIX_TIMESTAMP(SYSDATE(6)); CREATE INDEX k_$i ON copy$i(k)" >>"$M/fle" &
  done
  wait
  t1=$(now)
  s1=$(server_cpu); i1=$(host_idle)
  le=$(sort -n "$M/fle" | tail -1); rm -f "$M/fle"
  detail "floor${local_kw:+ (LOCAL)}" "$t0" "$le" "$t1" "$s0" "$s1" "$i0" "$i1" "-"
  local n
  n=$(sql pfloor -e "SELECT SUM(c) FROM ($(for i in $(seq "$TABLES"); do [ "$i" = 1 ] || printf ' UNION ALL '; printf 'SELECT COUNT(*) c FROM copy%s' "$i"; done)) x")
  [ "$n" = "$((TABLES * ROWS))" ] || { echo "the floor loaded $n rows, not $((TABLES * ROWS))" >&2; exit 1; }
  echo "$t1 - $t0" | bc
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
for r in $(seq "$ROUNDS"); do
  # Which side goes first alternates (qpslab first in odd rounds: the
  # first round's needs its tables), so that neither always runs right
  # after the other's load and drop.
  if [ $((r % 2)) = 1 ]; then
    q=$(qpslab_secs); f=$(floor_secs)
  else
    f=$(floor_secs); q=$(qpslab_secs)
  fi
  echo "$q" >>"$M/q"; echo "$f" >>"$M/f"
  awk -v r="$r" -v q="$q" -v f="$f" -v n="$((TABLES * ROWS))" -v l="$(cut -d' ' -f1 /proc/loadavg)" \
    'BEGIN {printf "round %s: qpslab prepare %.2f s (%.0f rows/s), server LOAD DATA INFILE + index %.2f s (%.0f rows/s), share %.3f; load %s\n", r, q, n/q, f, n/f, f/q, l}'
  if [ "${LOCAL:-0}" = 1 ]; then
    lf=$(floor_secs LOCAL); echo "$lf" >>"$M/l"
    awk -v r="$r" -v q="$q" -v f="$lf" -v n="$((TABLES * ROWS))" \
      'BEGIN {printf "round %s: the same files by the mariadb client, LOAD DATA LOCAL INFILE + index %.2f s (%.0f rows/s), qpslab share of it %.3f\n", r, f, n/f, f/q}'
  fi
done
mq=$(median <"$M/q"); mf=$(median <"$M/f")
awk -v q="$mq" -v f="$mf" -v n="$((TABLES * ROWS))" \
  'BEGIN {printf "median: qpslab prepare %.2f s (%.0f rows/s), server floor %.2f s (%.0f rows/s)\nqpslab prepare / server floor (rate): %.3f (goal >= 0.90)\n", q, n/q, f, n/f, f/q}'
if [ "${LOCAL:-0}" = 1 ]; then
  ml=$(median <"$M/l")
  awk -v q="$mq" -v f="$ml" -v n="$((TABLES * ROWS))" \
    'BEGIN {printf "median: mariadb client LOAD DATA LOCAL %.2f s (%.0f rows/s); qpslab prepare / that (rate): %.3f\n", f, n/f, f/q}'
fi
sql -e "DROP DATABASE pfloor"
"$Q" server stop --name pfloor >/dev/null
