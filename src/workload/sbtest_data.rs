//! sysbench's data format: `c` is 10 groups of 11 random digits joined by
//! '-', `pad` is 5 such groups. Values are written in place into a buffer.

use super::xoroshiro::Xoroshiro;

/// Length of a `c` value (10 × 11 digits + 9 dashes).
pub(crate) const C_LEN: usize = 119;
/// Length of a `pad` value (5 × 11 digits + 4 dashes).
pub(crate) const PAD_LEN: usize = 59;

/// Fills `out` with groups of 11 random digits separated by '-', one draw
/// per digit as sysbench's `sysbench.rand.string("###…")` makes them (a
/// run's strings with a fixed seed: the same draws as sysbench's). Fewer
/// instructions than cutting 18 digits out of one draw (valgrind); each
/// digit in integer arithmetic (`Xoroshiro::digit`, the same bytes).
#[inline]
pub(crate) fn fill_groups(out: &mut [u8], x: &mut Xoroshiro) {
    for group in out.chunks_mut(12) {
        let (digits, dash) = group.split_at_mut(group.len().min(11));
        for b in digits {
            *b = x.digit();
        }
        if let Some(d) = dash.first_mut() {
            *d = b'-';
        }
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
        fill_groups(&mut c, r.stream());
        fill_groups(&mut pad, r.stream());
        assert!(is_valid(std::str::from_utf8(&c).unwrap(), 10));
        assert!(is_valid(std::str::from_utf8(&pad).unwrap(), 5));
        // one draw per digit: 110 for c, 55 for pad
        assert_eq!(c.iter().filter(|b| b.is_ascii_digit()).count(), 110);
        assert_eq!(pad.iter().filter(|b| b.is_ascii_digit()).count(), 55);
        assert!(!is_valid("123-456", 2));
    }
}
