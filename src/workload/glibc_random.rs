//! glibc's `random()` after `srandom(seed)` (the TYPE_3 additive feedback
//! generator of 31 words, seeded by an LCG and run 310 times before its
//! first output), without global state. sysbench 1.0.20 seeds each
//! thread's generator from it when `--rand-seed` is given, so qpslab draws
//! the same states from the same seed. Owns nothing else; used only to
//! seed [`super::xoroshiro::Xoroshiro`].

/// Words of state (glibc's `DEG_3`).
const DEG: usize = 31;
/// Distance between the two taps (glibc's `SEP_3`).
const SEP: usize = 3;

/// One `srandom`/`random` stream.
#[derive(Debug, Clone)]
pub struct GlibcRandom {
    state: [u32; DEG],
    front: usize,
    rear: usize,
}

impl GlibcRandom {
    /// The stream `srandom(seed)` starts (seed 0 is taken as 1, as glibc does).
    pub fn new(seed: u32) -> GlibcRandom {
        let mut state = [0u32; DEG];
        state[0] = if seed == 0 { 1 } else { seed };
        for i in 1..DEG {
            // 16807 * prev mod (2^31 - 1), by Schrage's method on the
            // signed 32-bit words glibc keeps.
            let prev = state[i - 1] as i32;
            let (hi, lo) = (prev / 127_773, prev % 127_773);
            let mut word = 16_807 * lo - 2_836 * hi;
            if word < 0 {
                word += 2_147_483_647;
            }
            state[i] = word as u32;
        }
        let mut g = GlibcRandom {
            state,
            front: SEP,
            rear: 0,
        };
        for _ in 0..10 * DEG {
            g.next();
        }
        g
    }

    /// The next `random()`: a value in [0, 2^31).
    pub fn next(&mut self) -> u32 {
        let sum = self.state[self.front].wrapping_add(self.state[self.rear]);
        self.state[self.front] = sum;
        self.front = (self.front + 1) % DEG;
        self.rear = (self.rear + 1) % DEG;
        sum >> 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_glibc() {
        // printed by a C program calling srandom(42) / srandom(1) and random()
        let mut g = GlibcRandom::new(42);
        let v: Vec<u32> = (0..5).map(|_| g.next()).collect();
        assert_eq!(v, [71876166, 708592740, 1483128881, 907283241, 442951012]);
        let mut g = GlibcRandom::new(1);
        let v: Vec<u32> = (0..3).map(|_| g.next()).collect();
        assert_eq!(v, [1804289383, 846930886, 1681692777]);
        assert_eq!(GlibcRandom::new(0).next(), 1804289383);
    }
}
