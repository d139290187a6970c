//! Random numbers the way sysbench draws them: `--rand-type` uniform,
//! gaussian, special, pareto, zipfian, with sysbench's parameter names, and
//! `rand.unique()` for insert ids. Each connection owns one `Rng`; drawing
//! a number never allocates or locks.

use rand::rngs::SmallRng;
use rand::{Rng as _, RngCore, SeedableRng};
use std::sync::atomic::{AtomicU32, Ordering};

/// sysbench's --rand-type distributions.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub enum RandType {
    /// Every value equally likely.
    Uniform,
    /// A sum of `spec_iter` uniforms.
    Gaussian,
    /// `spec_pct`% of the range drawn `spec_res`% of the time.
    Special,
    /// Pareto with shape `pareto_h`.
    Pareto,
    /// Zipf with exponent `zipf_exp`.
    Zipfian,
}

/// Distribution parameters (sysbench option names in comments).
#[derive(Debug, Clone, serde::Serialize)]
pub struct RandParams {
    /// Which distribution (--rand-type).
    pub kind: RandType,
    /// --rand-spec-iter: uniforms summed by gaussian.
    pub spec_iter: u32,
    /// --rand-spec-pct: percentage of values that are "special".
    pub spec_pct: f64,
    /// --rand-spec-res: percentage of draws that hit the special values.
    pub spec_res: f64,
    /// --rand-pareto-h
    pub pareto_h: f64,
    /// --rand-zipfian-exp
    pub zipf_exp: f64,
}

impl Default for RandParams {
    fn default() -> Self {
        RandParams {
            kind: RandType::Special,
            spec_iter: 12,
            spec_pct: 1.0,
            spec_res: 75.0,
            pareto_h: 0.2,
            zipf_exp: 0.8,
        }
    }
}

/// Precomputed constants of Gray et al.'s zipfian generator for 1..=n.
#[derive(Debug, Clone)]
struct Zipf {
    n: u64,
    theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
}

fn zeta(n: u64, theta: f64) -> f64 {
    (1..=n).map(|i| 1.0 / (i as f64).powf(theta)).sum()
}

impl Zipf {
    fn new(n: u64, theta: f64) -> Zipf {
        let zetan = zeta(n, theta);
        let zeta2 = zeta(2, theta);
        Zipf {
            n,
            theta,
            alpha: 1.0 / (1.0 - theta),
            zetan,
            eta: (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan),
        }
    }

    fn draw(&self, u: f64) -> u64 {
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 1;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return 2;
        }
        1 + ((self.n as f64) * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64
    }
}

/// A per-connection generator for `rand.default(a, b)` and friends.
pub struct Rng {
    rng: SmallRng,
    p: RandParams,
    pareto_power: f64,
    /// Zipfian tables are per range size; workloads use one or two sizes.
    zipf: Option<Zipf>,
}

impl Rng {
    /// A stream drawing from `p`, seeded with `seed` (one per connection).
    pub fn new(p: &RandParams, seed: u64) -> Rng {
        Rng {
            rng: SmallRng::seed_from_u64(seed),
            p: p.clone(),
            pareto_power: p.pareto_h.ln() / (1.0 - p.pareto_h).ln(),
            zipf: None,
        }
    }

    #[inline]
    pub(crate) fn uniform(&mut self, a: u32, b: u32) -> u32 {
        if b <= a {
            return a;
        }
        a + (self.rng.next_u64() % u64::from(b - a + 1)) as u32
    }

    /// A uniform double in [0, 1).
    #[inline]
    pub fn unit(&mut self) -> f64 {
        self.rng.random::<f64>()
    }

    #[inline]
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// `sysbench.rand.default(a, b)`: a draw from the configured distribution.
    #[inline]
    pub(crate) fn default_in(&mut self, a: u32, b: u32) -> u32 {
        self.draw(self.p.kind, a, b)
    }

    /// A draw from distribution `kind` (sysbench.rand.gaussian and friends)
    /// with the run's `--rand-*` parameters.
    #[inline]
    pub fn draw(&mut self, kind: RandType, a: u32, b: u32) -> u32 {
        if b <= a {
            return a;
        }
        let size = u64::from(b - a) + 1;
        match kind {
            RandType::Uniform => self.uniform(a, b),
            RandType::Gaussian => {
                let iter = self.p.spec_iter.max(1);
                let sum: u64 = (0..iter).map(|_| u64::from(self.uniform(a, b))).sum();
                (sum / u64::from(iter)) as u32
            }
            RandType::Special => {
                let special = ((size as f64) * self.p.spec_pct / 100.0).max(1.0) as u64;
                if self.unit() * 100.0 < self.p.spec_res {
                    a + (self.rng.next_u64() % special) as u32
                } else if special < size {
                    a + (special + self.rng.next_u64() % (size - special)) as u32
                } else {
                    self.uniform(a, b)
                }
            }
            RandType::Pareto => {
                let v = (size as f64 * self.unit().powf(self.pareto_power)) as u64;
                a + v.min(size - 1) as u32
            }
            RandType::Zipfian => {
                if self.zipf.as_ref().map(|z| z.n) != Some(size) {
                    self.zipf = Some(Zipf::new(size, self.p.zipf_exp));
                }
                let u = self.unit();
                let v = self.zipf.as_ref().map(|z| z.draw(u)).unwrap_or(1);
                a + (v.clamp(1, size) - 1) as u32
            }
        }
    }
}

/// `sysbench.rand.unique()`: distinct 32-bit values across all connections of
/// the process, in a scrambled order (a permutation built from quadratic
/// residues modulo a prime just below 2^32).
pub struct Unique {
    next: AtomicU32,
    offset: u32,
}

impl Unique {
    /// A sequence starting from `seed`.
    pub fn new(seed: u32) -> Unique {
        Unique {
            next: AtomicU32::new(seed),
            offset: seed.wrapping_mul(0x9E37_79B9),
        }
    }

    /// The next value: never one handed out before (until 2^32 of them).
    pub fn next(&self) -> u32 {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        permute(permute(i).wrapping_add(self.offset) ^ 0x5bf0_3635)
    }
}

fn permute(x: u32) -> u32 {
    const PRIME: u64 = 4_294_967_291;
    let x64 = u64::from(x);
    if x64 >= PRIME {
        return x;
    }
    let r = ((x64 * x64) % PRIME) as u32;
    if x64 <= PRIME / 2 {
        r
    } else {
        (PRIME - u64::from(r)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(kind: RandType, n: usize) -> Vec<u32> {
        let p = RandParams {
            kind,
            ..Default::default()
        };
        let mut r = Rng::new(&p, 42);
        (0..n).map(|_| r.default_in(1, 1000)).collect()
    }

    #[test]
    fn every_distribution_stays_in_range() {
        for k in [
            RandType::Uniform,
            RandType::Gaussian,
            RandType::Special,
            RandType::Pareto,
            RandType::Zipfian,
        ] {
            assert!(
                draws(k, 20000).iter().all(|&v| (1..=1000).contains(&v)),
                "{k:?}"
            );
        }
    }

    #[test]
    fn special_hits_the_special_percent() {
        let d = draws(RandType::Special, 100_000);
        let hot = d.iter().filter(|&&v| v <= 10).count() as f64 / d.len() as f64;
        assert!((0.72..0.78).contains(&hot), "{hot}");
    }

    #[test]
    fn skewed_distributions_favour_low_values() {
        for k in [RandType::Pareto, RandType::Zipfian] {
            let d = draws(k, 50_000);
            let low = d.iter().filter(|&&v| v <= 100).count();
            assert!(low > 25_000, "{k:?}: {low}");
        }
    }

    #[test]
    fn unique_values_do_not_repeat() {
        let u = Unique::new(7);
        let mut v: Vec<u32> = (0..100_000).map(|_| u.next()).collect();
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), 100_000);
    }
}
