//! fileio's `--file-io-mode=async`, as sysbench's libaio mode works, on
//! io_uring: each thread keeps up to `--file-async-backlog` requests in
//! flight on a ring of its own; an event submits one request and returns
//! (it waits only when the backlog is full, for one completion); reads,
//! writes and fsyncs are counted when they complete, and the thread's
//! last step waits for all of them. Owns the ring; which request comes
//! next is fileio.rs's.

use super::HostError;
use io_uring::{opcode, squeue, types, IoUring};
use std::os::fd::RawFd;

/// What a request was (its completion's user data).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// A read of `len` bytes.
    Read,
    /// A write of `len` bytes.
    Write,
    /// An fsync (or fdatasync) of a file.
    Fsync,
}

impl Kind {
    fn tag(self) -> u64 {
        match self {
            Kind::Read => 0,
            Kind::Write => 1,
            Kind::Fsync => 2,
        }
    }

    fn of(tag: u64) -> Kind {
        match tag {
            0 => Kind::Read,
            1 => Kind::Write,
            _ => Kind::Fsync,
        }
    }
}

/// One thread's ring and what is in flight on it.
pub struct AsyncIo {
    ring: IoUring,
    backlog: u32,
    in_flight: u32,
    len: u32,
}

impl AsyncIo {
    /// A ring for `backlog` requests of `len` bytes each.
    pub fn new(backlog: u32, len: u32) -> Result<AsyncIo, HostError> {
        let backlog = backlog.max(1);
        let ring = IoUring::new(backlog.next_power_of_two())
            .map_err(|e| HostError::Async(format!("io_uring_setup() failed: {e}")))?;
        Ok(AsyncIo {
            ring,
            backlog,
            in_flight: 0,
            len,
        })
    }

    /// Queues a request on `fd` (`buf` is the thread's block buffer, `len`
    /// bytes; the kernel reads or fills it while the request is in
    /// flight); waits for one completion first when the backlog is full.
    /// Each completed request is handed to `done`.
    pub fn submit(
        &mut self,
        kind: Kind,
        fd: RawFd,
        buf: *mut u8,
        at: u64,
        fdatasync: bool,
        done: &mut impl FnMut(Kind),
    ) -> Result<(), HostError> {
        if self.in_flight >= self.backlog {
            self.wait(1, done)?;
        }
        let fd = types::Fd(fd);
        let entry: squeue::Entry = match kind {
            Kind::Read => opcode::Read::new(fd, buf, self.len).offset(at).build(),
            Kind::Write => opcode::Write::new(fd, buf, self.len).offset(at).build(),
            Kind::Fsync => {
                let flags = if fdatasync {
                    types::FsyncFlags::DATASYNC
                } else {
                    types::FsyncFlags::empty()
                };
                opcode::Fsync::new(fd).flags(flags).build()
            }
        };
        // SAFETY: the buffer is the worker's, alive for the whole run (the
        // worker waits for every request before it is dropped); the file
        // descriptors stay open until the run ends.
        unsafe { self.ring.submission().push(&entry.user_data(kind.tag())) }
            .map_err(|_| HostError::Async("the io_uring submission queue is full".into()))?;
        self.ring
            .submit()
            .map_err(|e| HostError::Async(format!("io_submit() failed: {e}")))?;
        self.in_flight += 1;
        Ok(())
    }

    /// Waits until at least `n` requests have completed, handing each to
    /// `done`; a failed or short one is an error.
    pub fn wait(&mut self, n: u32, done: &mut impl FnMut(Kind)) -> Result<(), HostError> {
        let target = n.min(self.in_flight);
        let mut seen = 0;
        while seen < target {
            self.ring
                .submit_and_wait(1)
                .map_err(|e| HostError::Async(format!("io_getevents() failed: {e}")))?;
            let completed: Vec<(u64, i32)> = self
                .ring
                .completion()
                .map(|c| (c.user_data(), c.result()))
                .collect();
            for (tag, res) in completed {
                self.in_flight -= 1;
                seen += 1;
                let kind = Kind::of(tag);
                let ok = match kind {
                    Kind::Fsync => res == 0,
                    _ => res == self.len as i32,
                };
                if !ok {
                    return Err(HostError::Async(match kind {
                        Kind::Read => "Asynchronous read failed!".into(),
                        Kind::Write => "Asynchronous write failed!".into(),
                        Kind::Fsync => "Asynchronous fsync failed!".into(),
                    }));
                }
                done(kind);
            }
        }
        Ok(())
    }

    /// Waits for every request in flight (the thread's last step).
    pub fn drain(&mut self, done: &mut impl FnMut(Kind)) -> Result<(), HostError> {
        let n = self.in_flight;
        self.wait(n, done)
    }
}
