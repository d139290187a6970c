//! LinkBench's workload model, as its Java sources define it (facts, not
//! code): the out-degree histogram (config/Distribution.dat's `nlinks`
//! section), the degree rule (PiecewiseLinearDistribution.expectedCount
//! over ids scattered by InvertibleShuffler, seeded through
//! java.util.Random as LinkBench seeds it), the Zipf access draw (Gray et
//! al.'s, as ZipfDistribution does it), geometric multiget sizes,
//! log-normal payload sizes and the motif payload generator. Owns no
//! SQL and no connection; every draw takes the caller's stream.

use crate::workload::xoroshiro::Xoroshiro;

/// The out-degree CDF: (links, percent of nodes with at most that many),
/// from facebookarchive/linkbench config/Distribution.dat, section
/// `nlinks` (Facebook's measured social graph). Every point from 0 to 30
/// is kept; above, one point in a few (the file has about 5,000): a
/// degree between two kept points is interpolated (see `degree_at`).
pub(crate) const NLINKS_CDF: &[(u32, f64)] = &[
    (0, 19.747449203360127),
    (1, 72.98462336673428),
    (2, 86.73751849992442),
    (3, 91.81680922262058),
    (4, 94.45913033091769),
    (5, 95.86861460994787),
    (6, 96.77777508197823),
    (7, 97.37927224610078),
    (8, 97.81673830235549),
    (9, 98.11471539510985),
    (10, 98.3409883672102),
    (11, 98.5246905170274),
    (12, 98.67463088801503),
    (13, 98.79019359366048),
    (14, 98.88776494784561),
    (15, 98.96338834630738),
    (16, 99.03270357382146),
    (17, 99.088487961285),
    (18, 99.13943857278565),
    (19, 99.18225201702833),
    (20, 99.22209800807371),
    (22, 99.2879792016991),
    (24, 99.34406220080513),
    (26, 99.39230664429567),
    (28, 99.4308648726328),
    (30, 99.46496258956016),
    (35, 99.53263545304051),
    (40, 99.5861615899577),
    (45, 99.6230774542611),
    (50, 99.65176283516824),
    (60, 99.69427766776842),
    (70, 99.72247780475651),
    (80, 99.74334329327583),
    (90, 99.75941233228757),
    (100, 99.77352173239544),
    (120, 99.79470449578491),
    (140, 99.80980304695855),
    (160, 99.82157954360943),
    (180, 99.83139640135644),
    (200, 99.8397948538016),
    (250, 99.85591988249632),
    (300, 99.86958136514045),
    (350, 99.88010742553838),
    (400, 99.88790865469856),
    (450, 99.8943288050122),
    (500, 99.89964782489413),
    (550, 99.90410833630389),
    (600, 99.90849419480304),
    (650, 99.91280540039155),
    (700, 99.9163887401015),
    (740, 99.91866565387551),
    (1581, 99.95089704803728),
    (1700, 99.95377118509629),
    (1800, 99.95586146659376),
    (1900, 99.95770912613169),
    (2002, 99.96004202958868),
    (2100, 99.96203899494786),
    (2201, 99.963550716388),
    (2300, 99.96485714232391),
    (2399, 99.96623822117044),
    (2499, 99.96760063678933),
    (2600, 99.96862711431041),
    (2700, 99.96984022410804),
    (2800, 99.97090402808442),
    (2900, 99.97228510693097),
    (3001, 99.97336757413501),
    (3100, 99.97448736779437),
    (3199, 99.97528988658357),
    (3301, 99.9761670582834),
    (3399, 99.97710021966618),
    (3502, 99.9779027384554),
    (3600, 99.97868659401695),
    (3699, 99.97939579666787),
    (3801, 99.98008633609113),
    (3901, 99.98111281361221),
    (3999, 99.9817100368972),
    (4100, 99.9823445866375),
    (4199, 99.98301646283312),
    (4302, 99.98363234934575),
    (4400, 99.98422957263075),
    (4501, 99.9846774900945),
    (4602, 99.98516273401354),
    (4706, 99.9856479779326),
    (4794, 99.98600257925806),
    (4905, 99.98641317026649),
    (5000, 99.98680509804727),
    (5200, 99.98758895360882),
    (5397, 99.98824216657677),
    (5600, 99.98900735891067),
    (5780, 99.98967923510628),
    (5996, 99.99036977452954),
    (6514, 99.99147090496125),
    (7006, 99.99246005602701),
    (7507, 99.99316925867794),
    (8019, 99.99391578778418),
    (8503, 99.99449434784151),
    (9006, 99.99507290789884),
    (9512, 99.99557681504555),
    (10020, 99.99595007959867),
    (11001, 99.9966592822496),
    (12109, 99.99727516876223),
    (13038, 99.99759244363239),
    (14000, 99.99815234046207),
    (15085, 99.9984322888769),
    (16384, 99.99869357406409),
    (18148, 99.99884287988533),
    (20188, 99.99910416507251),
    (22470, 99.99934678703204),
    (25213, 99.99945876639798),
    (30010, 99.99958940899157),
    (34401, 99.99972005158516),
    (39556, 99.99975737804047),
    (45896, 99.99981336772345),
    (50105, 99.99985069417875),
    (57180, 99.99990668386172),
    (61582, 99.99992534708937),
    (73919, 99.99994401031704),
    (124441, 99.99996267354469),
    (186879, 99.99998133677235),
    (311772, 100.0),
];

/// The degree at quantile `u` (1.0: the most linked node): the first
/// point whose CDF reaches `u`, as LinkBench takes it; between two kept
/// points that are not neighbours, the degree is interpolated and rounded
/// up (the thinned table's stand-in for the points left out).
pub(crate) fn degree_at(u: f64) -> u64 {
    let p = u * 100.0;
    let i = NLINKS_CDF.partition_point(|&(_, c)| c < p);
    let Some(&(v, c)) = NLINKS_CDF.get(i) else {
        return u64::from(NLINKS_CDF[NLINKS_CDF.len() - 1].0);
    };
    if i == 0 {
        return u64::from(v);
    }
    let (pv, pc) = NLINKS_CDF[i - 1];
    if v - pv <= 1 || c <= pc {
        return u64::from(v);
    }
    let t = ((p - pc) / (c - pc)).clamp(0.0, 1.0);
    (f64::from(pv) + f64::from(v - pv) * t).ceil() as u64
}

/// java.util.Random: LinkBench seeds its shufflers with it, so the same
/// seed scatters ids the same way here.
pub(crate) struct JavaRandom(u64);

impl JavaRandom {
    const MULT: u64 = 0x5_DEEC_E66D;
    const MASK: u64 = (1 << 48) - 1;

    pub fn new(seed: i64) -> JavaRandom {
        JavaRandom((seed as u64 ^ Self::MULT) & Self::MASK)
    }

    fn next(&mut self, bits: u32) -> i32 {
        self.0 = (self.0.wrapping_mul(Self::MULT).wrapping_add(0xB)) & Self::MASK;
        (self.0 >> (48 - bits)) as i64 as i32
    }

    /// `nextInt(bound)`, bound > 0.
    pub fn next_int(&mut self, bound: i32) -> i32 {
        if bound & -bound == bound {
            return ((i64::from(bound) * i64::from(self.next(31))) >> 31) as i32;
        }
        loop {
            let bits = self.next(31);
            let val = bits % bound;
            if bits.wrapping_sub(val).wrapping_add(bound - 1) >= 0 {
                return val;
            }
        }
    }
}

/// The seeds and group count of LinkBench's shufflers
/// (RealDistribution's constants).
pub(crate) const NLINKS_SEED: i64 = 20343988438726021;
pub(crate) const UNCORR_SEED: i64 = 53238253823453;
pub(crate) const NODE_SEED: i64 = 4766565305853767165;
const GROUPS: u64 = 1024;

/// InvertibleShuffler: a permutation of 0..n made of a rotation within
/// each residue class modulo the group count.
#[derive(Debug, Clone)]
pub(crate) struct Shuffler {
    params: Vec<u64>,
    groups: u64,
    n: u64,
    up: u64,
    down: u64,
    min_group: u64,
}

impl Shuffler {
    pub fn new(seed: i64, n: u64) -> Shuffler {
        let groups = GROUPS.min(n).max(1);
        let min_group = (n / groups).max(1);
        let mut rng = JavaRandom::new(seed);
        let bound = i32::try_from(min_group).unwrap_or(i32::MAX);
        let params = (0..groups)
            .map(|_| u64::from(rng.next_int(bound).unsigned_abs()))
            .collect();
        let down = (n / groups) * groups;
        Shuffler {
            params,
            groups,
            n,
            up: if n == down { n } else { down + groups },
            down,
            min_group,
        }
    }

    /// Position `i` (0-based) after the permutation, or before it
    /// (`inverse`).
    pub fn permute(&self, i: u64, inverse: bool) -> u64 {
        if i >= self.n {
            return i;
        }
        let group = i % self.groups;
        let big = group < self.n % self.groups;
        let mut rotate = self.params[group as usize];
        if inverse {
            rotate = if big {
                self.min_group + 1
            } else {
                self.min_group
            } - rotate;
        }
        let j = i + self.groups * rotate;
        if j < self.n {
            return j;
        }
        let r = if big {
            j % self.up
        } else {
            j % self.down.max(1)
        };
        if r >= self.n {
            group
        } else {
            r
        }
    }
}

/// Zipf over [min, max), `min` the most likely (ZipfDistribution).
#[derive(Debug, Clone)]
pub(crate) struct Zipf {
    min: u64,
    n: u64,
    alpha: f64,
    eta: f64,
    zetan: f64,
    half_theta: f64,
}

/// The generalized harmonic number H(n, s): exact up to 1,000 terms, then
/// by Euler–Maclaurin (LinkBench approximates it too, ApproxHarmonic).
fn harmonic(n: u64, s: f64) -> f64 {
    let m = n.min(1000);
    let mut h: f64 = (1..=m).map(|k| (k as f64).powf(-s)).sum();
    if n > m {
        let (a, b) = (m as f64, n as f64);
        let integral = if (s - 1.0).abs() < 1e-12 {
            (b / a).ln()
        } else {
            (b.powf(1.0 - s) - a.powf(1.0 - s)) / (1.0 - s)
        };
        h += integral
            + (b.powf(-s) - a.powf(-s)) / 2.0
            + s / 12.0 * (a.powf(-s - 1.0) - b.powf(-s - 1.0));
    }
    h
}

impl Zipf {
    pub fn new(min: u64, max: u64, shape: f64) -> Zipf {
        let n = max.saturating_sub(min).max(1);
        let zetan = harmonic(n, shape);
        let eta = (1.0 - (2.0 / n as f64).powf(1.0 - shape)) / (1.0 - harmonic(2, shape) / zetan);
        Zipf {
            min,
            n,
            alpha: 1.0 / (1.0 - shape),
            eta,
            zetan,
            half_theta: 0.5f64.powf(shape),
        }
    }

    /// The id at quantile `p`.
    pub fn quantile(&self, p: f64) -> u64 {
        let uz = p * self.zetan;
        if uz < 1.0 {
            return self.min;
        }
        if uz < 1.0 + self.half_theta {
            return self.min + 1;
        }
        let off = (self.n as f64 * (self.eta * p - self.eta + 1.0).powf(self.alpha)) as u64;
        self.min + off.min(self.n - 1)
    }
}

/// A geometric draw on [min, max] with success probability `p`
/// (GeometricDistribution: the mean multiget size ≈ 2.6 at 0.382).
pub(crate) fn geometric(x: &mut Xoroshiro, min: u32, max: u32, p: f64) -> u32 {
    let u = x.unit();
    let k = ((1.0 - u).ln() / (1.0 - p).ln()).floor();
    (f64::from(min) + k).min(f64::from(max)) as u32
}

/// A log-normal size with median `median` and sigma 1, clipped to
/// [0, max) (LogNormalDistribution, Config's *_DATASIZE_SIGMA).
pub(crate) fn lognormal_size(x: &mut Xoroshiro, median: f64, max: usize) -> usize {
    // Box–Muller.
    let (u1, u2) = (x.unit().max(1e-300), x.unit());
    let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
    let v = (median.max(1e-9).ln() + z).exp().round();
    (v.max(0.0) as usize).min(max - 1)
}

/// MotifDataGenerator: bytes from [start, end], in chunks of 128 either
/// new (probability `uniqueness`) or copied from a 512-byte motif buffer
/// drawn once per generator. (LinkBench reads `*_motif_length` with
/// Properties.contains, which looks at values, so its buffer is always
/// the default 512 bytes; so is ours.)
#[derive(Debug, Clone)]
pub(crate) struct Motif {
    start: u8,
    range: u32,
    uniqueness: f64,
    motifs: Vec<u8>,
}

const MOTIF_BYTES: usize = 512;
const CHUNK: usize = 128;

impl Motif {
    pub fn new(start: u8, end: u8, uniqueness: f64, x: &mut Xoroshiro) -> Motif {
        let range = u32::from(end.max(start)) - u32::from(start) + 1;
        let motifs = (0..MOTIF_BYTES)
            .map(|_| start.wrapping_add((x.next_u64() % u64::from(range)) as u8))
            .collect();
        Motif {
            start,
            range,
            uniqueness,
            motifs,
        }
    }

    /// Fills `out` with `n` bytes.
    pub fn fill(&self, x: &mut Xoroshiro, n: usize, out: &mut Vec<u8>) {
        out.clear();
        let mut i = 0;
        while i < n {
            let len = CHUNK.min(n - i);
            if x.unit() < self.uniqueness {
                for _ in 0..len {
                    let b = (x.next_u64() % u64::from(self.range)) as u8;
                    out.push(self.start.wrapping_add(b));
                }
            } else {
                let k = (x.next_u64() % (MOTIF_BYTES - len + 1) as u64) as usize;
                out.extend_from_slice(&self.motifs[k..k + len]);
            }
            i += len;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_random_matches_the_jdk() {
        // new java.util.Random(42).nextInt(10) → 0, then 3
        let mut r = JavaRandom::new(42);
        assert_eq!(r.next_int(10), 0);
        assert_eq!(r.next_int(10), 3);
        // new java.util.Random(0).nextInt() → -1155484576
        assert_eq!(JavaRandom::new(0).next(32), -1_155_484_576);
    }

    #[test]
    fn shuffler_is_a_permutation_and_inverts() {
        for n in [1u64, 7, 1024, 5000, 12345] {
            let s = Shuffler::new(NLINKS_SEED, n);
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let p = s.permute(i, false);
                assert!(p < n && !seen[p as usize], "n={n} i={i}");
                seen[p as usize] = true;
                assert_eq!(s.permute(p, true), i);
            }
        }
    }

    #[test]
    fn degrees_follow_the_histogram() {
        assert_eq!(degree_at(0.1), 0);
        assert_eq!(degree_at(0.5), 1);
        assert_eq!(degree_at(0.9), 3);
        assert_eq!(degree_at(1.0), 311772);
        assert!((742..1581).contains(&degree_at(0.99935)));
    }

    #[test]
    fn zipf_favours_the_low_ids_and_stays_in_range() {
        let z = Zipf::new(1, 10_001, 0.8);
        let mut x = Xoroshiro::from_seed(1);
        let draws: Vec<u64> = (0..100_000).map(|_| z.quantile(x.unit())).collect();
        assert!(draws.iter().all(|&d| (1..10_001).contains(&d)));
        let low = draws.iter().filter(|&&d| d <= 100).count();
        assert!(low > 20_000, "{low}");
    }

    #[test]
    fn geometric_mean_is_about_2_6() {
        let mut x = Xoroshiro::from_seed(2);
        let n = 100_000;
        let s: u64 = (0..n)
            .map(|_| u64::from(geometric(&mut x, 1, 128, 0.382)))
            .sum();
        let mean = s as f64 / n as f64;
        assert!((2.5..2.75).contains(&mean), "{mean}");
    }

    #[test]
    fn motif_bytes_stay_in_range() {
        let mut x = Xoroshiro::from_seed(3);
        let m = Motif::new(32, 100, 0.225, &mut x);
        let mut out = Vec::new();
        m.fill(&mut x, 300, &mut out);
        assert_eq!(out.len(), 300);
        assert!(out.iter().all(|b| (32..=100).contains(b)));
    }
}
