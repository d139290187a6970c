#!/usr/bin/env bash
# Set-up on a fresh Debian machine: installs MariaDB, sysbench and a Rust
# toolchain if needed, builds qpslab, then runs the main job on a private
# sandbox MariaDB: 4 tables x 100,000 rows, oltp_point_select and
# oltp_read_write at 1, 4, 16 and 64 users for 10 s each, and a table of
# QPS/TPS and p95/p99 per step.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/deps.sh
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release
./target/release/qpslab quickstart "$@"
echo
echo "qpslab is at ./target/release/qpslab; try: qpslab workloads, qpslab run oltp_read_write --threads 8 --time 30"
