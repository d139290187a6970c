//! sysbench's raw generator: xoroshiro128+ (rotations 55/14/36, the 2016
//! constants sysbench 1.0.20 uses), doubles in [0, 1) from its top 52
//! bits, and the uniform integer draw every sysbench distribution and
//! string is built on. Seeding as sysbench seeds thread `n` with
//! `--rand-seed` (glibc's `random()` after `srandom(seed)`, four calls per
//! thread, threads in order), or from any 64-bit seed. Copyable state, no
//! allocation, no lock. Owns no distribution (see `rand.rs`).

use super::glibc_random::GlibcRandom;

/// The state of one stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Xoroshiro {
    s: [u64; 2],
}

impl Xoroshiro {
    /// The stream of sysbench's worker thread `thread` run with
    /// `--rand-seed=seed` (seed != 0): threads seed in order after
    /// `srandom(seed)`, each from four `random()` calls.
    pub fn sysbench(seed: u32, thread: u32) -> Xoroshiro {
        let mut g = GlibcRandom::new(seed);
        for _ in 0..u64::from(thread) * 4 {
            g.next();
        }
        let mut word = || (u64::from(g.next()) << 32) | u64::from(g.next());
        let s0 = word();
        let s1 = word();
        Xoroshiro { s: [s0, s1] }
    }

    /// A stream from any seed (splitmix64 spreads it over the state).
    pub fn from_seed(seed: u64) -> Xoroshiro {
        let mut z = seed;
        let mut mix = || {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut x = z;
            x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            x ^ (x >> 31)
        };
        let s = [mix(), mix()];
        Xoroshiro {
            s: if s == [0, 0] { [1, 0] } else { s },
        }
    }

    /// The state words (Lua's copy of the generator starts from them).
    pub fn words(&self) -> [u64; 2] {
        self.s
    }

    /// The stream whose state is `s` (Lua's copy, handed back).
    pub(crate) fn from_words(s: [u64; 2]) -> Xoroshiro {
        Xoroshiro { s }
    }

    /// `sb_rand_uniform_uint64()`.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let [s0, mut s1] = self.s;
        let out = s0.wrapping_add(s1);
        s1 ^= s0;
        self.s = [s0.rotate_left(55) ^ s1 ^ (s1 << 14), s1.rotate_left(36)];
        out
    }

    /// `sb_rand_uniform_double()`: [0, 1) with the draw's top 52 bits.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        f64::from_bits((0x3FF << 52) | (self.next_u64() >> 12)) - 1.0
    }

    /// `sb_rand_uniform(a, b)`: a + ⌊u·(b − a + 1)⌋ in sysbench's 32-bit
    /// arithmetic (one draw even when a == b).
    #[inline]
    pub fn uniform(&mut self, a: u32, b: u32) -> u32 {
        let n = b.wrapping_sub(a).wrapping_add(1);
        (f64::from(a) + self.unit() * f64::from(n)) as u32
    }

    /// An ASCII digit as `uniform('0', '9')` draws it (sysbench's strings'
    /// `#`), the same byte for every draw, in integer arithmetic: see
    /// `digit_of`.
    #[inline]
    pub fn digit(&mut self) -> u8 {
        digit_of(self.next_u64() >> 12)
    }
}

/// The digit `uniform('0', '9')` makes of the 52 bits `m` (the double
/// `m / 2^52`): `'0' + floor(10 m / 2^52)` in integers. The double path
/// rounds twice (the product, then the sum with 48), less than 2^-47 in
/// all, and rounding never goes down past an integer it starts above; so
/// the two agree wherever the fraction of `10 m / 2^52` is below
/// `1 - 2^-44`, and the rest (1 draw in 2^44) takes the double path itself.
#[inline]
pub(crate) fn digit_of(m: u64) -> u8 {
    const FRAC: u64 = (1 << 52) - 1;
    let t = m * 10;
    if t & FRAC < FRAC - (1 << 8) {
        b'0' + (t >> 52) as u8
    } else {
        let unit = f64::from_bits((0x3FF << 52) | m) - 1.0;
        (f64::from(b'0') + unit * 10.0) as u32 as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_as_sysbench_seeds_its_threads() {
        // /usr/bin/sysbench, --rand-seed=42: tostring(sysbench.rand.uniform_uint64())
        // in thread 0 (four draws) and thread 1 (first draw).
        let mut t0 = Xoroshiro::sysbench(42, 0);
        let v: Vec<u64> = (0..4).map(|_| t0.next_u64()).collect();
        assert_eq!(
            v,
            [
                6678695823595818893,
                12985727069636131040,
                13785426779914018964,
                11277125147607730155
            ]
        );
        assert_eq!(Xoroshiro::sysbench(42, 1).next_u64(), 7773676201520882466);
        assert_eq!(Xoroshiro::sysbench(42, 2).next_u64(), 6148745658769126950);
    }

    #[test]
    fn digits_are_the_uniform_draws_to_the_bit() {
        let float = |m: u64| {
            let unit = f64::from_bits((0x3FF << 52) | m) - 1.0;
            (f64::from(b'0') + unit * 10.0) as u32 as u8
        };
        // every neighbourhood where a digit changes, and the range's ends
        for k in 0..=10u64 {
            let edge = (k << 52).div_ceil(10);
            for m in edge.saturating_sub(5000)..edge + 5000 {
                let m = m.min((1 << 52) - 1);
                assert_eq!(digit_of(m), float(m), "m = {m}");
            }
        }
        let mut x = Xoroshiro::from_seed(7);
        let mut y = x;
        for _ in 0..1_000_000 {
            assert_eq!(x.digit(), y.uniform(u32::from(b'0'), u32::from(b'9')) as u8);
        }
    }

    #[test]
    fn doubles_and_ranges() {
        let mut a = Xoroshiro::from_seed(9);
        assert!((0..1000).all(|_| (0.0..1.0).contains(&a.unit())));
        assert!((0..1000).all(|_| (5..=9).contains(&a.uniform(5, 9))));
        assert_eq!(a.uniform(7, 7), 7);
    }
}
