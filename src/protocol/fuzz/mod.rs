//! Protocol fuzzing (test-only): property tests that feed every parser of
//! server bytes in `protocol` with arbitrary and with structured-but-mutated
//! input, and assert that nothing panics, nothing hangs, no length read from
//! the wire becomes a huge allocation, and failures come back as
//! `ProtoError`s.
//!
//! `parsers` calls the pure parsers directly; `roundtrip` checks that what
//! the generators build parses back to what they were given; `wire` runs a real `Conn`
//! (handshake, auth exchange, responses, framing) against a scripted peer on
//! a loopback socket (`Peer`). Case counts are bounded so that the whole set
//! runs in a few seconds in release builds.

mod alloc;
mod auth_exchange;
pub(crate) mod gen;
mod parsers;
mod regress;
mod roundtrip;
mod wire;

use crate::protocol::{ConnOpts, Endpoint, ProtoError};
use std::future::Future;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener};
use std::time::Duration;

/// Largest single allocation a case may make: the read buffer grows to
/// the next power of two above the largest packet (16 MiB), never to a
/// length a packet only claims.
pub(crate) const ALLOC_LIMIT: usize = 40 << 20;

/// A generous bound on a case that would otherwise hang forever.
const HANG: Duration = Duration::from_secs(60);

/// A server on 127.0.0.1 that sends `script` as soon as a client connects,
/// then closes its sending side and drains what the client sends, on a
/// thread of its own (so that a client on direct I/O, blocking its thread,
/// still gets the bytes).
pub(crate) struct Peer {
    pub port: u16,
    done: std::sync::mpsc::Receiver<()>,
}

impl Peer {
    pub fn start(script: Vec<u8>) -> Peer {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port for the fake server");
        let port = l.local_addr().expect("listener address").port();
        let (tx, done) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            if let Ok((mut s, _)) = l.accept() {
                let _ = s.write_all(&script);
                let _ = s.shutdown(Shutdown::Write);
                let mut sink = [0u8; 4096];
                while matches!(s.read(&mut sink), Ok(n) if n > 0) {}
            }
            let _ = tx.send(());
        });
        Peer { port, done }
    }

    pub fn opts(&self) -> ConnOpts {
        let mut o = ConnOpts::new(
            Endpoint::Tcp {
                host: "127.0.0.1".into(),
                port: self.port,
            },
            "fuzz",
            None,
        );
        o.password = "secret".into();
        o.connect_timeout = HANG;
        o.read_timeout = HANG;
        o
    }

    /// Waits for the peer's thread (the client has hung up by now).
    fn finish(self) {
        self.done
            .recv_timeout(HANG)
            .expect("the fake server's thread did not end after the client hung up");
    }
}

/// Runs `client` against a peer that sends `script`, on a current-thread
/// runtime on this thread; asserts it neither hangs nor allocates more
/// than `ALLOC_LIMIT` at once, and returns what it returned.
pub fn against<T, F, Fut>(script: Vec<u8>, client: F) -> Result<T, ProtoError>
where
    F: FnOnce(ConnOpts) -> Fut,
    Fut: Future<Output = Result<T, ProtoError>>,
{
    let peer = Peer::start(script);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    alloc::reset();
    let out = rt.block_on(async {
        tokio::time::timeout(HANG, client(peer.opts()))
            .await
            .expect("the client hung on a scripted server")
    });
    let largest = alloc::largest();
    assert!(
        largest <= ALLOC_LIMIT,
        "a single allocation of {largest} bytes (limit {ALLOC_LIMIT})"
    );
    drop(rt);
    peer.finish();
    out
}

/// Checks that a pure parser's allocations stay bounded while it runs.
pub(crate) fn bounded<T>(f: impl FnOnce() -> T) -> T {
    alloc::reset();
    let out = f();
    let largest = alloc::largest();
    assert!(
        largest <= ALLOC_LIMIT,
        "a single allocation of {largest} bytes (limit {ALLOC_LIMIT})"
    );
    out
}
