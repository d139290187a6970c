//! Random numbers the way sysbench draws them (sb_rand.c's formulas over
//! its xoroshiro128+ stream, xoroshiro.rs): `--rand-type` uniform,
//! gaussian, special, pareto, zipfian, with sysbench's parameter names, and
//! `rand.unique()` for insert ids. Each connection owns one `Rng`; with a
//! fixed `--rand-seed` connection n draws what sysbench's thread n draws.
//! Drawing a number never allocates or locks. Owns no string format (that
//! is sbtest_data.rs) and no Lua (script/rand_api.rs).

use super::xoroshiro::Xoroshiro;
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
    /// --rand-seed when given (0: not given). Connection n then draws the
    /// stream sysbench 1.0.20's worker thread n draws.
    #[serde(skip)]
    pub sysbench_seed: u32,
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
            sysbench_seed: 0,
        }
    }
}

/// sysbench's zipfian (rejection-inversion after Hörmann and Derflinger,
/// as later sysbench releases draw it): the exponent's constants, and
/// H(n + ½) for the last range size drawn.
#[derive(Debug, Clone)]
pub(crate) struct Zipf {
    e: f64,
    s: f64,
    h_x1: f64,
    n: u32,
    h_n: f64,
}

/// log(1 + x) / x, by its series near 0.
fn helper1(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (0.333_333_333_333_333_3 - 0.25 * x))
    }
}

/// (exp(x) − 1) / x, by its series near 0.
fn helper2(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x * 0.333_333_333_333_333_3 * (1.0 + 0.25 * x))
    }
}

fn h_integral(x: f64, e: f64) -> f64 {
    let log_x = x.ln();
    helper2((1.0 - e) * log_x) * log_x
}

fn h(x: f64, e: f64) -> f64 {
    (-e * x.ln()).exp()
}

fn h_integral_inverse(x: f64, e: f64) -> f64 {
    let t = (x * (1.0 - e)).max(-1.0);
    (helper1(t) * x).exp()
}

impl Zipf {
    pub(crate) fn new(e: f64) -> Zipf {
        Zipf {
            e,
            s: 2.0 - h_integral_inverse(h_integral(2.5, e) - h(2.0, e), e),
            h_x1: h_integral(1.5, e) - 1.0,
            n: 0,
            h_n: 0.0,
        }
    }

    /// One try for a value in [1, n] from the uniform `u`: None when the
    /// try is rejected (draw again).
    #[inline]
    pub(crate) fn try_once(&mut self, n: u32, u: f64) -> Option<u32> {
        if n != self.n {
            self.n = n;
            self.h_n = h_integral(f64::from(n) + 0.5, self.e);
        }
        let v = self.h_n + u * (self.h_x1 - self.h_n);
        let x = h_integral_inverse(v, self.e);
        let k = ((x + 0.5) as u32).clamp(1, n.max(1));
        let kf = f64::from(k);
        (kf - x <= self.s || v >= h_integral(kf + 0.5, self.e) - h(kf, self.e)).then_some(k)
    }
}

/// The 'gaussian' and 'special' parameters, derived once from the run's
/// `--rand-spec-*` options as sb_rand.c derives them. `repr(C)`, five
/// doubles: a script's rand.lua keeps the same five in an FFI array and
/// hands it to [`Shape::special`] and [`Shape::gaussian`] through
/// rand_api.rs, so both sides draw with one piece of code.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
pub(crate) struct Shape {
    /// `--rand-spec-iter`, the draws a gaussian sums (a whole number).
    pub(crate) iter: f64,
    /// 1 / iter.
    pub(crate) iter_mult: f64,
    /// 100 / (100 - `--rand-spec-res`).
    pub(crate) res_mult: f64,
    /// `--rand-spec-pct` / 100.
    pub(crate) pct_mult: f64,
    /// `--rand-spec-pct` / 200.
    pub(crate) pct_2_mult: f64,
}

impl Shape {
    pub(crate) fn of(p: &RandParams) -> Shape {
        Shape {
            iter: f64::from(p.spec_iter),
            iter_mult: 1.0 / f64::from(p.spec_iter),
            res_mult: 100.0 / (100.0 - p.spec_res),
            pct_mult: p.spec_pct / 100.0,
            pct_2_mult: p.spec_pct / 200.0,
        }
    }

    /// 'gaussian': the mean of `iter` uniform draws over [a, b].
    #[inline]
    pub(crate) fn gaussian(&self, x: &mut Xoroshiro, a: u32, b: u32) -> u32 {
        let t = f64::from(b.wrapping_sub(a).wrapping_add(1));
        let mut sum = 0.0;
        for _ in 0..self.iter as u32 {
            sum += x.unit() * t;
        }
        a.wrapping_add((sum * self.iter_mult) as u32)
    }

    /// 'special': `spec_res`% of the draws land uniformly on the `spec_pct`%
    /// in the middle of the range, the others are gaussian over all of it.
    #[inline]
    pub(crate) fn special(&self, x: &mut Xoroshiro, a: u32, b: u32) -> u32 {
        let t = f64::from(b.wrapping_sub(a));
        let rnd = x.unit();
        if rnd * (t * self.res_mult) < t {
            let mut sum = 0.0;
            for _ in 0..self.iter as u32 {
                sum += x.unit();
            }
            return wrap_u32(f64::from(a) + sum * t * self.iter_mult);
        }
        let d = t * self.pct_mult;
        let res = rnd * (d + 1.0) + (t / 2.0 - t * self.pct_2_mult);
        a.wrapping_add(wrap_u32(res))
    }
}

/// A double's integer part modulo 2^32, as sb_rand.c's cast to uint32_t
/// gives it on x86-64 (Rust's `as u32` saturates instead): a range whose
/// `a > b` wraps around, as under sysbench.
#[inline]
fn wrap_u32(x: f64) -> u32 {
    x as i64 as u32
}

/// A per-connection generator for `rand.default(a, b)` and friends, with
/// sysbench's formulas (sb_rand.c) over its [`Xoroshiro`] stream.
pub struct Rng {
    x: Xoroshiro,
    p: RandParams,
    shape: Shape,
    pareto_power: f64,
    zipf: Zipf,
}

impl Rng {
    /// A stream drawing from `p`, seeded with `seed`.
    pub fn new(p: &RandParams, seed: u64) -> Rng {
        Rng::on(p, Xoroshiro::from_seed(seed))
    }

    /// Connection `thread`'s stream: with a fixed `--rand-seed`, the one
    /// sysbench's worker thread `thread` draws; else one from `seed`.
    pub fn for_connection(p: &RandParams, thread: u32, seed: u64) -> Rng {
        Rng::on(p, stream_for(p, thread, seed))
    }

    fn on(p: &RandParams, x: Xoroshiro) -> Rng {
        Rng {
            x,
            p: p.clone(),
            shape: Shape::of(p),
            pareto_power: p.pareto_h.ln() / (1.0 - p.pareto_h).ln(),
            zipf: Zipf::new(p.zipf_exp),
        }
    }

    /// The raw stream (strings are drawn from it).
    #[inline]
    pub(crate) fn stream(&mut self) -> &mut Xoroshiro {
        &mut self.x
    }

    /// `sysbench.rand.uniform(a, b)`.
    #[inline]
    pub(crate) fn uniform(&mut self, a: u32, b: u32) -> u32 {
        self.x.uniform(a, b)
    }

    /// A uniform double in [0, 1).
    #[inline]
    pub fn unit(&mut self) -> f64 {
        self.x.unit()
    }

    /// `sysbench.rand.default(a, b)`: a draw from the configured distribution.
    #[inline]
    pub(crate) fn default_in(&mut self, a: u32, b: u32) -> u32 {
        self.draw(self.p.kind, a, b)
    }

    /// A draw from distribution `kind` (sysbench.rand.gaussian and friends)
    /// with the run's `--rand-*` parameters, computed as sb_rand.c does.
    #[inline]
    pub fn draw(&mut self, kind: RandType, a: u32, b: u32) -> u32 {
        match kind {
            RandType::Uniform => self.x.uniform(a, b),
            RandType::Gaussian => self.shape.gaussian(&mut self.x, a, b),
            RandType::Special => self.shape.special(&mut self.x, a, b),
            RandType::Pareto => {
                let t = f64::from(b.wrapping_sub(a).wrapping_add(1));
                a.wrapping_add((t * self.x.unit().powf(self.pareto_power)) as u32)
            }
            RandType::Zipfian => {
                let n = b.wrapping_sub(a).wrapping_add(1);
                loop {
                    let u = self.x.unit();
                    if let Some(k) = self.zipf.try_once(n, u) {
                        return a.wrapping_add(k).wrapping_sub(1);
                    }
                }
            }
        }
    }
}

/// The stream connection `thread` starts from (see [`Rng::for_connection`]).
pub(crate) fn stream_for(p: &RandParams, thread: u32, seed: u64) -> Xoroshiro {
    if p.sysbench_seed != 0 {
        Xoroshiro::sysbench(p.sysbench_seed, thread)
    } else {
        Xoroshiro::from_seed(seed)
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
    /// A sequence from `seed`, its start and offset scrambled as sysbench
    /// scrambles the two `random()` words it seeds the sequence with (from
    /// the clock in sysbench: its sequence never repeats between runs).
    pub fn new(seed: u32) -> Unique {
        let (index, offset) = (seed, seed.rotate_left(16) ^ 0x2545_F491);
        Unique {
            next: AtomicU32::new(permute(permute(index).wrapping_add(0x682f_0161))),
            offset: permute(permute(offset).wrapping_add(0x4679_0905)),
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

    /// tests/sysbench_diff/rand.lua's first draws, in its order, on
    /// sysbench's thread 0 with --rand-seed=42.
    fn rand_lua_lines(p: RandParams) -> Vec<String> {
        let p = RandParams {
            sysbench_seed: 42,
            ..p
        };
        let mut r = Rng::for_connection(&p, 0, 0);
        let five = |r: &mut Rng, kind: Option<RandType>| {
            let v: Vec<String> = (0..5)
                .map(|_| match kind {
                    Some(k) => r.draw(k, 1, 1000),
                    None => r.default_in(1, 1000),
                })
                .map(|v| v.to_string())
                .collect();
            v.join(" ")
        };
        let mut out = vec![five(&mut r, None)];
        for k in [
            RandType::Uniform,
            RandType::Gaussian,
            RandType::Special,
            RandType::Pareto,
        ] {
            out.push(five(&mut r, Some(k)));
        }
        out.push(r.stream().next_u64().to_string());
        out.push(format!("{:.6}", r.unit()));
        let s: String = "###-@@@-###"
            .bytes()
            .map(|c| match c {
                b'#' => r.uniform(u32::from(b'0'), u32::from(b'9')) as u8 as char,
                b'@' => r.uniform(u32::from(b'a'), u32::from(b'z')) as u8 as char,
                c => c as char,
            })
            .collect();
        out.push(s);
        out
    }

    #[test]
    fn draws_what_sysbench_draws_with_a_fixed_seed() {
        // /usr/bin/sysbench rand.lua --rand-seed=42 --events=1 run (1.0.20)
        let default = rand_lua_lines(RandParams::default());
        assert_eq!(
            default,
            [
                "499 503 503 502 498",
                "999 844 607 224 381",
                "600 410 501 474 420",
                "500 504 290 498 475",
                "1 1 352 306 20",
                "6916154342417049446",
                "0.730987",
                "739-vwp-808",
            ]
        );
        let with = |kind, f: fn(&mut RandParams)| {
            let mut p = RandParams {
                kind,
                ..Default::default()
            };
            f(&mut p);
            rand_lua_lines(p)
        };
        let gaussian = with(RandType::Gaussian, |_| {});
        assert_eq!(gaussian[0], "587 577 409 488 472");
        assert_eq!(gaussian[1], "279 24 423 874 713");
        assert_eq!(gaussian[4], "8 1 220 488 441");
        let uniform = with(RandType::Uniform, |_| {});
        assert_eq!(uniform[0], "363 704 748 612 265");
        let pareto = with(RandType::Pareto, |p| p.pareto_h = 0.5);
        assert_eq!(pareto[0], "363 704 748 612 265");
        assert_eq!(pareto[4], "314 318 865 849 579");
        let special = with(RandType::Special, |p| {
            p.spec_pct = 5.0;
            p.spec_res = 50.0;
        });
        assert_eq!(special[0], "622 508 521 507 437");
        assert_eq!(special[3], "516 501 509 516 520");
        assert_eq!(special[4], "20 275 1 245 376");
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
        // sysbench puts the special 1% in the middle of the range; the
        // other draws are gaussian around the middle too, and add a little
        let d = draws(RandType::Special, 100_000);
        let hot = d.iter().filter(|&&v| (490..=510).contains(&v)).count() as f64 / d.len() as f64;
        assert!((0.75..0.82).contains(&hot), "{hot}");
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
