//! Wall-clock readings as text: the one formatter behind the store's
//! timestamps (RFC 3339, UTC) and the live views' clock and zone (the local
//! time of TZ or /etc/localtime). Dates, leap years and zone rules are
//! jiff's; this only picks the zone and the strftime pattern.

/// Which clock face a reading is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zone {
    /// Coordinated Universal Time.
    Utc,
    /// The system's local time zone (TZ, else /etc/localtime; UTC when
    /// neither names a zone jiff can read).
    Local,
}

/// The current time in `zone`, formatted by the strftime pattern `fmt`
/// (jiff's dialect: `%Y-%m-%dT%H:%M:%S%.3fZ`, `%H:%M:%S`, `%:z`, …).
/// Empty when the pattern cannot be written for this time (an unknown
/// directive): the callers' patterns are constants.
pub fn now_text(zone: Zone, fmt: &str) -> String {
    let t = jiff::Timestamp::now();
    let r = match zone {
        Zone::Utc => jiff::fmt::strtime::format(fmt, t),
        Zone::Local => {
            jiff::fmt::strtime::format(fmt, &t.to_zoned_datetime(jiff::tz::TimeZone::system()))
        }
    };
    r.unwrap_or_default()
}

/// Seconds since the Unix epoch, now.
pub fn now_unix() -> f64 {
    jiff::Timestamp::now().as_microsecond() as f64 / 1e6
}

/// The wall clock at `at`, in seconds since the epoch (`at` in the past
/// or the future of now: `Instant`s carry no wall time of their own).
pub fn unix_at(at: std::time::Instant) -> f64 {
    let now = std::time::Instant::now();
    if at <= now {
        now_unix() - (now - at).as_secs_f64()
    } else {
        now_unix() + (at - now).as_secs_f64()
    }
}

/// `epoch` (seconds since the Unix epoch) as RFC 3339 UTC with
/// milliseconds ("2026-11-26T12:30:05.250Z"); empty out of jiff's range.
pub fn utc_text(epoch: f64) -> String {
    let Ok(t) = jiff::Timestamp::from_microsecond((epoch * 1e6).round() as i64) else {
        return String::new();
    };
    jiff::fmt::strtime::format("%Y-%m-%dT%H:%M:%S%.3fZ", t).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epochs_are_written_in_utc_with_milliseconds() {
        assert_eq!(utc_text(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(utc_text(1_795_696_205.25), "2026-11-26T12:30:05.250Z");
        let d = unix_at(std::time::Instant::now() - std::time::Duration::from_secs(10));
        assert!((now_unix() - d - 10.0).abs() < 1.0, "{d}");
    }

    #[test]
    fn utc_is_rfc3339_with_milliseconds() {
        let t = now_text(Zone::Utc, "%Y-%m-%dT%H:%M:%S%.3fZ");
        assert_eq!(t.len(), 24, "{t}");
        assert!(t.ends_with('Z') && t.as_bytes()[10] == b'T', "{t}");
        assert!(t.as_str() > "2024-01-01");
    }

    #[test]
    fn local_clock_and_offset_have_their_shapes() {
        let c = now_text(Zone::Local, "%H:%M:%S");
        assert!(c.len() == 8 && c.as_bytes()[2] == b':', "{c}");
        let z = now_text(Zone::Local, "%:z");
        assert!(
            z.len() == 6 && (z.starts_with('+') || z.starts_with('-')),
            "{z}"
        );
    }
}
