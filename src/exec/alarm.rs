//! A precise wake-up for rate mode: a timerfd per connection, armed at an
//! absolute CLOCK_MONOTONIC time and awaited through the shard's reactor.
//!
//! tokio's timer wheel has millisecond slots and rounds a deadline up to
//! the next one: under `--rate` a connection woke on average a millisecond
//! late, and that lateness showed as server latency. A timerfd fires on
//! the kernel's high-resolution timer (tens of microseconds here). It costs
//! two syscalls per wake (arm, read), paid only in rate mode; the closed
//! model never creates one. Owns no schedule: `rate::Arrivals` says when.

use rustix::time::{
    clock_gettime, timerfd_create, timerfd_settime, ClockId, Itimerspec, TimerfdClockId,
    TimerfdFlags, TimerfdTimerFlags, Timespec,
};
use std::io;
use std::os::fd::OwnedFd;
use std::time::Instant;
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

pub(crate) struct Alarm {
    fd: AsyncFd<OwnedFd>,
    /// An Instant and the CLOCK_MONOTONIC reading it corresponds to (std's
    /// Instant is that clock on Linux): deadlines convert without a read.
    base: (Instant, Timespec),
}

impl Alarm {
    /// A disarmed alarm registered with the current runtime.
    pub fn new() -> io::Result<Alarm> {
        let fd = timerfd_create(
            TimerfdClockId::Monotonic,
            TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC,
        )?;
        // SAFETY: the OwnedFd is the timerfd just created; the AsyncFd owns
        // it for its whole life and its raw fd never changes (an OwnedFd
        // cannot be re-pointed), which is what registration requires.
        let fd = unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }?;
        let base_instant = Instant::now();
        let ts = clock_gettime(ClockId::Monotonic);
        Ok(Alarm {
            fd,
            base: (base_instant, ts),
        })
    }

    /// `t` on CLOCK_MONOTONIC.
    fn timespec(&self, t: Instant) -> Timespec {
        let (bi, bt) = self.base;
        let ns = bt.tv_sec as i128 * 1_000_000_000
            + bt.tv_nsec as i128
            + if t >= bi {
                (t - bi).as_nanos() as i128
            } else {
                -((bi - t).as_nanos() as i128)
            };
        let ns = ns.max(1);
        Timespec {
            tv_sec: (ns / 1_000_000_000) as i64,
            tv_nsec: (ns % 1_000_000_000) as _,
        }
    }

    /// Returns at `t` (at once when it has passed).
    pub async fn until(&mut self, t: Instant) -> io::Result<()> {
        let spec = Itimerspec {
            it_interval: Timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: self.timespec(t),
        };
        timerfd_settime(self.fd.get_ref(), TimerfdTimerFlags::ABSTIME, &spec)?;
        loop {
            let mut guard = self.fd.readable().await?;
            // The expiration count (a u64) is not needed: one is enough.
            let mut expirations = [0u8; 8];
            match rustix::io::read(self.fd.get_ref(), &mut expirations) {
                Ok(8) => return Ok(()),
                Ok(_) => {}
                Err(rustix::io::Errno::AGAIN) => guard.clear_ready(),
                Err(e) => return Err(e.into()),
            }
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
