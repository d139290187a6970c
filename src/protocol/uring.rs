//! The io_uring backend for load connections (`--io-backend uring`).
//!
//! One ring per client thread (shard), kept in a thread-local: a
//! connection registers its socket and gets a slot with buffers the ring
//! owns, so that a request in flight never points into memory a dropped
//! future or connection gave back. A send copies the packet into the
//! slot's buffer, queues it and returns at once (a short send is finished
//! by the completion handler); a receive queues a read into the slot's
//! buffer and waits. Nothing is submitted per query: the shard's runtime
//! calls [`submit_pending`] once before it goes idle, so every connection
//! that became ready in a pass goes to the kernel in one `io_uring_enter`
//! (the sends, which complete inline, are reaped right there), and the
//! runtime's poll of the ring's descriptor wakes [`drive`], which reaps
//! every receive that completed since at once. At 16 connections a shard that is
//! 2 system calls a pass, against 2 per query (send, receive) plus an
//! epoll_wait on the reactor.
//!
//! Owns: the ring, the slots and their buffers. Must not touch: packet
//! framing (io.rs), the run's state (exec).

use io_uring::{opcode, types, IoUring};
use std::cell::RefCell;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::task::{Context, Poll, Waker};

/// Bytes one receive asks for.
const RBUF: usize = 16 * 1024;
/// Submission queue entries per ring (a send and a receive per
/// connection fit many times over; a full queue is submitted at once).
const ENTRIES: u32 = 256;
/// user_data of cancel and timeout requests, whose completions are ignored.
const CONTROL: u64 = u64::MAX;

/// One registered socket.
struct Slot {
    fd: RawFd,
    /// Changes with every registration, so that a late completion of a
    /// slot's former socket is not taken for the new one's.
    gen: u32,
    rbuf: Box<[u8]>,
    /// Received bytes not handed out yet: rbuf[rstart..rend].
    rstart: usize,
    rend: usize,
    reading: bool,
    reof: bool,
    rerr: Option<i32>,
    rwaker: Option<Waker>,
    wbuf: Vec<u8>,
    wsent: usize,
    writing: bool,
    werr: Option<i32>,
    wwaker: Option<Waker>,
    /// The connection is gone; the slot is freed when nothing is in flight.
    closed: bool,
}

struct Ring {
    ring: IoUring,
    slots: Vec<Option<Slot>>,
    free: Vec<usize>,
    next_gen: u32,
    /// Entries queued since the last submit.
    queued: usize,
    /// Requests whose completion has not been reaped (control ones excluded).
    in_flight: usize,
    /// Receives wait for the socket's readiness before trying a read
    /// (IORING_RECVSEND_POLL_FIRST, Linux 5.19): a response never follows
    /// its request at once, so the first attempt would only fail. Off
    /// after a kernel refuses the flag.
    poll_first: bool,
}

thread_local! {
    static RING: RefCell<Option<Ring>> = const { RefCell::new(None) };
}

fn key(slot: usize, gen: u32, send: bool) -> u64 {
    (u64::from(gen) << 32) | ((slot as u64) << 1) | u64::from(send)
}

/// Whether this kernel lets us use io_uring for sockets: Err with the
/// reason (a one-line note for the user) when not.
pub fn probe() -> Result<(), String> {
    let ring = IoUring::new(8).map_err(|e| format!("io_uring_setup failed: {e}"))?;
    let mut p = io_uring::Probe::new();
    ring.submitter()
        .register_probe(&mut p)
        .map_err(|e| format!("io_uring probe failed: {e}"))?;
    for (code, name) in [
        (opcode::Send::CODE, "send"),
        (opcode::Recv::CODE, "recv"),
        (opcode::AsyncCancel::CODE, "cancel"),
    ] {
        if !p.is_supported(code) {
            return Err(format!("this kernel's io_uring has no {name}"));
        }
    }
    Ok(())
}

/// Creates this thread's ring; Err when io_uring cannot be set up.
pub fn install() -> io::Result<RawFd> {
    let ring = IoUring::builder()
        .setup_coop_taskrun()
        .setup_single_issuer()
        .build(ENTRIES)
        .or_else(|_| IoUring::new(ENTRIES))?;
    let fd = ring.as_raw_fd();
    RING.with(|r| {
        *r.borrow_mut() = Some(Ring {
            ring,
            slots: Vec::new(),
            free: Vec::new(),
            next_gen: 1,
            queued: 0,
            in_flight: 0,
            poll_first: true,
        })
    });
    Ok(fd)
}

/// Whether this thread has a ring.
pub fn installed() -> bool {
    RING.with(|r| r.borrow().is_some())
}

fn with<T>(f: impl FnOnce(&mut Ring) -> T) -> T {
    RING.with(|r| {
        f(r.borrow_mut()
            .as_mut()
            .expect("io_uring ring not installed on this thread"))
    })
}

/// Submits what was queued (called by the shard's runtime before it
/// parks), then takes the completions the kernel posted during the call:
/// sends usually complete inline, and left on the queue they would make
/// the runtime's wait return at once, for nothing (one more system call
/// a pass). A receive found complete wakes its connection from here.
pub fn submit_pending() {
    let mut wake = Vec::new();
    RING.with(|r| {
        if let Ok(mut r) = r.try_borrow_mut() {
            if let Some(ring) = r.as_mut() {
                // (a short send found here is queued again: submit that too)
                for _ in 0..4 {
                    if ring.queued == 0 {
                        break;
                    }
                    ring.submit();
                    ring.reap(&mut wake);
                }
            }
        }
    });
    // (an empty Vec does not allocate; one that is not is a rare pass)
    wake.into_iter().for_each(Waker::wake);
}

/// Reaps completions each time the ring's descriptor is readable, waking
/// the connections they finish. Runs as a task of the shard for as long as
/// the ring is installed.
pub async fn drive(fd: RawFd) -> io::Result<()> {
    struct RingFd(RawFd);
    impl AsRawFd for RingFd {
        fn as_raw_fd(&self) -> RawFd {
            self.0
        }
    }
    // SAFETY: the ring's descriptor stays open until `uninstall`, which
    // runs after this task has been dropped.
    let afd = unsafe {
        tokio::io::unix::AsyncFd::register_with_interest(RingFd(fd), tokio::io::Interest::READABLE)
    }
    .map_err(|e| e.into_parts().1)?;
    let mut wake = Vec::with_capacity(64);
    loop {
        let mut guard = afd.readable().await?;
        // Reap, forget the readiness, reap again: a completion posted in
        // between is not left waiting for another one.
        with(|r| r.reap(&mut wake));
        guard.clear_ready();
        with(|r| r.reap(&mut wake));
        wake.drain(..).for_each(Waker::wake);
    }
}

/// Frees this thread's ring once the requests still in flight (of
/// connections dropped mid-query) are cancelled and completed; if some do
/// not complete within a second, their buffers are leaked rather than
/// freed under the kernel.
pub fn uninstall() {
    let Some(mut ring) = RING.with(|r| r.borrow_mut().take()) else {
        return;
    };
    let mut sink = Vec::new();
    for _ in 0..10 {
        ring.reap(&mut sink);
        sink.clear();
        if ring.in_flight == 0 {
            return;
        }
        for i in 0..ring.slots.len() {
            if let Some(s) = &ring.slots[i] {
                let (gen, r, w) = (s.gen, s.reading, s.writing);
                for (on, send) in [(r, false), (w, true)] {
                    if on {
                        ring.push(
                            &opcode::AsyncCancel::new(key(i, gen, send))
                                .build()
                                .user_data(CONTROL),
                        );
                    }
                }
            }
        }
        let ts = types::Timespec::new().nsec(100_000_000);
        ring.push(&opcode::Timeout::new(&ts).build().user_data(CONTROL));
        let _ = ring.ring.submit_and_wait(1);
        ring.queued = 0;
    }
    std::mem::forget(ring);
}

/// A connection's socket on this thread's ring.
#[derive(Debug)]
pub struct UringSock {
    slot: usize,
}

impl UringSock {
    /// Registers `fd` (a connected, non-blocking stream socket).
    pub fn register(fd: RawFd) -> UringSock {
        with(|r| UringSock {
            slot: r.register(fd),
        })
    }

    /// Receives at least one byte into `buf` (0: the peer closed).
    pub async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        std::future::poll_fn(|cx| with(|r| r.poll_recv(self.slot, cx, buf))).await
    }

    /// Queues all of `data` for sending; waits only for the previous send
    /// of this socket to finish. A failure shows on the next send or
    /// receive.
    pub async fn send(&self, data: &[u8]) -> io::Result<()> {
        std::future::poll_fn(|cx| with(|r| r.poll_send(self.slot, cx, data))).await
    }
}

impl Drop for UringSock {
    fn drop(&mut self) {
        RING.with(|r| {
            if let Ok(mut r) = r.try_borrow_mut() {
                if let Some(ring) = r.as_mut() {
                    ring.close(self.slot);
                }
            }
        });
    }
}

fn os_err(e: i32) -> io::Error {
    io::Error::from_raw_os_error(e)
}

impl Ring {
    fn push(&mut self, e: &io_uring::squeue::Entry) {
        // SAFETY: every buffer an entry points to is owned by a slot,
        // which is kept until the entry's completion is reaped.
        unsafe {
            if self.ring.submission().push(e).is_err() {
                let _ = self.ring.submit();
                self.queued = 0;
                let _ = self.ring.submission().push(e);
            }
        }
        self.queued += 1;
    }

    fn submit(&mut self) {
        self.queued = 0;
        let _ = self.ring.submit();
    }

    fn register(&mut self, fd: RawFd) -> usize {
        let gen = self.next_gen;
        self.next_gen = self.next_gen.wrapping_add(1);
        let slot = Slot {
            fd,
            gen,
            rbuf: vec![0; RBUF].into_boxed_slice(),
            rstart: 0,
            rend: 0,
            reading: false,
            reof: false,
            rerr: None,
            rwaker: None,
            wbuf: Vec::with_capacity(1024),
            wsent: 0,
            writing: false,
            werr: None,
            wwaker: None,
            closed: false,
        };
        match self.free.pop() {
            Some(i) => {
                self.slots[i] = Some(slot);
                i
            }
            None => {
                self.slots.push(Some(slot));
                self.slots.len() - 1
            }
        }
    }

    fn close(&mut self, i: usize) {
        let Some(s) = self.slots[i].as_mut() else {
            return;
        };
        if !s.reading && !s.writing {
            self.slots[i] = None;
            self.free.push(i);
            return;
        }
        s.closed = true;
        let (gen, reading) = (s.gen, s.reading);
        // A receive waits for the server; cancel it. A send finishes.
        if reading {
            self.push(
                &opcode::AsyncCancel::new(key(i, gen, false))
                    .build()
                    .user_data(CONTROL),
            );
        }
    }

    fn poll_recv(
        &mut self,
        i: usize,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let s = self.slots[i].as_mut().expect("io_uring slot");
        if s.rstart < s.rend {
            let n = (s.rend - s.rstart).min(buf.len());
            buf[..n].copy_from_slice(&s.rbuf[s.rstart..s.rstart + n]);
            s.rstart += n;
            return Poll::Ready(Ok(n));
        }
        if let Some(e) = s.rerr.take() {
            return Poll::Ready(Err(os_err(e)));
        }
        if std::mem::take(&mut s.reof) {
            return Poll::Ready(Ok(0));
        }
        if let Some(e) = s.werr {
            return Poll::Ready(Err(os_err(e)));
        }
        match &s.rwaker {
            Some(w) if w.will_wake(cx.waker()) => {}
            _ => s.rwaker = Some(cx.waker().clone()),
        }
        if !s.reading {
            s.reading = true;
            let e = recv_entry(i, s, self.poll_first);
            self.in_flight += 1;
            self.push(&e);
        }
        Poll::Pending
    }

    fn poll_send(&mut self, i: usize, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<()>> {
        let s = self.slots[i].as_mut().expect("io_uring slot");
        if let Some(e) = s.werr {
            return Poll::Ready(Err(os_err(e)));
        }
        if s.writing {
            match &s.wwaker {
                Some(w) if w.will_wake(cx.waker()) => {}
                _ => s.wwaker = Some(cx.waker().clone()),
            }
            return Poll::Pending;
        }
        s.wbuf.clear();
        s.wbuf.extend_from_slice(data);
        s.wsent = 0;
        s.writing = true;
        let e = send_entry(i, s);
        self.in_flight += 1;
        self.push(&e);
        Poll::Ready(Ok(()))
    }

    /// Takes every completion off the queue; the wakers to call go to `wake`.
    fn reap(&mut self, wake: &mut Vec<Waker>) {
        let mut resend = None;
        loop {
            let Some(cqe) = self.ring.completion().next() else {
                break;
            };
            let ud = cqe.user_data();
            if ud == CONTROL {
                continue;
            }
            self.in_flight -= 1;
            let (i, gen, send) = ((ud as u32 >> 1) as usize, (ud >> 32) as u32, ud & 1 == 1);
            let Some(s) = self.slots.get_mut(i).and_then(Option::as_mut) else {
                continue;
            };
            if s.gen != gen {
                continue;
            }
            let res = cqe.result();
            if send {
                if res >= 0 && s.wsent + (res as usize) < s.wbuf.len() {
                    s.wsent += res as usize;
                    resend = Some(send_entry(i, s));
                } else {
                    s.writing = false;
                    if res < 0 {
                        s.werr = Some(-res);
                        wake.extend(s.rwaker.take());
                    }
                    wake.extend(s.wwaker.take());
                }
            } else if res == -libc::EINVAL && self.poll_first {
                // An older kernel: the same receive without the flag.
                self.poll_first = false;
                resend = Some(recv_entry(i, s, false));
            } else {
                s.reading = false;
                match res {
                    0 => s.reof = true,
                    n if n > 0 => (s.rstart, s.rend) = (0, n as usize),
                    e => s.rerr = Some(-e),
                }
                wake.extend(s.rwaker.take());
            }
            if s.closed && !s.reading && !s.writing {
                self.slots[i] = None;
                self.free.push(i);
            }
            if let Some(e) = resend.take() {
                self.in_flight += 1;
                self.push(&e);
            }
        }
    }
}

/// A receive into a slot's whole buffer.
fn recv_entry(i: usize, s: &mut Slot, poll_first: bool) -> io_uring::squeue::Entry {
    /// IORING_RECVSEND_POLL_FIRST, in the entry's ioprio field.
    const POLL_FIRST: u16 = 1;
    opcode::Recv::new(types::Fd(s.fd), s.rbuf.as_mut_ptr(), s.rbuf.len() as u32)
        .ioprio(if poll_first { POLL_FIRST } else { 0 })
        .build()
        .user_data(key(i, s.gen, false))
}

/// The send of the rest of a slot's buffer.
fn send_entry(i: usize, s: &Slot) -> io_uring::squeue::Entry {
    let rest = &s.wbuf[s.wsent..];
    opcode::Send::new(types::Fd(s.fd), rest.as_ptr(), rest.len() as u32)
        .flags(libc::MSG_NOSIGNAL)
        .build()
        .user_data(key(i, s.gen, true))
}
