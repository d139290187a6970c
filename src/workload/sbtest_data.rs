//! sysbench's data format: `c` is 10 groups of 11 random digits joined by
//! '-', `pad` is 5 such groups. Values are written in place into a buffer.

use super::xoroshiro::Xoroshiro;

/// Length of a `c` value (10 × 11 digits + 9 dashes).
pub(crate) const C_LEN: usize = 119;
/// Length of a `pad` value (5 × 11 digits + 4 dashes).
pub(crate) const PAD_LEN: usize = 59;

/// Digits (`#`) in a `c` value: the draws sysbench makes for one.
pub(crate) const C_DIGITS: usize = 110;
/// Digits (`#`) in a `pad` value.
pub(crate) const PAD_DIGITS: usize = 55;

/// Fills `out` with groups of 11 random digits separated by '-', one draw
/// per digit as sysbench's `sysbench.rand.string("###…")` makes them (the
/// runs' strings: the same draws as sysbench's from a fixed seed).
#[inline]
pub(crate) fn fill_groups(out: &mut [u8], x: &mut Xoroshiro) {
    for (i, b) in out.iter_mut().enumerate() {
        *b = if i % 12 == 11 {
            b'-'
        } else {
            x.uniform(u32::from(b'0'), u32::from(b'9')) as u8
        };
    }
}

/// `fill_groups` at 18 digits per draw: for prepare, whose rows sysbench
/// draws from an unseeded stream (no seed reproduces them).
#[inline]
pub(crate) fn fill_groups_bulk(out: &mut [u8], x: &mut Xoroshiro) {
    // 18 decimal digits per 64-bit draw (all uniform: 10^18 < 2^64 / 10).
    let (mut v, mut left) = (0u64, 0);
    for (i, b) in out.iter_mut().enumerate() {
        if i % 12 == 11 {
            *b = b'-';
            continue;
        }
        if left == 0 {
            v = x.next_u64() % 1_000_000_000_000_000_000;
            left = 18;
        }
        *b = b'0' + (v % 10) as u8;
        v /= 10;
        left -= 1;
    }
}

#[cfg(test)]
/// True when `s` has the shape of a sysbench `c` or `pad` value of `groups` groups.
pub fn is_valid(s: &str, groups: usize) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() == groups
        && parts
            .iter()
            .all(|p| p.len() == 11 && p.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::rand::{RandParams, Rng};

    #[test]
    fn shapes() {
        let mut r = Rng::new(&RandParams::default(), 1);
        let mut c = [0u8; C_LEN];
        let mut pad = [0u8; PAD_LEN];
        for fill in [fill_groups, fill_groups_bulk] {
            fill(&mut c, r.stream());
            fill(&mut pad, r.stream());
            assert!(is_valid(std::str::from_utf8(&c).unwrap(), 10));
            assert!(is_valid(std::str::from_utf8(&pad).unwrap(), 5));
        }
        assert_eq!(c.iter().filter(|b| b.is_ascii_digit()).count(), C_DIGITS);
        assert_eq!(
            pad.iter().filter(|b| b.is_ascii_digit()).count(),
            PAD_DIGITS
        );
        assert!(!is_valid("123-456", 2));
    }
}
