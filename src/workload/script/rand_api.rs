//! `sysbench.rand.*` for scripts, over the connection's [`Rng`]: the same
//! distributions and `--rand-*` parameters as the built-in workloads.
//!
//! - `uniform(a, b)`, `default(a, b)` (the `--rand-type` distribution),
//!   `gaussian`, `special`, `pareto`, `zipfian`: integers in [a, b];
//! - `uniform_double()`: [0, 1); `uniform_uint64()`;
//! - `string(fmt)`: `#` becomes a digit, `@` a lowercase letter, anything
//!   else stays; `varstring(min, max)`: min..max letters and digits;
//! - `unique()`: distinct 32-bit values across every connection of the run.

use crate::workload::rand::RandType;
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

/// The `sysbench.rand` table of one state.
pub fn rand_table(lua: &Lua, rng: Rc<RefCell<Rng>>, unique: Arc<Unique>) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    let kinds = [
        ("uniform", Some(RandType::Uniform)),
        ("default", None),
        ("gaussian", Some(RandType::Gaussian)),
        ("special", Some(RandType::Special)),
        ("pareto", Some(RandType::Pareto)),
        ("zipfian", Some(RandType::Zipfian)),
    ];
    for (name, kind) in kinds {
        let rng = rng.clone();
        let f = lua.create_function(move |_, (a, b): (i64, i64)| {
            let mut r = rng.borrow_mut();
            let kind = kind.unwrap_or_else(|| r.kind());
            Ok(ranged(&mut r, kind, a, b))
        })?;
        t.set(name, f)?;
    }
    let r = rng.clone();
    t.set(
        "uniform_double",
        lua.create_function(move |_, ()| Ok(r.borrow_mut().unit()))?,
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
    Ok(t)
}
