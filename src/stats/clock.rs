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

#[cfg(test)]
mod tests {
    use super::*;

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
