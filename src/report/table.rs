//! A plain aligned table for step-by-step results (quickstart, sweeps).

/// One row of the step table.
pub struct StepRow {
    pub workload: String,
    pub threads: u32,
    pub tps: f64,
    pub qps: f64,
    pub p95: f64,
    pub p99: f64,
    pub client_us: f64,
    pub status: String,
}

pub fn render(rows: &[StepRow]) -> String {
    let mut o = format!(
        "{:<22} {:>7} {:>11} {:>12} {:>9} {:>9} {:>10}  {}\n",
        "workload", "threads", "tps", "qps", "p95 ms", "p99 ms", "client us", "status"
    );
    for r in rows {
        o.push_str(&format!(
            "{:<22} {:>7} {:>11.2} {:>12.2} {:>9.2} {:>9.2} {:>10.2}  {}\n",
            r.workload, r.threads, r.tps, r.qps, r.p95, r.p99, r.client_us, r.status
        ));
    }
    o
}
