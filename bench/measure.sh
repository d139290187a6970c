# One measured process, shared by the bench scripts (sourced, not run).
# one LABEL CMD... runs CMD under /usr/bin/time and prints
# "qps us_per_query rss_mb" from its sysbench-style summary and its own
# user+sys CPU (connection set-up included), or "- - -" when it failed.
one() {
  local t; t=$(mktemp)
  /usr/bin/time -f "%U %S %M" -o "$t.time" "${@:2}" > "$t" 2>&1 || true
  local q qps
  q=$(awk '/queries:/ && /per sec/{print $2}' "$t")
  qps=$(awk '/queries:/ && /per sec/{gsub(/\(/,"",$3); print $3}' "$t")
  if [ -z "$q" ]; then echo "- - -"; tail -n 3 "$t" >&2; else
    # the last line: a run that ends degraded (exit 3) has its figures
    # after time's "Command exited with non-zero status" line
    tail -n 1 "$t.time" | awk -v q="$q" -v qps="$qps" '{printf "%.0f %.2f %.1f\n", qps, ($1+$2)*1e6/q, $3/1024}'
  fi
  rm -f "$t" "$t.time"
}
