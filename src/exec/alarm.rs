//! A precise wake-up for rate mode: a timerfd per connection, armed at an
//! absolute CLOCK_MONOTONIC time and awaited through the shard's reactor.
//!
//! tokio's timer wheel has millisecond slots and rounds a deadline up to
//! the next one: under `--rate` a connection woke on average a millisecond
//! late, and that lateness showed as server latency. A timerfd fires on
//! the kernel's high-resolution timer (tens of microseconds here). It costs
//! two syscalls per wake (arm, read), paid only in rate mode; the closed
//! model never creates one. Owns no schedule: `rate::Arrivals` says when.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Instant;
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

pub struct Alarm {
    fd: AsyncFd<OwnedFd>,
    /// An Instant and the CLOCK_MONOTONIC reading it corresponds to (std's
    /// Instant is that clock on Linux): deadlines convert without a read.
    base: (Instant, libc::timespec),
}

impl Alarm {
    /// A disarmed alarm registered with the current runtime.
    pub fn new() -> io::Result<Alarm> {
        let fd = unsafe {
            libc::timerfd_create(
                libc::CLOCK_MONOTONIC,
                libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the OwnedFd is the timerfd just created, owned by the
        // AsyncFd for its whole life.
        let fd = unsafe {
            AsyncFd::register_with_interest(OwnedFd::from_raw_fd(fd), Interest::READABLE)
        }?;
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let base_instant = Instant::now();
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        Ok(Alarm {
            fd,
            base: (base_instant, ts),
        })
    }

    /// `t` on CLOCK_MONOTONIC.
    fn timespec(&self, t: Instant) -> libc::timespec {
        let (bi, bt) = self.base;
        let ns = bt.tv_sec as i128 * 1_000_000_000
            + bt.tv_nsec as i128
            + if t >= bi {
                (t - bi).as_nanos() as i128
            } else {
                -((bi - t).as_nanos() as i128)
            };
        let ns = ns.max(1);
        libc::timespec {
            tv_sec: (ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (ns % 1_000_000_000) as libc::c_long,
        }
    }

    /// Returns at `t` (at once when it has passed).
    pub async fn until(&mut self, t: Instant) -> io::Result<()> {
        let spec = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: self.timespec(t),
        };
        let raw = self.fd.get_ref().as_raw_fd();
        let r = unsafe {
            libc::timerfd_settime(raw, libc::TFD_TIMER_ABSTIME, &spec, std::ptr::null_mut())
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        loop {
            let mut guard = self.fd.readable().await?;
            let mut expirations = 0u64;
            let n = unsafe {
                libc::read(
                    raw,
                    (&mut expirations as *mut u64).cast(),
                    std::mem::size_of::<u64>(),
                )
            };
            if n == 8 {
                return Ok(());
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::WouldBlock {
                return Err(e);
            }
            guard.clear_ready();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn it_never_returns_before_its_deadline() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut a = Alarm::new().unwrap();
            for us in [0u64, 50, 300, 2_000] {
                let t = Instant::now() + Duration::from_micros(us);
                a.until(t).await.unwrap();
                assert!(Instant::now() >= t, "{us} us");
            }
            // a deadline already past returns at once
            a.until(Instant::now() - Duration::from_millis(5))
                .await
                .unwrap();
        });
    }
}
