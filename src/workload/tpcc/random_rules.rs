//! TPC-C's random rules (clause 4.3.2 and 2.1.6 of the specification):
//! NURand with its run-time constants, customer last names from syllables,
//! alphanumeric and numeric strings, zip codes and "ORIGINAL" data. Used by
//! the loader and by the transactions alike.

use crate::workload::rand::Rng;

/// The C constants of NURand (2.1.6): one per field, the same for every
/// terminal. C_LAST differs between load and run by 66, inside the
/// spec's allowed delta (65..=119, not 96 or 112).
pub(crate) const C_LAST_LOAD: u32 = 157;
pub(crate) const C_LAST_RUN: u32 = 223;
pub(crate) const C_ID: u32 = 259;
pub(crate) const C_OL_I_ID: u32 = 7911;

/// Items, customers per district, districts per warehouse, orders per
/// district at load (clause 1.2 and 4.3.3.1).
pub(crate) const ITEMS: u32 = 100_000;
pub(crate) const CUSTOMERS: u32 = 3_000;
pub(crate) const DISTRICTS: u32 = 10;
pub(crate) const ORDERS: u32 = 3_000;
/// Orders from this id on are undelivered at load (in new_orders).
pub(crate) const FIRST_NEW_ORDER: u32 = 2_101;

const SYLLABLES: [&str; 10] = [
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
];

const ALNUM: &[u8; 62] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// NURand(A, x, y) with constant `c`.
#[inline]
pub(crate) fn nurand(rng: &mut Rng, a: u32, c: u32, x: u32, y: u32) -> u32 {
    (((rng.uniform(0, a) | rng.uniform(x, y)) + c) % (y - x + 1)) + x
}

/// The last name of number `n` (0..=999): three syllables by its digits.
pub(crate) fn last_name(n: u32, out: &mut Vec<u8>) {
    out.clear();
    for d in [n / 100 % 10, n / 10 % 10, n % 10] {
        out.extend_from_slice(SYLLABLES[d as usize].as_bytes());
    }
}

/// A customer's last name at load: numbers 0..999 for the first thousand
/// customers of a district, NURand(255, 0, 999) for the rest.
pub(crate) fn load_last_name(rng: &mut Rng, c_id: u32, out: &mut Vec<u8>) {
    let n = if c_id <= 1000 {
        c_id - 1
    } else {
        nurand(rng, 255, C_LAST_LOAD, 0, 999)
    };
    last_name(n, out);
}

/// A random alphanumeric string of `lo..=hi` characters, appended.
pub(crate) fn astring(rng: &mut Rng, lo: u32, hi: u32, out: &mut Vec<u8>) {
    let n = rng.uniform(lo, hi);
    for _ in 0..n {
        out.push(ALNUM[rng.uniform(0, 61) as usize]);
    }
}

/// A random numeric string of `n` digits, appended.
pub(crate) fn nstring(rng: &mut Rng, n: u32, out: &mut Vec<u8>) {
    for _ in 0..n {
        out.push(b'0' + rng.uniform(0, 9) as u8);
    }
}

/// A zip code: four random digits then "11111".
pub fn zip(rng: &mut Rng, out: &mut Vec<u8>) {
    nstring(rng, 4, out);
    out.extend_from_slice(b"11111");
}

/// I_DATA / S_DATA: 26..50 characters, 10% of them with "ORIGINAL" at a
/// random position.
pub(crate) fn data_original(rng: &mut Rng, out: &mut Vec<u8>) {
    let start = out.len();
    astring(rng, 26, 50, out);
    if rng.uniform(1, 10) == 1 {
        let len = out.len() - start;
        let at = start + rng.uniform(0, (len - 8) as u32) as usize;
        out[at..at + 8].copy_from_slice(b"ORIGINAL");
    }
}

/// A money amount in cents from `lo` to `hi` cents, written as d.cc.
pub(crate) fn money(cents: u32, out: &mut Vec<u8>) {
    use std::io::Write;
    let _ = write!(out, "{}.{:02}", cents / 100, cents % 100);
}

/// A tax rate 0.0000..0.2000, written with four decimals.
pub(crate) fn tax(rng: &mut Rng, out: &mut Vec<u8>) {
    use std::io::Write;
    let _ = write!(out, "0.{:04}", rng.uniform(0, 2000));
}

/// A random permutation of 1..=n (the o_c_id of a district's orders).
pub(crate) fn permutation(rng: &mut Rng, n: u32) -> Vec<u32> {
    let mut v: Vec<u32> = (1..=n).collect();
    for i in (1..v.len()).rev() {
        let j = rng.uniform(0, i as u32) as usize;
        v.swap(i, j);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::RandParams;

    #[test]
    fn last_names_follow_the_syllables() {
        let mut s = Vec::new();
        last_name(371, &mut s);
        assert_eq!(s, b"PRICALLYOUGHT");
        last_name(0, &mut s);
        assert_eq!(s, b"BARBARBAR");
    }

    #[test]
    fn nurand_stays_in_range_and_is_skewed() {
        let mut rng = Rng::new(&RandParams::default(), 5);
        let mut hits = vec![0u32; 1000];
        for _ in 0..100_000 {
            let v = nurand(&mut rng, 255, C_LAST_RUN, 0, 999);
            assert!(v <= 999);
            hits[v as usize] += 1;
        }
        let max = *hits.iter().max().unwrap();
        let min = *hits.iter().min().unwrap();
        assert!(max > 4 * min.max(1), "NURand is not uniform: {min}..{max}");
    }

    #[test]
    fn original_in_about_a_tenth() {
        let mut rng = Rng::new(&RandParams::default(), 9);
        let mut n = 0;
        for _ in 0..10_000 {
            let mut s = Vec::new();
            data_original(&mut rng, &mut s);
            assert!((26..=50).contains(&s.len()));
            n += s.windows(8).any(|w| w == b"ORIGINAL") as u32;
        }
        assert!((800..1200).contains(&n), "{n}");
    }

    #[test]
    fn run_constant_is_a_legal_delta() {
        let d = C_LAST_RUN.abs_diff(C_LAST_LOAD);
        assert!((65..=119).contains(&d) && d != 96 && d != 112);
    }

    #[test]
    fn permutation_has_every_id_once() {
        let mut rng = Rng::new(&RandParams::default(), 1);
        let mut p = permutation(&mut rng, 3000);
        p.sort_unstable();
        assert_eq!(p, (1..=3000).collect::<Vec<_>>());
    }
}
