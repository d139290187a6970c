//! The io_uring backend for load connections (`--io-backend uring`).
//!
//! One ring per client thread (shard), kept in a thread-local: a
//! connection registers its socket and gets a slot with buffers the ring
//! owns, so that a request in flight never points into memory a dropped
//! future or connection gave back. A send copies the packet into the
//! slot's buffer, queues it and returns at once (a short send is finished
//! by the completion handler); a receive queues a read into the slot's
//! buffer and waits. Nothing is submitted per query: the shard's [`pump`]
//! task runs once a pass, after the connections it woke have queued their
//! next requests, and makes one `io_uring_enter` that submits them all
//! and waits for the next completions (sends complete inside the call; it
//! waits for one receive beyond them, at most `wait`). The connections
//! those completions finish are woken and the pump runs again; the
//! runtime's own wait (epoll, with tokio's timers) is only reached when
//! no receive completes within `wait`, and its zero-timeout check of
//! timers and sockets once every 61 task polls. So a pass is one system
//! call, for as many queries as completed in it.
//!
//! With `wait` zero (open-model runs, whose arrival timers must not wait
//! behind a ring) the pump submits only, and the runtime waits in epoll
//! for the ring's descriptor: two calls a pass.
//!
//! Owns: the ring, the slots and their buffers. Must not touch: packet
//! framing (io.rs), the run's state (exec).

use io_uring::{opcode, types, IoUring};
use std::cell::RefCell;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

/// Bytes one receive asks for.
const RBUF: usize = 16 * 1024;
/// Submission queue entries per ring (a send and a receive per
/// connection fit many times over; a full queue is submitted at once).
const ENTRIES: u32 = 256;
/// Registered-file table entries per ring: a socket's slot number is its
/// entry (slots beyond it use the plain descriptor).
const FILES: u32 = 4096;
/// user_data of cancel and timeout requests, whose completions are ignored.
const CONTROL: u64 = u64::MAX;
/// How long a pass of the [`pump`] waits inside io_uring_enter for a
/// receive before it hands the wait to the runtime: the most a tokio timer
/// (the interval ticker, the read-timeout watchdog, a think time) can be
/// late while every request of the shard is with the server. Under load a
/// receive completes long before it.
pub const PASS_WAIT: Duration = Duration::from_millis(1);

/// One registered socket.
struct Slot {
    fd: RawFd,
    /// The socket is entry `slot` of the ring's registered files: requests
    /// name it there, which spares the kernel a descriptor lookup (and its
    /// reference count) per request.
    fixed: bool,
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
    /// Sends queued since the pump last reaped. They complete inside the
    /// call that submits them, so their completions count toward the
    /// pass's wait (also those of a full queue's early submit in `push`,
    /// which are still on the completion queue).
    sends_queued: usize,
    /// Requests whose completion has not been reaped (control ones excluded).
    in_flight: usize,
    /// Of those, receives.
    recvs: usize,
    /// The pump, while it waits through the runtime: a new request wakes it.
    pump: Option<Waker>,
    /// The kernel can time a wait (IORING_FEAT_EXT_ARG, Linux 5.11).
    timed_wait: bool,
    /// A sparse registered-file table was set up (Linux 5.19).
    files: bool,
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
    let timed_wait = ring.params().is_feature_ext_arg();
    let files = ring.submitter().register_files_sparse(FILES).is_ok();
    RING.with(|r| {
        *r.borrow_mut() = Some(Ring {
            ring,
            slots: Vec::new(),
            free: Vec::new(),
            next_gen: 1,
            queued: 0,
            sends_queued: 0,
            in_flight: 0,
            recvs: 0,
            pump: None,
            timed_wait,
            files,
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

/// Drives this thread's ring for as long as it is installed (a task of
/// the shard): each time it runs, submits what the connections queued
/// and, unless `wait` is zero, waits in the same call for the next
/// receive to complete (at most `wait`); then wakes the connections whose
/// requests completed and yields to them. When nothing completes, it waits
/// through the runtime for the ring's descriptor (and for a new request).
pub async fn pump(fd: RawFd, wait: Duration) -> io::Result<()> {
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
    let ts = types::Timespec::from(wait);
    let timed = (!wait.is_zero()).then_some(&ts);
    let mut wake = Vec::with_capacity(64);
    std::future::poll_fn(|cx| loop {
        let still_queued = with(|r| r.pass(timed, &mut wake));
        if !wake.is_empty() {
            wake.drain(..).for_each(Waker::wake);
            // The woken connections queue their next requests first.
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        if still_queued {
            continue; // (the rest of a short send)
        }
        with(|r| match &r.pump {
            Some(w) if w.will_wake(cx.waker()) => {}
            _ => r.pump = Some(cx.waker().clone()),
        });
        match afd.poll_read_ready(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
            // Completions came: take them on the next turn of the loop.
            Poll::Ready(Ok(mut guard)) => guard.clear_ready(),
        }
    })
    .await
}

/// Frees this thread's ring once the requests still in flight (of
/// connections dropped mid-query) are cancelled and completed; if some do
/// not complete within a second, their buffers are leaked rather than
/// freed under the kernel.
pub fn uninstall() {
    let Some(mut ring) = RING.with(|r| r.borrow_mut().take()) else {
        return;
    };
    ring.pump = None;
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
pub(crate) struct UringSock {
    slot: usize,
}

impl UringSock {
    /// Registers `fd` (a connected, non-blocking stream socket).
    pub(crate) fn register(fd: RawFd) -> UringSock {
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
        if let Some(w) = self.pump.take() {
            w.wake();
        }
    }

    fn submit(&mut self) {
        self.queued = 0;
        self.sends_queued = 0;
        let _ = self.ring.submit();
    }

    /// Queues request `e`, a send or a receive, counted in flight until
    /// its completion is reaped.
    fn queue(&mut self, e: &io_uring::squeue::Entry, send: bool) {
        self.in_flight += 1;
        if send {
            self.sends_queued += 1;
        } else {
            self.recvs += 1;
        }
        self.push(e);
    }

    /// One pass of the pump: submits what is queued and, with `wait` and a
    /// receive in flight, waits in the same call for the sends just
    /// submitted and one completion more (at most `wait`); then reaps.
    /// True when the reaping queued more (the rest of a short send).
    fn pass(&mut self, wait: Option<&types::Timespec>, wake: &mut Vec<Waker>) -> bool {
        match wait {
            Some(ts) if self.timed_wait && self.recvs > 0 => {
                let want = self.sends_queued + 1;
                self.queued = 0;
                self.sends_queued = 0;
                let args = types::SubmitArgs::new().timespec(ts);
                // ETIME (nothing came within `wait`) and EINTR are not
                // failures; a request that failed shows in its completion.
                let _ = self.ring.submitter().submit_with_args(want, &args);
            }
            _ if self.queued > 0 => self.submit(),
            _ => {}
        }
        self.reap(wake);
        self.queued > 0
    }

    fn register(&mut self, fd: RawFd) -> usize {
        let gen = self.next_gen;
        self.next_gen = self.next_gen.wrapping_add(1);
        let i = self.free.pop().unwrap_or_else(|| {
            self.slots.push(None);
            self.slots.len() - 1
        });
        let fixed = self.files
            && i < FILES as usize
            && self
                .ring
                .submitter()
                .register_files_update(i as u32, &[fd])
                .is_ok();
        let slot = Slot {
            fd,
            fixed,
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
        self.slots[i] = Some(slot);
        i
    }

    /// Frees slot `i` (nothing of it in flight) and its registered file,
    /// which would otherwise keep the socket open after its descriptor
    /// is closed.
    fn free_slot(&mut self, i: usize) {
        if self.slots[i].take().is_some_and(|s| s.fixed) {
            let _ = self.ring.submitter().register_files_update(i as u32, &[-1]);
        }
        self.free.push(i);
    }

    fn close(&mut self, i: usize) {
        let Some(s) = self.slots[i].as_mut() else {
            return;
        };
        if !s.reading && !s.writing {
            self.free_slot(i);
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
            self.queue(&e, false);
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
        self.queue(&e, true);
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
            self.recvs -= usize::from(!send);
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
                    resend = Some((send_entry(i, s), true));
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
                resend = Some((recv_entry(i, s, false), false));
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
                self.free_slot(i);
            }
            if let Some((e, send)) = resend.take() {
                self.queue(&e, send);
            }
        }
    }
}

/// A receive into a slot's whole buffer.
fn recv_entry(i: usize, s: &mut Slot, poll_first: bool) -> io_uring::squeue::Entry {
    /// IORING_RECVSEND_POLL_FIRST, in the entry's ioprio field.
    const POLL_FIRST: u16 = 1;
    let (ptr, len) = (s.rbuf.as_mut_ptr(), s.rbuf.len() as u32);
    let recv = if s.fixed {
        opcode::Recv::new(types::Fixed(i as u32), ptr, len)
    } else {
        opcode::Recv::new(types::Fd(s.fd), ptr, len)
    };
    recv.ioprio(if poll_first { POLL_FIRST } else { 0 })
        .build()
        .user_data(key(i, s.gen, false))
}

/// The send of the rest of a slot's buffer.
fn send_entry(i: usize, s: &Slot) -> io_uring::squeue::Entry {
    let rest = &s.wbuf[s.wsent..];
    let send = if s.fixed {
        opcode::Send::new(types::Fixed(i as u32), rest.as_ptr(), rest.len() as u32)
    } else {
        opcode::Send::new(types::Fd(s.fd), rest.as_ptr(), rest.len() as u32)
    };
    send.flags(libc::MSG_NOSIGNAL)
        .build()
        .user_data(key(i, s.gen, true))
}
