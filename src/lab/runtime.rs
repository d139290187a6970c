//! The synchronous use cases' way to talk to a server: a future run to
//! completion on a fresh current-thread runtime, and one number read on
//! a connection of its own.

/// Runs a future to completion on a fresh current-thread runtime (the
/// synchronous use cases' way to talk to a server).
pub fn block_on<F: std::future::Future>(f: F) -> anyhow::Result<F::Output> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(f))
}

/// The first column of the first row of `sql`'s result as a number, on
/// a connection of its own; None when it cannot be read (what needs it is
/// then left out, the run goes on).
pub(super) fn query_number(conn: &crate::protocol::ConnOpts, sql: &str) -> Option<f64> {
    block_on(async {
        let mut c = crate::protocol::Conn::connect(conn).await.ok()?;
        let r = c.query(sql).await.ok();
        c.quit().await;
        r?.rows.first()?.first()?.as_deref()?.parse::<f64>().ok()
    })
    .ok()
    .flatten()
}
