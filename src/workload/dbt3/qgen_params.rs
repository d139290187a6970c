//! The queries' substitution parameters as qgen draws them (TPC-H clause
//! 2.4.x.3: each parameter's domain and distribution), from a seeded
//! stream so that a run is repeatable, and the spec's validation
//! parameters (clause 2.4.x.4) that the published answers are for. The
//! value lists (nations, regions, colors, types, containers, segments,
//! ship modes) are dbgen's own distributions, through `tpchgen`. Draws
//! nothing from the server.

use crate::workload::xoroshiro::Xoroshiro;
use tpchgen::distribution::Distributions;

/// Q13's first and second words (dists.dss: Q13a, Q13b).
const Q13_WORD1: [&str; 4] = ["special", "pending", "unusual", "express"];
const Q13_WORD2: [&str; 4] = ["packages", "requests", "accounts", "deposits"];

/// A parameter stream.
pub struct Draw {
    x: Xoroshiro,
}

impl Draw {
    /// The stream for query stream `stream` of a run seeded `seed`.
    pub fn new(seed: u64, stream: u32) -> Draw {
        Draw {
            x: Xoroshiro::from_seed(seed ^ u64::from(stream).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        }
    }

    /// A whole number from `a` to `b`, both included.
    fn int(&mut self, a: u32, b: u32) -> u32 {
        self.x.uniform(a, b)
    }

    fn pick<'a>(&mut self, list: &[&'a str]) -> &'a str {
        list[self.int(0, list.len() as u32 - 1) as usize]
    }

    /// `n` distinct picks from `list`.
    fn distinct<'a>(&mut self, list: &[&'a str], n: usize) -> Vec<&'a str> {
        let mut out: Vec<&str> = Vec::new();
        while out.len() < n {
            let v = self.pick(list);
            if !out.contains(&v) {
                out.push(v);
            }
        }
        out
    }

    /// The first day of a month from (`y0`, `m0`) to (`y1`, `m1`).
    fn month(&mut self, y0: u32, m0: u32, y1: u32, m1: u32) -> String {
        let k = self.int(y0 * 12 + m0 - 1, y1 * 12 + m1 - 1);
        format!("{}-{:02}-01", k / 12, k % 12 + 1)
    }

    fn brand(&mut self) -> String {
        format!("Brand#{}{}", self.int(1, 5), self.int(1, 5))
    }

    /// Query `q`'s parameters at scale `sf`, drawn.
    pub fn params(&mut self, q: u32, sf: f64) -> Vec<String> {
        let d = Distributions::static_default();
        let nations = d.nations().get_values();
        let regions = d.regions().get_values();
        let s = |v: &str| v.to_string();
        match q {
            1 => vec![self.int(60, 120).to_string()],
            2 => {
                let ty = self.pick(&["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"]);
                vec![self.int(1, 50).to_string(), s(ty), s(self.pick(regions))]
            }
            3 => {
                let seg = self.pick(d.market_segments().get_values());
                vec![s(seg), format!("1995-03-{:02}", self.int(1, 31))]
            }
            4 | 15 => vec![self.month(1993, 1, 1997, 10)],
            5 => vec![
                s(self.pick(regions)),
                format!("{}-01-01", self.int(1993, 1997)),
            ],
            6 => vec![
                format!("{}-01-01", self.int(1993, 1997)),
                format!("0.0{}", self.int(2, 9)),
                self.int(24, 25).to_string(),
            ],
            7 => self.distinct(nations, 2).into_iter().map(s).collect(),
            8 => {
                let i = self.int(0, nations.len() as u32 - 1) as usize;
                let region = d.nations().get_weight(i).clamp(0, 4) as usize;
                let ty = self.pick(d.part_types().get_values());
                vec![s(nations[i]), s(regions[region]), s(ty)]
            }
            9 => vec![s(self.pick(d.part_colors().get_values()))],
            10 => vec![self.month(1993, 2, 1995, 1)],
            11 => vec![s(self.pick(nations)), format!("{:.10}", 0.0001 / sf)],
            12 => {
                let mut v: Vec<String> = self
                    .distinct(d.ship_modes().get_values(), 2)
                    .into_iter()
                    .map(s)
                    .collect();
                v.push(format!("{}-01-01", self.int(1993, 1997)));
                v
            }
            13 => vec![s(self.pick(&Q13_WORD1)), s(self.pick(&Q13_WORD2))],
            14 => vec![self.month(1993, 1, 1997, 12)],
            16 => {
                let brand = self.brand();
                let ty = self.pick(d.part_types().get_values());
                let two: Vec<&str> = ty.split(' ').take(2).collect();
                let mut v = vec![brand, two.join(" ")];
                let mut sizes: Vec<u32> = Vec::new();
                while sizes.len() < 8 {
                    let n = self.int(1, 50);
                    if !sizes.contains(&n) {
                        sizes.push(n);
                    }
                }
                v.extend(sizes.iter().map(u32::to_string));
                v
            }
            17 => vec![self.brand(), s(self.pick(d.part_containers().get_values()))],
            18 => vec![self.int(312, 315).to_string()],
            19 => vec![
                self.brand(),
                self.brand(),
                self.brand(),
                self.int(1, 10).to_string(),
                self.int(10, 20).to_string(),
                self.int(20, 30).to_string(),
            ],
            20 => vec![
                s(self.pick(d.part_colors().get_values())),
                format!("{}-01-01", self.int(1993, 1997)),
                s(self.pick(nations)),
            ],
            21 => vec![s(self.pick(nations))],
            _ => {
                let codes: Vec<String> = (10..35).map(|c| c.to_string()).collect();
                let refs: Vec<&str> = codes.iter().map(String::as_str).collect();
                self.distinct(&refs, 7).into_iter().map(s).collect()
            }
        }
    }
}

/// Query `q`'s validation parameters (clause 2.4.x.4) at scale `sf`
/// (Q11's fraction is 0.0001 / SF, as in its draws).
pub fn validation(q: u32, sf: f64) -> Vec<String> {
    if q == 11 {
        return vec!["GERMANY".into(), format!("{:.10}", 0.0001 / sf)];
    }
    let v: &[&str] = match q {
        1 => &["90"],
        2 => &["15", "BRASS", "EUROPE"],
        3 => &["BUILDING", "1995-03-15"],
        4 => &["1993-07-01"],
        5 => &["ASIA", "1994-01-01"],
        6 => &["1994-01-01", "0.06", "24"],
        7 => &["FRANCE", "GERMANY"],
        8 => &["BRAZIL", "AMERICA", "ECONOMY ANODIZED STEEL"],
        9 => &["green"],
        10 => &["1993-10-01"],
        12 => &["MAIL", "SHIP", "1994-01-01"],
        13 => &["special", "requests"],
        14 => &["1995-09-01"],
        15 => &["1996-01-01"],
        16 => &[
            "Brand#45",
            "MEDIUM POLISHED",
            "49",
            "14",
            "23",
            "45",
            "19",
            "3",
            "36",
            "9",
        ],
        17 => &["Brand#23", "MED BOX"],
        18 => &["300"],
        19 => &["Brand#12", "Brand#23", "Brand#34", "1", "10", "20"],
        20 => &["forest", "1994-01-01", "CANADA"],
        21 => &["SAUDI ARABIA"],
        _ => &["13", "31", "23", "29", "30", "18", "17"],
    };
    v.iter().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_in_their_domains_and_repeatable() {
        let mut a = Draw::new(7, 1);
        let mut b = Draw::new(7, 1);
        for q in 1..=22 {
            let p = a.params(q, 0.01);
            assert_eq!(p, b.params(q, 0.01), "Q{q}");
            assert_eq!(p.len(), validation(q, 0.01).len(), "Q{q}: {p:?}");
        }
        let mut d = Draw::new(1, 0);
        for _ in 0..200 {
            let q1: u32 = d.params(1, 1.0)[0].parse().unwrap_or(0);
            assert!((60..=120).contains(&q1));
            let m = d.params(4, 1.0)[0].clone();
            assert!(("1993-01-01"..="1997-10-01").contains(&m.as_str()), "{m}");
            let q8 = d.params(8, 1.0);
            if q8[0] == "BRAZIL" {
                assert_eq!(q8[1], "AMERICA");
            }
            if q8[0] == "FRANCE" {
                assert_eq!(q8[1], "EUROPE");
            }
        }
        assert_eq!(Draw::new(1, 0).params(11, 0.01)[1], "0.0100000000");
    }
}
