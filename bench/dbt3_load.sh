#!/usr/bin/env bash
# DBT3's load: `qpslab prepare dbt3` (tpchgen's rows generated in the
# client, streamed by LOAD DATA LOCAL INFILE, then the secondary indexes)
# against the server's own LOAD DATA INFILE of the same rows into the same
# schema on the same sandbox, with as many connections, rounds
# interleaved. The goal (issue 34): qpslab at least 90% of the server's
# rate.
#
# Each round: `prepare dbt3 --scale SCALE` (rows/s from its JSON: tables
# created, rows generated and loaded, indexes added); then the loaded rows
# are written out with SELECT … INTO OUTFILE, cut into LOADERS pieces per
# table, and loaded into empty copies of the tables (primary keys only, as
# qpslab's load starts) by LOADERS mariadb clients at once, largest table
# first, each running LOAD DATA INFILE (the server reads the file: no
# client, no generation, no network), then the same secondary indexes are
# added, one ALTER a table as qpslab does: rows / wall seconds of both.
# Prints each measure with the load average, then the medians and
# qpslab/server.
#
# Usage: bench/dbt3_load.sh
#   env: SCALE=0.1 LOADERS=4 ROUNDS=3 QPSLAB=target/release/qpslab (the binary measured)
# Results go to stdout and bench/results/dbt3-load-<date>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${SCALE:-0.1}
LOADERS=${LOADERS:-4}
ROUNDS=${ROUNDS:-3}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
Q=${QPSLAB:-$PWD/target/release/qpslab}
[ -x "$Q" ] || cargo build --release
mkdir -p bench/results
OUT=bench/results/dbt3-load-$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$OUT") 2>&1
# a sandbox of its own: the server may read and write files in FILES
FILES=$QPSLAB_HOME/dbt3load-files
mkdir -p "$FILES" && chmod 777 "$FILES"
"$Q" server start --name dbt3load --preset bench --set "secure_file_priv=$FILES" >/dev/null
SOCK=$QPSLAB_HOME/sandboxes/dbt3load/mysqld.sock
sql() { mariadb -uroot -N -B --socket="$SOCK" "$@"; }
sql -e "CREATE DATABASE IF NOT EXISTS dbt3load"
DIR=$FILES/run-$$
mkdir -p "$DIR" && chmod 777 "$DIR"
M=$(mktemp -d)
trap 'rm -rf "$DIR" "$M"' EXIT
TABLES="lineitem orders partsupp part customer supplier nation region"
echo "DBT3 load: scale $SCALE, $LOADERS loaders, $ROUNDS rounds, $(nproc) CPUs, $(sql -e 'SELECT VERSION()')"

qpslab_rate() {
  "$Q" cleanup dbt3 --server dbt3load --db dbt3load >/dev/null
  "$Q" prepare dbt3 --server dbt3load --db dbt3load --scale "$SCALE" --loaders "$LOADERS" \
    --format json | tail -1 | sed 's/.*"rows_per_s":\([0-9.]*\).*/\1/'
}

# The secondary indexes of table $1 as one ALTER's clauses.
index_clauses() {
  sql dbt3load -e "SELECT GROUP_CONCAT(c ORDER BY n SEPARATOR ', ') FROM (SELECT index_name n,
    CONCAT('ADD INDEX ', index_name, ' (', GROUP_CONCAT(column_name ORDER BY seq_in_index), ')') c
    FROM information_schema.statistics WHERE table_schema = 'dbt3load' AND table_name = '$1'
    AND index_name <> 'PRIMARY' GROUP BY index_name) i"
}

server_rate() {
  rm -f "$DIR"/*
  local rows=0 t drops adds=()
  for t in $TABLES; do
    sql dbt3load -e "SELECT * FROM $t INTO OUTFILE '$DIR/$t.tsv'"
    rows=$((rows + $(wc -l <"$DIR/$t.tsv")))
    (cd "$DIR" && split -n "l/$LOADERS" -d "$t.tsv" "$t.part.")
    adds+=("$(index_clauses "$t")")
    sql dbt3load -e "DROP TABLE IF EXISTS ${t}_copy; CREATE TABLE ${t}_copy LIKE $t"
    drops=$(sql dbt3load -e "SELECT GROUP_CONCAT(DISTINCT CONCAT('DROP INDEX ', index_name)) FROM information_schema.statistics WHERE table_schema = 'dbt3load' AND table_name = '$t' AND index_name <> 'PRIMARY'")
    [ "$drops" = NULL ] || sql dbt3load -e "ALTER TABLE ${t}_copy $drops"
  done
  chmod 644 "$DIR"/*
  local start end i=0
  start=$(date +%s.%N)
  for p in $(seq -f %02g 0 $((LOADERS - 1))); do
    (for t in $TABLES; do
      sql dbt3load -e "SET unique_checks=0, foreign_key_checks=0; LOAD DATA INFILE '$DIR/$t.part.$p' INTO TABLE ${t}_copy CHARACTER SET latin1"
    done) &
  done
  wait
  for t in $TABLES; do
    [ "${adds[$i]}" = NULL ] || sql dbt3load -e "ALTER TABLE ${t}_copy ${adds[$i]}"
    i=$((i + 1))
  done
  end=$(date +%s.%N)
  for t in $TABLES; do sql dbt3load -e "DROP TABLE ${t}_copy"; done
  echo "$rows $start $end" | awk '{printf "%.0f", $1 / ($3 - $2)}'
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
for r in $(seq "$ROUNDS"); do
  a=$(qpslab_rate); echo "$a" >>"$M/qpslab"
  s=$(server_rate); echo "$s" >>"$M/server"
  echo "round $r: qpslab prepare $a rows/s, server LOAD DATA INFILE $s rows/s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
done
mq=$(median <"$M/qpslab"); ms=$(median <"$M/server")
echo "median rows/s: qpslab $mq, server $ms"
awk -v a="$mq" -v s="$ms" 'BEGIN {r = a / s; printf "qpslab / server: %.3f (goal >= 0.90: %s)\n", r, (r >= 0.9) ? "reached" : "not reached"}'
"$Q" cleanup dbt3 --server dbt3load --db dbt3load >/dev/null
"$Q" server stop --name dbt3load >/dev/null 2>&1 || true
