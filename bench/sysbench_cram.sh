#!/usr/bin/env bash
# sysbench 1.0.20's own regression suite (cram tests) run twice on a
# sandbox MariaDB this script starts and stops: once with the real
# sysbench, once with qpslab standing in (a `sysbench` symlink to the
# release binary first on PATH, i.e. sysbench mode). Prints each test's
# result for both, whether a test both fail fails alike (the same output
# once run-dependent figures are masked), and the counts (issue 31;
# figures in docs/BENCHMARKS.md).
#
# Usage: bench/sysbench_cram.sh TESTS_DIR [NAME.t ...]
#   TESTS_DIR: the tests/ directory of a sysbench source checkout (t/*.t,
#   include/); fetched by the user, never copied into this repository.
#   NAME.t: only these tests (default: every t/*.t but PostgreSQL's).
# QPSLAB_BIN: the qpslab binary to stand in (default target/release/qpslab,
# built if missing).
# Needs: cram (pip install cram), sysbench (Debian's 1.0.20) and its Lua
# scripts in /usr/share/sysbench. Each test's cram diff is kept under
# target/sysbench-cram/{sysbench,qpslab}/NAME.t.err.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=${1:-}
if [ -z "$SRC" ] || [ ! -d "$SRC/t" ] || [ ! -d "$SRC/include" ]; then
  echo "usage: $0 TESTS_DIR — a sysbench 1.0.20 checkout's tests/ (git clone --branch 1.0.20 https://github.com/akopytov/sysbench; pass sysbench/tests)" >&2
  exit 2
fi
shift
for tool in cram sysbench; do
  command -v "$tool" >/dev/null || { echo "$0: $tool not found (cram: pip install cram)" >&2; exit 2; }
done
SRC=$(cd "$SRC" && pwd)
Q=${QPSLAB_BIN:-$PWD/target/release/qpslab}
[ -x "$Q" ] || cargo build --release
OUT=$PWD/target/sysbench-cram
rm -rf "$OUT" && mkdir -p "$OUT/sysbench" "$OUT/qpslab" "$OUT/bin" "$OUT/qbin"
export QPSLAB_HOME=$OUT/home

# A copy of the suite to run in (cram writes NAME.t.err next to each test;
# include/config.sh is what sysbench's configure would have written).
WORK=$OUT/tests
cp -r "$SRC" "$WORK"
cat >"$WORK/include/config.sh" <<EOF
export SBTEST_VERSION=1.0.20
export SBTEST_VERSION_STRING="sysbench 1.0.20"
export SBTEST_HAS_MYSQL=1
EOF

"$Q" server start --name cram >/dev/null
trap '"$Q" server stop --name cram >/dev/null 2>&1 || true' EXIT
SOCK=$("$Q" server status --name cram | awk '{for(i=1;i<=NF;i++) if($i=="socket") print $(i+1)}')
# The suite's `mysql -uroot sbtest` (db_show_table) reaches the sandbox.
cat >"$OUT/bin/mysql" <<EOF
#!/bin/sh
exec /usr/bin/mysql --socket="$SOCK" "\$@"
EOF
chmod +x "$OUT/bin/mysql"
ln -s "$Q" "$OUT/qbin/sysbench"

export SBTEST_ROOTDIR=$WORK SBTEST_SUITEDIR=$WORK/t SBTEST_INCDIR=$WORK/include
export SBTEST_CONFIG=$WORK/include/config.sh SBTEST_SCRIPTDIR=/usr/share/sysbench
export SBTEST_MYSQL_ARGS="--mysql-socket=$SOCK --mysql-user=root"
export LUA_PATH="$WORK/include/?.lua;;"
# shellcheck source=/dev/null
source "$SBTEST_CONFIG"
BASE_PATH=$OUT/bin:$PATH

if [ $# -gt 0 ]; then names=("$@"); else
  names=()
  for f in "$WORK"/t/*.t; do
    case $f in *pgsql*) ;; *) names+=("$(basename "$f")") ;; esac
  done
fi

# One test with one tool on a fresh sbtest schema: passed, failed or skipped.
run_one() {
  local tool=$1 name=$2 path=$BASE_PATH
  [ "$tool" = qpslab ] && path=$OUT/qbin:$BASE_PATH
  PATH=$path mysql -uroot -e "DROP DATABASE IF EXISTS sbtest; CREATE DATABASE sbtest"
  local result
  result=$(cd "$WORK" && PATH=$path timeout 900 cram --shell=/bin/bash -v "t/$name" 2>&1 |
    sed -n "s|^t/$name: ||p" | head -1)
  [ -f "$WORK/t/$name.err" ] && mv "$WORK/t/$name.err" "$OUT/$tool/"
  echo "${result:-failed}"
}

# A failed test's cram output with what varies from run to run masked:
# the banner's parentheses, figures with a decimal point (times, rates,
# latencies) and the spaces that align them, a random-function test's
# values.
masked() {
  sed -E -e 's/^(  sysbench [0-9.]+) \(.*\)$/\1/' -e 's/ *[0-9]+\.[0-9]+/ X/g' \
    -e 's/^(  sb_rand[a-z_]*\(.*\) = ).*/\1X/' "$1"
}

total=0 sb_pass=0 q_pass=0 q_of_sb=0 same_fail=0
printf "%-40s %-9s %-9s %s\n" test sysbench qpslab "same output"
for name in "${names[@]}"; do
  s=$(run_one sysbench "$name")
  q=$(run_one qpslab "$name")
  # Where both fail, whether they fail alike: the same output but for
  # what the masks take out (sysbench fails a test whose revision or
  # server differs from what it expects; qpslab should then print what
  # sysbench prints).
  same=-
  if [ "$s" != passed ] && [ "$q" != passed ] && [ -f "$OUT/sysbench/$name.err" ] && [ -f "$OUT/qpslab/$name.err" ]; then
    if diff -q <(masked "$OUT/sysbench/$name.err") <(masked "$OUT/qpslab/$name.err") >/dev/null; then
      same=yes same_fail=$((same_fail + 1))
    else
      same=no
    fi
  fi
  [ "$s" = "$q" ] && [ "$s" != failed ] && same=yes
  printf "%-40s %-9s %-9s %s\n" "$name" "$s" "$q" "$same"
  total=$((total + 1))
  [ "$s" = passed ] && sb_pass=$((sb_pass + 1))
  [ "$q" = passed ] && q_pass=$((q_pass + 1))
  [ "$s" = passed ] && [ "$q" = passed ] && q_of_sb=$((q_of_sb + 1))
done
echo "$total tests: sysbench passes $sb_pass; qpslab passes $q_of_sb of those ($q_pass in all); of the tests both fail, $same_fail fail with the same output"
echo "diffs: $OUT/{sysbench,qpslab}/*.t.err"
