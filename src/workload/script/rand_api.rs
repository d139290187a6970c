//! `sysbench.rand.*` for scripts: the same distributions and `--rand-*`
//! parameters as the built-in workloads. The frequent integer draws are
//! Lua (rand.lua, on LuaJIT's generator: no call into Rust per draw); the
//! zipfian draw, strings and `unique()` are here, over the connection's
//! [`Rng`].
//!
//! - `uniform(a, b)`, `default(a, b)` (the `--rand-type` distribution),
//!   `gaussian`, `special`, `pareto`, `zipfian`: integers in [a, b];
//! - `uniform_double()`: [0, 1); `uniform_uint64()`;
//! - `string(fmt)`: `#` becomes a digit, `@` a lowercase letter, anything
//!   else stays; `varstring(min, max)`: min..max letters and digits;
//! - `unique()`: distinct 32-bit values across every connection of the run.

use crate::workload::rand::RandType;
use crate::workload::RandParams;
use crate::workload::{Rng, Unique};
use mlua::{Lua, Table};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// Draws in [a, b] from `kind`; ranges beyond 32 bits are drawn uniformly.
fn ranged(rng: &mut Rng, kind: RandType, a: i64, b: i64) -> i64 {
    if b <= a {
        return a;
    }
    match (u32::try_from(a), u32::try_from(b)) {
        (Ok(a), Ok(b)) => i64::from(rng.draw(kind, a, b)),
        _ => {
            let span = (b - a) as u64 + 1;
            a + (rng.next_u64() % span) as i64
        }
    }
}

const ALNUM: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// The `sysbench.rand` table of one state: rand.lua's distributions on
/// LuaJIT's generator, with what stays in Rust.
pub(crate) fn rand_table(
    lua: &Lua,
    rng: Rc<RefCell<Rng>>,
    unique: Arc<Unique>,
    p: &RandParams,
    seed: u64,
) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    let r = rng.clone();
    t.set(
        "zipfian",
        lua.create_function(move |_, (a, b): (i64, i64)| {
            Ok(ranged(&mut r.borrow_mut(), RandType::Zipfian, a, b))
        })?,
    )?;
    let r = rng.clone();
    t.set(
        "uniform_uint64",
        lua.create_function(move |_, ()| Ok(r.borrow_mut().next_u64() as f64))?,
    )?;
    let r = rng.clone();
    t.set(
        "string",
        lua.create_function(move |lua, fmt: mlua::LuaString| {
            let mut r = r.borrow_mut();
            let mut out = fmt.as_bytes().to_vec();
            for b in out.iter_mut() {
                match *b {
                    b'#' => *b = b'0' + (r.next_u64() % 10) as u8,
                    b'@' => *b = b'a' + (r.next_u64() % 26) as u8,
                    _ => {}
                }
            }
            lua.create_string(&out)
        })?,
    )?;
    let r = rng;
    t.set(
        "varstring",
        lua.create_function(move |lua, (min, max): (i64, i64)| {
            let mut r = r.borrow_mut();
            let (min, max) = (min.max(0), max.max(min.max(0)));
            let len = ranged(&mut r, RandType::Uniform, min, max) as usize;
            let out: Vec<u8> = (0..len)
                .map(|_| ALNUM[(r.next_u64() % ALNUM.len() as u64) as usize])
                .collect();
            lua.create_string(&out)
        })?,
    )?;
    t.set(
        "unique",
        lua.create_function(move |_, ()| Ok(i64::from(unique.next())))?,
    )?;
    let params = lua.create_table()?;
    let kind = match p.kind {
        RandType::Uniform => "uniform",
        RandType::Gaussian => "gaussian",
        RandType::Special => "special",
        RandType::Pareto => "pareto",
        RandType::Zipfian => "zipfian",
    };
    params.set("kind", kind)?;
    params.set("spec_iter", p.spec_iter)?;
    params.set("spec_pct", p.spec_pct)?;
    params.set("spec_res", p.spec_res)?;
    params.set("pareto_h", p.pareto_h)?;
    // LuaJIT seeds from a double: keep the seed exact (53 bits).
    params.set("seed", (seed & ((1 << 53) - 1)) as f64)?;
    lua.load(include_str!("rand.lua"))
        .set_name("=qpslab rand")
        .call((t, params))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(kind: RandType, n: usize) -> Vec<i64> {
        let lua = Lua::new();
        let p = RandParams {
            kind,
            ..Default::default()
        };
        let rng = Rc::new(RefCell::new(Rng::new(&p, 7)));
        let t = rand_table(&lua, rng, Arc::new(Unique::new(1)), &p, 7).unwrap();
        let f: mlua::Function = t.get("default").unwrap();
        (0..n).map(|_| f.call::<i64>((1, 1000)).unwrap()).collect()
    }

    #[test]
    fn lua_draws_follow_the_rand_type() {
        for k in [
            RandType::Uniform,
            RandType::Gaussian,
            RandType::Special,
            RandType::Pareto,
            RandType::Zipfian,
        ] {
            assert!(
                draws(k, 5000).iter().all(|v| (1..=1000).contains(v)),
                "{k:?}"
            );
        }
        // special: 75% of draws land on the first 1% of the range
        let d = draws(RandType::Special, 50_000);
        let hot = d.iter().filter(|&&v| v <= 10).count() as f64 / d.len() as f64;
        assert!((0.72..0.78).contains(&hot), "{hot}");
        // uniform: every tenth of the range gets about a tenth
        let d = draws(RandType::Uniform, 50_000);
        let low = d.iter().filter(|&&v| v <= 100).count() as f64 / d.len() as f64;
        assert!((0.08..0.12).contains(&low), "{low}");
    }
}
