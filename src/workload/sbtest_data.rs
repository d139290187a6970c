//! sysbench's data format: `c` is 10 groups of 11 random digits joined by
//! '-', `pad` is 5 such groups. Values are written in place into a buffer.

/// Length of a `c` value (10 × 11 digits + 9 dashes).
pub(crate) const C_LEN: usize = 119;
/// Length of a `pad` value (5 × 11 digits + 4 dashes).
pub(crate) const PAD_LEN: usize = 59;

/// Fills `out` with groups of 11 random digits separated by '-'.
#[inline]
pub(crate) fn fill_groups(out: &mut [u8], rng: &mut super::rand::Rng) {
    // 18 decimal digits per 64-bit draw (all uniform: 10^18 < 2^64 / 10).
    let (mut x, mut left) = (0u64, 0);
    for (i, b) in out.iter_mut().enumerate() {
        if i % 12 == 11 {
            *b = b'-';
            continue;
        }
        if left == 0 {
            x = rng.next_u64() % 1_000_000_000_000_000_000;
            left = 18;
        }
        *b = b'0' + (x % 10) as u8;
        x /= 10;
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
        fill_groups(&mut c, &mut r);
        fill_groups(&mut pad, &mut r);
        assert!(is_valid(std::str::from_utf8(&c).unwrap(), 10));
        assert!(is_valid(std::str::from_utf8(&pad).unwrap(), 5));
        assert!(!is_valid("123-456", 2));
    }
}
