//! The UI's HTTP/1 server loop: hyper's connection builder with a timer,
//! so a client gets `HEADER_READ_TIMEOUT` to send a request's headers
//! (slowloris clients that trickle them are cut), and at most
//! `MAX_CONNECTIONS` connections are served at once (more wait in the
//! listen backlog).

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// How long a client may take to send a request's headers (the first
/// request's, and each later one's on a kept-alive connection).
pub(crate) const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections served at once.
pub(crate) const MAX_CONNECTIONS: usize = 64;

/// Serves `router` on `listener` until `stop` resolves.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    stop: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    tokio::pin!(stop);
    loop {
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
            return Ok(()); // never closed
        };
        let (stream, _) = tokio::select! {
            () = &mut stop => return Ok(()),
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // A connection that failed before it was accepted
                // (reset, out of descriptors): go on with the next.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        let service = TowerToHyperService::new(router.clone());
        tokio::spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service);
            // A client that goes away or is cut is not the server's error.
            let _ = conn.await;
            drop(slot);
        });
    }
}
