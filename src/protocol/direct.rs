//! Direct I/O: a connection with a client thread to itself waits for its
//! server in a system call instead of the reactor.
//!
//! Two ways, picked when the connection goes direct:
//! - poll() for input, then a non-blocking receive: three system calls a
//!   round trip (send, poll, receive; sysbench's libmariadb makes four).
//!   The default.
//! - with `--io-backend uring`, a small io_uring ring of the connection's
//!   own: a request is copied and kept back, and the next receive submits
//!   it together with a linked receive and waits for both in one
//!   `io_uring_enter` — one system call a round trip. On the 2-CPU host it
//!   cost more client CPU a query than poll() all the same (18.2 against
//!   14.7 µs at 1 user, 17.7 against 15.4 at 2: the ring's own work in the
//!   kernel outweighs two system calls), so it is not the default. Without
//!   io_uring here it falls back to poll().
//!
//! Neither sleeps in a blocking recv(): on a unix socket the sleeping
//! reader is woken, for nothing, when the server takes the request off the
//! socket (the writer's "space available" wake-up goes to everyone waiting
//! on the socket), so a blocking receive sleeps twice a query (figures in
//! docs/BENCHMARKS.md, "Direct I/O waits in poll(), not in a blocking
//! recv()").
//!
//! Waits are cut into `DIRECT_SLICE` slices, so that a read timeout and a
//! stopping run are still noticed.
//!
//! Owns: the socket's direct waits and the ring with its buffers. Must not
//! touch: packet framing (io.rs), the run's state (exec).

use io_uring::{opcode, squeue, types, IoUring};
use std::io;
use std::os::fd::RawFd;
use std::time::Duration;

/// How long a direct wait blocks before it looks at its limits again.
pub(crate) const DIRECT_SLICE: Duration = Duration::from_millis(100);

/// Bytes one ring receive asks for (what arrives beyond waits in the socket).
const RBUF: usize = 16 * 1024;

/// user_data of the two requests of a round trip.
const SEND: u64 = 1;
const RECV: u64 = 2;

/// Direct I/O's limits.
pub struct Direct {
    /// Round trips over an io_uring ring of the connection's own (see the
    /// module doc); poll() when false or when io_uring is not available.
    pub ring: bool,
    /// The longest wait for the server's bytes: then the connection is cut
    /// (shut down) and the read fails with TimedOut, as the reactor path's
    /// watchdog would have done.
    pub limit: Duration,
    /// Asked after each slice with the time waited: true to give up now
    /// (the run is stopping and its grace is over).
    pub give_up: Box<dyn Fn(Duration) -> bool + Send + Sync>,
}

/// A socket on direct I/O (the descriptor stays owned by its stream).
pub(crate) struct DirectIo {
    fd: RawFd,
    limits: Direct,
    ring: Option<PairRing>,
}

impl DirectIo {
    /// Direct I/O on `fd` (a connected, non-blocking stream socket); with
    /// `limits.ring`, over an io_uring ring of its own when this kernel
    /// gives one.
    pub fn new(fd: RawFd, limits: Direct) -> DirectIo {
        let ring = if limits.ring { PairRing::new() } else { None };
        DirectIo { fd, limits, ring }
    }

    pub(crate) fn uses_ring(&self) -> bool {
        self.ring.is_some()
    }

    /// Sends all of `buf`. With `then_reply` (a request whose answer is
    /// read next) on a ring, the bytes are kept and go out with that read.
    pub fn send(&mut self, buf: &[u8], then_reply: bool) -> io::Result<()> {
        match self.ring.as_mut() {
            Some(r) if then_reply => {
                r.pending.extend_from_slice(buf);
                Ok(())
            }
            Some(r) if !r.pending.is_empty() => {
                // Keeps the order: what was kept back goes first.
                r.pending.extend_from_slice(buf);
                let res = r.round_trip(self.fd, &self.limits, None);
                self.settle(res).map(|_| ())
            }
            _ => send_all(self.fd, buf, &self.limits),
        }
    }

    /// Receives at least one byte into `buf` (0: the peer closed), sending
    /// first what `send` kept back.
    pub fn recv(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.ring.as_mut() {
            Some(r) => {
                let res = r.round_trip(self.fd, &self.limits, Some(buf));
                self.settle(res)
            }
            None => poll_recv(self.fd, buf, &self.limits),
        }
    }

    /// A ring whose requests could not all be reaped is left to the kernel
    /// (never freed under it); the socket goes on without one.
    fn settle(&mut self, res: Result<usize, Trip>) -> io::Result<usize> {
        match res {
            Ok(n) => Ok(n),
            Err(Trip::Failed(e)) => Err(e),
            Err(Trip::Stuck(e)) => {
                std::mem::forget(self.ring.take());
                Err(e)
            }
        }
    }
}

/// Why a round trip on the ring failed.
enum Trip {
    /// Every request was reaped.
    Failed(io::Error),
    /// Some may still be in flight: the ring must not be freed.
    Stuck(io::Error),
}

/// Shuts the socket down after a wait past its limits; the error to return.
fn cut(fd: RawFd, waited: Duration) -> io::Error {
    // SAFETY: shutdown(2) takes no memory; `fd` is the connection's own
    // socket, open while the connection is. libc: the path works on raw fds.
    unsafe { libc::shutdown(fd, libc::SHUT_RDWR) };
    io::Error::new(
        io::ErrorKind::TimedOut,
        format!("no answer from the server in {:.1} s", waited.as_secs_f64()),
    )
}

/// Whether a wait of `waited` so far is over its limits.
fn over(limits: &Direct, waited: Duration) -> bool {
    waited >= limits.limit || (limits.give_up)(waited)
}

/// Waits in `DIRECT_SLICE` slices until `fd` has `events` (or an error or
/// hang-up, which the next call reports).
fn wait_for(fd: RawFd, events: i16, limits: &Direct) -> io::Result<()> {
    let mut waited = Duration::ZERO;
    loop {
        let mut pfd = libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        // SAFETY: `pfd` is one live pollfd and the count says 1. libc, not
        // rustix: the per-query path keeps the raw fd (no borrow to make).
        let r = unsafe { libc::poll(&mut pfd, 1, DIRECT_SLICE.as_millis() as i32) };
        if r > 0 {
            return Ok(());
        }
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        waited += DIRECT_SLICE;
        if over(limits, waited) {
            return Err(cut(fd, waited));
        }
    }
}

/// Non-blocking receive; poll() for input when none is there yet.
fn poll_recv(fd: RawFd, buf: &mut [u8], limits: &Direct) -> io::Result<usize> {
    loop {
        wait_for(fd, libc::POLLIN, limits)?;
        // SAFETY: recv writes at most `buf.len()` bytes into `buf`, which
        // is borrowed mutably for the call.
        let n = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), libc::MSG_DONTWAIT) };
        if n >= 0 {
            return Ok(n as usize);
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock => continue,
            _ => return Err(e),
        }
    }
}

/// Non-blocking sends until all of `buf` is out, waiting for room.
fn send_all(fd: RawFd, buf: &[u8], limits: &Direct) -> io::Result<()> {
    let mut sent = 0;
    while sent < buf.len() {
        let rest = &buf[sent..];
        // SAFETY: send reads at most `rest.len()` bytes from `rest`, which
        // is borrowed for the call.
        let n = unsafe {
            libc::send(
                fd,
                rest.as_ptr().cast(),
                rest.len(),
                libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT,
            )
        };
        if n >= 0 {
            sent += n as usize;
            continue;
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::Interrupted => {}
            io::ErrorKind::WouldBlock => wait_for(fd, libc::POLLOUT, limits)?,
            _ => return Err(e),
        }
    }
    Ok(())
}

/// A ring for one socket's round trips. The buffers the kernel reads and
/// writes are the ring's own, and every request is reaped before a call
/// returns; one that cannot be (a server that ignores the shutdown) makes
/// the ring leak itself rather than free memory under the kernel.
struct PairRing {
    ring: IoUring,
    /// Bytes to send with the next receive.
    pending: Vec<u8>,
    rbuf: Box<[u8]>,
}

/// One round trip's requests in flight and what came back.
#[derive(Default)]
struct Flight {
    /// Bytes of `pending` sent so far.
    sent: usize,
    /// A send is in flight.
    send: bool,
    /// The receive is in flight.
    recv: bool,
    received: Option<io::Result<usize>>,
    send_err: Option<io::Error>,
}

impl PairRing {
    /// None when io_uring cannot be set up here or cannot time a wait
    /// (IORING_FEAT_EXT_ARG, Linux 5.11).
    fn new() -> Option<PairRing> {
        let ring = IoUring::new(4).ok()?;
        if !ring.params().is_feature_ext_arg() {
            return None;
        }
        Some(PairRing {
            ring,
            pending: Vec::with_capacity(256),
            rbuf: vec![0; RBUF].into_boxed_slice(),
        })
    }

    /// Sends `pending` (if any) and, with `out`, receives into it — the
    /// receive linked after the send, both in one submit-and-wait. Returns
    /// the bytes received (0 without `out`).
    fn round_trip(
        &mut self,
        fd: RawFd,
        limits: &Direct,
        out: Option<&mut [u8]>,
    ) -> Result<usize, Trip> {
        let want_recv = out.as_ref().map(|b| b.len().min(RBUF));
        let mut f = self.submit_pair(fd, want_recv);
        let (waited, cutting) = self.wait(fd, limits, &mut f)?;
        self.pending.clear();
        if cutting {
            return Err(Trip::Failed(cut(fd, waited)));
        }
        if let Some(e) = f.send_err {
            return Err(Trip::Failed(e));
        }
        match (out, f.received) {
            (Some(out), Some(Ok(n))) => {
                out[..n].copy_from_slice(&self.rbuf[..n]);
                Ok(n)
            }
            (_, Some(Err(e))) => Err(Trip::Failed(e)),
            _ => Ok(0),
        }
    }

    /// Queues the send of `pending` (if any) and a receive of `want_recv`
    /// bytes linked after it.
    #[inline]
    fn submit_pair(&mut self, fd: RawFd, want_recv: Option<usize>) -> Flight {
        let mut f = Flight::default();
        let mut sq = self.ring.submission();
        if !self.pending.is_empty() {
            let link = if want_recv.is_some() {
                squeue::Flags::IO_LINK
            } else {
                squeue::Flags::empty()
            };
            let e = opcode::Send::new(
                types::Fd(fd),
                self.pending.as_ptr(),
                self.pending.len() as u32,
            )
            .flags(libc::MSG_NOSIGNAL)
            .build()
            .flags(link)
            .user_data(SEND);
            // The queue is empty between calls: room for both.
            // SAFETY: the entry points into `self.pending`, which is
            // neither moved nor freed until its completion is reaped
            // below (or the ring is kept alive: `Trip::Stuck`).
            let _ = unsafe { sq.push(&e) };
            f.send = true;
        }
        if let Some(n) = want_recv {
            let e = opcode::Recv::new(types::Fd(fd), self.rbuf.as_mut_ptr(), n as u32)
                .build()
                .user_data(RECV);
            // SAFETY: the entry points into `self.rbuf` (`n` is at
            // most RBUF, its length), kept until the completion is reaped.
            let _ = unsafe { sq.push(&e) };
            f.recv = true;
        }
        f
    }

    /// Waits for the requests in flight, in slices: a short send's rest is
    /// sent; past the limits the socket is shut down (`cutting`), which
    /// ends them. Returns the time waited in whole slices and whether the
    /// socket was cut.
    #[inline]
    fn wait(
        &mut self,
        fd: RawFd,
        limits: &Direct,
        f: &mut Flight,
    ) -> Result<(Duration, bool), Trip> {
        let mut waited = Duration::ZERO;
        let mut cutting = false;
        let ts = types::Timespec::from(DIRECT_SLICE);
        while f.send || f.recv {
            let args = types::SubmitArgs::new().timespec(&ts);
            // Waits for every request in flight (the send completes
            // first): one call a round trip.
            let want = usize::from(f.send) + usize::from(f.recv);
            let timed_out = match self.ring.submitter().submit_with_args(want, &args) {
                Ok(_) => false,
                Err(e) if e.raw_os_error() == Some(libc::ETIME) => true,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => false,
                Err(e) => return Err(Trip::Stuck(e)),
            };
            let resend = self.reap(f);
            if resend && f.send_err.is_none() && !cutting {
                // A short send: the rest goes now (the receive, linked to
                // the first part, is already waiting).
                let rest = &self.pending[f.sent..];
                let e = opcode::Send::new(types::Fd(fd), rest.as_ptr(), rest.len() as u32)
                    .flags(libc::MSG_NOSIGNAL)
                    .build()
                    .user_data(SEND);
                // SAFETY: as above, `rest` is in `self.pending`, unchanged
                // until this send's completion is reaped.
                let _ = unsafe { self.ring.submission().push(&e) };
                f.send = true;
            }
            if !(f.send || f.recv) {
                break;
            }
            // Something is still in flight: a slice ran out, a signal
            // came, or a short send's first part completed.
            if !timed_out {
                continue;
            }
            waited += DIRECT_SLICE;
            if cutting {
                if waited >= Duration::from_secs(5) {
                    return Err(Trip::Stuck(cut(fd, waited)));
                }
            } else if over(limits, waited) {
                // The shut-down socket ends the requests in flight.
                // SAFETY: shutdown(2) takes no memory; `fd` is this
                // connection's socket.
                unsafe { libc::shutdown(fd, libc::SHUT_RDWR) };
                cutting = true;
            }
        }
        Ok((waited, cutting))
    }

    /// Takes the completions; true when a send was short (its rest is due).
    #[inline]
    fn reap(&mut self, f: &mut Flight) -> bool {
        let mut resend = false;
        for cqe in self.ring.completion() {
            let res = cqe.result();
            match cqe.user_data() {
                SEND => {
                    f.send = false;
                    if res < 0 {
                        if f.send_err.is_none() && res != -libc::ECANCELED {
                            f.send_err = Some(io::Error::from_raw_os_error(-res));
                        }
                    } else {
                        f.sent += res as usize;
                        resend = f.sent < self.pending.len();
                    }
                }
                RECV => {
                    f.recv = false;
                    f.received = Some(if res < 0 {
                        Err(io::Error::from_raw_os_error(-res))
                    } else {
                        Ok(res as usize)
                    });
                }
                _ => {}
            }
        }
        resend
    }
}
