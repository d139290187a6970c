#!/usr/bin/env bash
# The insert benchmark's l.i0 (qpslab's inserters: multi-row INSERTs of
# --rows-per-commit rows into purchases_index without secondary indexes)
# against the server's own LOAD DATA INFILE of the same rows on the same
# host with as many connections, rounds interleaved.
#
# Each round: `run insert-benchmark --phases l.i0` (rows/s from its JSON);
# then the loaded rows are written out with SELECT … INTO OUTFILE, cut into
# THREADS pieces, and loaded into an empty copy of the table by THREADS
# mariadb clients at once, each running LOAD DATA INFILE (the server reads
# the file: no client, no generation, no network): rows / wall seconds.
# Prints each measure, then the medians and qpslab/server, and qpslab's
# load CPU µs per row (from the phase's figures).
#
# Usage: bench/ibench_load_floor.sh
#   env: ROWS=1000000 THREADS=2 RPC=1000 ROUNDS=3
# Results go to stdout and bench/results/ibench-load-<date>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-1000000}
THREADS=${THREADS:-2}
RPC=${RPC:-1000}
ROUNDS=${ROUNDS:-3}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
Q=$PWD/target/release/qpslab
[ -x "$Q" ] || cargo build --release
mkdir -p bench/results
OUT=bench/results/ibench-load-$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$OUT") 2>&1
FILES=$QPSLAB_HOME/ibload-files
mkdir -p "$FILES" && chmod 777 "$FILES"
"$Q" server start --name ibload --preset bench --set "secure_file_priv=$FILES" >/dev/null
SOCK=$QPSLAB_HOME/sandboxes/ibload/mysqld.sock
sql() { mariadb -uroot -N -B --socket="$SOCK" "$@"; }
sql -e "CREATE DATABASE IF NOT EXISTS ibload"
DIR=$FILES/run-$$
mkdir -p "$DIR" && chmod 777 "$DIR"
M=$(mktemp -d)
STORE=$M/store.db
trap 'rm -rf "$DIR" "$M"' EXIT
echo "insert benchmark l.i0: $ROWS rows, $THREADS inserters, $RPC rows per commit, $ROUNDS rounds, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

qpslab_rate() {
  "$Q" run insert-benchmark --server ibload --db ibload --phases l.i0 --rows "$ROWS" \
    --threads "$THREADS" --rows-per-commit "$RPC" --store "$STORE" --format json 2>/dev/null |
    python3 -c 'import json,sys; p=json.load(sys.stdin)["phases"][0]["phase"]; print("%.0f %.3f" % (p["inserts_per_s"], p["load_cpu_us"] or 0))'
}

server_rate() {
  rm -f "$DIR"/*
  sql ibload -e "SELECT * FROM purchases_index INTO OUTFILE '$DIR/p.tsv'"
  local rows
  rows=$(wc -l <"$DIR/p.tsv")
  (cd "$DIR" && split -n "l/$THREADS" -d p.tsv p.part.)
  chmod 644 "$DIR"/*
  sql ibload -e "DROP TABLE IF EXISTS p_copy; CREATE TABLE p_copy LIKE purchases_index"
  local start end
  start=$(date +%s.%N)
  for i in $(seq -f %02g 0 $((THREADS - 1))); do
    sql ibload -e "LOAD DATA INFILE '$DIR/p.part.$i' INTO TABLE p_copy" &
  done
  wait
  end=$(date +%s.%N)
  sql ibload -e "DROP TABLE p_copy"
  echo "$rows $start $end" | awk '{printf "%.0f", $1 / ($3 - $2)}'
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
for r in $(seq "$ROUNDS"); do
  read -r a cpu < <(qpslab_rate); echo "$a" >>"$M/q"; echo "$cpu" >>"$M/cpu"
  s=$(server_rate); echo "$s" >>"$M/s"
  echo "round $r: qpslab l.i0 $a rows/s (load CPU $cpu µs/row), server LOAD DATA INFILE $s rows/s"
done
mq=$(median <"$M/q"); ms=$(median <"$M/s"); mc=$(median <"$M/cpu")
echo "median: qpslab l.i0 $mq rows/s, server LOAD DATA INFILE $ms rows/s, qpslab load CPU $mc µs/row"
awk -v a="$mq" -v s="$ms" 'BEGIN {printf "qpslab l.i0 / server LOAD DATA INFILE: %.3f (goal >= 0.90)\n", a/s}'
sql -e "DROP DATABASE ibload"
"$Q" server stop --name ibload >/dev/null
