//! CPU accounting: this process's own CPU time (getrusage) and the host's
//! total CPU time (/proc/stat), to report client CPU per query and the load
//! generator's share of the host.

/// User + system CPU seconds consumed by this process so far.
pub fn process_cpu_seconds() -> f64 {
    rusage_seconds(libc::RUSAGE_SELF)
}

/// User + system CPU seconds consumed by the calling thread so far.
pub fn thread_cpu_seconds() -> f64 {
    rusage_seconds(libc::RUSAGE_THREAD)
}

fn rusage_seconds(who: libc::c_int) -> f64 {
    // SAFETY: an all-zero rusage is a valid value (integers only).
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes only into `ru`, a live local. rustix has no
    // getrusage, so libc stays.
    if unsafe { libc::getrusage(who, &mut ru) } != 0 {
        return 0.0;
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// A CPU set in the kernel's list format ("0-3,6"); empty for none.
pub fn cpu_list_text(cpus: &[usize]) -> String {
    let mut v = cpus.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            v[i].to_string()
        } else {
            format!("{}-{}", v[i], v[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// Total and idle host jiffies (all CPUs) from /proc/stat's cpu line:
/// user, nice, system, idle, iowait, irq, softirq and steal make the
/// total (guest time is inside user); idle and iowait the idle part.
pub(crate) fn host_cpu_jiffies() -> Option<(u64, u64)> {
    use procfs::CurrentSI;
    let c = procfs::KernelStats::current().ok()?.total;
    let opt = |v: Option<u64>| v.unwrap_or(0);
    let idle = c.idle + opt(c.iowait);
    let total = c.user + c.nice + c.system + idle + opt(c.irq) + opt(c.softirq) + opt(c.steal);
    Some((total, idle))
}

/// A point-in-time reading of process and host CPU.
#[derive(Clone, Copy, Debug)]
pub struct CpuSnapshot {
    /// This process's user + system CPU seconds.
    pub process_s: f64,
    /// The host's total CPU time, in clock ticks (all CPUs).
    pub host_jiffies: u64,
    /// Of it, idle and iowait ticks.
    pub host_idle_jiffies: u64,
}

impl CpuSnapshot {
    /// The reading now (host figures 0 when /proc/stat cannot be read).
    pub fn now() -> CpuSnapshot {
        let (host_jiffies, host_idle_jiffies) = host_cpu_jiffies().unwrap_or((0, 0));
        CpuSnapshot {
            process_s: process_cpu_seconds(),
            host_jiffies,
            host_idle_jiffies,
        }
    }

    /// (client CPU seconds, host CPU seconds available, host busy share) since `earlier`.
    pub fn since(&self, earlier: &CpuSnapshot) -> (f64, f64, f64) {
        let hz = rustix::param::clock_ticks_per_second().max(1) as f64;
        let client = self.process_s - earlier.process_s;
        let host = self.host_jiffies.saturating_sub(earlier.host_jiffies) as f64 / hz;
        let idle = self
            .host_idle_jiffies
            .saturating_sub(earlier.host_idle_jiffies) as f64
            / hz;
        let busy = if host > 0.0 { 1.0 - idle / host } else { 0.0 };
        (client, host, busy)
    }
}

#[cfg(test)]
mod tests {
    use super::cpu_list_text;

    #[test]
    fn cpu_lists_in_kernel_format() {
        assert_eq!(cpu_list_text(&[]), "");
        assert_eq!(cpu_list_text(&[3]), "3");
        assert_eq!(cpu_list_text(&[0, 1, 2, 3, 6]), "0-3,6");
        assert_eq!(cpu_list_text(&[6, 2, 1, 2, 9, 10]), "1-2,6,9-10");
    }
}
