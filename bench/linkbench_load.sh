#!/usr/bin/env bash
# LinkBench's load: qpslab's loaders (LOAD DATA INFILE from a named pipe,
# the default on the server's host; LOAD DATA LOCAL INFILE streamed; and
# multi-row INSERTs) against the server's own LOAD DATA INFILE of the same
# rows on the same host with as many connections, rounds interleaved.
#
# Each round: `prepare linkbench` by each method (rows/s from its JSON,
# tables created, rows generated in the client, the progress table kept);
# then the loaded rows are written out with SELECT … INTO OUTFILE, cut into
# LOADERS pieces per table, and loaded into empty copies of the tables by
# LOADERS mariadb clients at once, each running LOAD DATA INFILE (the
# server reads the file: no client, no generation, no network): rows / wall
# seconds. Prints each measure, then the medians and qpslab/server.
#
# Usage: bench/linkbench_load.sh
#   env: MAXID1=200001 LOADERS=4 ROUNDS=3
# Results go to stdout and bench/results/linkbench-load-<date>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
MAXID1=${MAXID1:-200001}
LOADERS=${LOADERS:-4}
ROUNDS=${ROUNDS:-3}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
Q=$PWD/target/release/qpslab
[ -x "$Q" ] || cargo build --release
mkdir -p bench/results
OUT=bench/results/linkbench-load-$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$OUT") 2>&1
# a sandbox of its own: the server may read and write files in FILES
FILES=$QPSLAB_HOME/lbload-files
mkdir -p "$FILES" && chmod 777 "$FILES"
"$Q" server start --name lbload --preset bench --set "secure_file_priv=$FILES" >/dev/null
SOCK=$QPSLAB_HOME/sandboxes/lbload/mysqld.sock
sql() { mariadb -uroot -N -B --socket="$SOCK" "$@"; }
sql -e "CREATE DATABASE IF NOT EXISTS lbload"
DIR=$FILES/run-$$
mkdir -p "$DIR" && chmod 777 "$DIR"
M=$(mktemp -d)
trap 'rm -rf "$DIR" "$M"' EXIT
echo "LinkBench load: maxid1 $MAXID1, $LOADERS loaders, $ROUNDS rounds, $(nproc) CPUs"

qpslab_rate() {
  "$Q" cleanup linkbench --server lbload --db lbload >/dev/null
  "$Q" prepare linkbench --server lbload --db lbload --maxid1 "$MAXID1" --loaders "$LOADERS" \
    --load-method "$@" --format json | tail -1 | sed 's/.*"rows_per_s":\([0-9.]*\).*/\1/'
}

server_rate() {
  rm -f "$DIR"/*
  local rows=0 t
  for t in nodetable linktable counttable; do
    sql lbload -e "SELECT * FROM $t INTO OUTFILE '$DIR/$t.tsv'"
    rows=$((rows + $(wc -l <"$DIR/$t.tsv")))
    (cd "$DIR" && split -n "l/$LOADERS" -d "$t.tsv" "$t.part.")
    sql lbload -e "DROP TABLE IF EXISTS ${t}_copy; CREATE TABLE ${t}_copy LIKE $t"
  done
  chmod 644 "$DIR"/*
  local start end
  start=$(date +%s.%N)
  for i in $(seq -f %02g 0 $((LOADERS - 1))); do
    (for t in nodetable linktable counttable; do
      sql lbload -e "SET unique_checks=0; LOAD DATA INFILE '$DIR/$t.part.$i' INTO TABLE ${t}_copy CHARACTER SET latin1"
    done) &
  done
  wait
  end=$(date +%s.%N)
  sql lbload -e "DROP TABLE nodetable_copy, linktable_copy, counttable_copy"
  echo "$rows $start $end" | awk '{printf "%.0f", $1 / ($3 - $2)}'
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
for r in $(seq "$ROUNDS"); do
  p=$(qpslab_rate infile --load-via pipe); echo "$p" >>"$M/pipe"
  a=$(qpslab_rate infile --load-via local); echo "$a" >>"$M/infile"
  s=$(server_rate); echo "$s" >>"$M/server"
  b=$(qpslab_rate insert); echo "$b" >>"$M/insert"
  echo "round $r: qpslab LOAD DATA INFILE from a pipe $p rows/s, qpslab LOAD DATA LOCAL $a rows/s, server LOAD DATA INFILE $s rows/s, qpslab multi-row INSERT $b rows/s"
done
mp=$(median <"$M/pipe"); mi=$(median <"$M/infile"); ms=$(median <"$M/server"); mb=$(median <"$M/insert")
echo "median rows/s: qpslab pipe $mp, qpslab local $mi, server infile $ms, qpslab insert $mb"
awk -v p="$mp" -v a="$mi" -v s="$ms" -v b="$mb" 'BEGIN {printf "qpslab pipe / server: %.3f   qpslab local / server: %.3f   qpslab insert / server: %.3f   pipe / local: %.3f\n", p/s, a/s, b/s, p/a}'
"$Q" cleanup linkbench --server lbload --db lbload >/dev/null
