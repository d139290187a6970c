//! `sysbench.rand.*` for scripts, as sysbench 1.0.20 offers it: the draws
//! are Lua (rand.lua: sysbench's xoroshiro128+ stream and sb_rand.c's
//! formulas, so a fixed `--rand-seed` gives sysbench's numbers) but for
//! those of many draws, made here on Lua's copy of the stream through an
//! FFI call: strings ([`rand_str`]: a draw a character, a third of an
//! oltp_read_write event's script instructions in Lua), 'special' and
//! 'gaussian' ([`rand_special`], [`rand_gaussian`]: up to 13 draws, with
//! the built-ins' own [`Shape`]);
//! `unique()` and the zipfian's rejection test are here too. Owns no
//! connection state and no other part of the API.
//!
//! - `uniform(a, b)`, `default(a, b)` (the `--rand-type` distribution),
//!   `gaussian`, `special`, `pareto`: integers in [a, b];
//! - `uniform_double()`: [0, 1); `uniform_uint64()`: a uint64_t cdata;
//! - `string(fmt)`: `#` becomes a digit, `@` a lowercase letter, anything
//!   else stays;
//! - `unique()`: distinct 32-bit values across every connection of the run.

use crate::workload::rand::{RandType, Shape, Zipf};
use crate::workload::xoroshiro::Xoroshiro;
use crate::workload::RandParams;
use crate::workload::Unique;
use mlua::{Lua, Table};
use std::cell::RefCell;
use std::sync::Arc;

/// The `sysbench.rand` table of one state, drawing from `stream`.
pub(crate) fn rand_table(
    lua: &Lua,
    unique: Arc<Unique>,
    p: &RandParams,
    stream: Xoroshiro,
) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    let zipf = RefCell::new(Zipf::new(p.zipf_exp));
    t.set(
        "zipf_try",
        lua.create_function(move |_, (n, u): (u32, f64)| Ok(zipf.borrow_mut().try_once(n, u)))?,
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
    let shape = Shape::of(p);
    for (k, v) in [
        ("iter", shape.iter),
        ("iter_mult", shape.iter_mult),
        ("res_mult", shape.res_mult),
        ("pct_mult", shape.pct_mult),
        ("pct_2_mult", shape.pct_2_mult),
    ] {
        params.set(k, v)?;
    }
    params.set("pareto_h", p.pareto_h)?;
    let [s0, s1] = stream.words();
    params.set("s0_hi", s0 >> 32)?;
    params.set("s0_lo", s0 & 0xffff_ffff)?;
    params.set("s1_hi", s1 >> 32)?;
    params.set("s1_lo", s1 & 0xffff_ffff)?;
    let ptr = |f: *mut std::ffi::c_void| mlua::Value::LightUserData(mlua::LightUserData(f));
    params.set("rand_str", ptr(rand_str as *mut _))?;
    params.set("rand_special", ptr(rand_special as *mut _))?;
    params.set("rand_gaussian", ptr(rand_gaussian as *mut _))?;
    lua.load(include_str!("rand.lua"))
        .set_name("=qpslab rand")
        .call((t, params))
}

/// `sb_rand_str(fmt, out)` on the stream whose state is at `state` (rand.lua's
/// FFI array, advanced here): each `#` of `fmt` a digit, each `@` a
/// lowercase letter, one draw each as sysbench draws them
/// (`uniform('0', '9')`, `uniform('a', 'z')`), anything else copied.
///
/// # Safety
/// `state` points to two words, `fmt` and `out` to `n` bytes each (rand.lua
/// passes its own array, the format string and a buffer of its length).
unsafe extern "C" fn rand_str(state: *mut u64, fmt: *const u8, n: usize, out: *mut u8) {
    // SAFETY: as the function's contract says
    let (state, fmt, out) = unsafe {
        (
            &mut *state.cast::<[u64; 2]>(),
            std::slice::from_raw_parts(fmt, n),
            std::slice::from_raw_parts_mut(out, n),
        )
    };
    on_stream(state, |r| {
        for (o, &c) in out.iter_mut().zip(fmt) {
            *o = match c {
                b'#' => r.digit(),
                b'@' => r.uniform(u32::from(b'a'), u32::from(b'z')) as u8,
                c => c,
            };
        }
    });
}

/// Draws with `f` from the stream in `state` (rand.lua's two words),
/// leaving the stream where `f` left it.
fn on_stream<T>(state: &mut [u64; 2], f: impl FnOnce(&mut Xoroshiro) -> T) -> T {
    let mut r = Xoroshiro::from_words(*state);
    let v = f(&mut r);
    *state = r.words();
    v
}

/// `sysbench.rand.special(a, b)` on the stream whose state is at `state`,
/// with the [`Shape`] at `shape` (rand.lua's two FFI arrays): one call
/// where Lua made up to `iter` + 1 draws of 64-bit FFI arithmetic.
///
/// # Safety
/// `state` points to two words, `shape` to a [`Shape`] (five doubles).
unsafe extern "C" fn rand_special(state: *mut u64, shape: *const Shape, a: u32, b: u32) -> u32 {
    // SAFETY: as the function's contract says
    let (state, shape) = unsafe { (&mut *state.cast::<[u64; 2]>(), &*shape) };
    on_stream(state, |r| shape.special(r, a, b))
}

/// `sysbench.rand.gaussian(a, b)`, as [`rand_special`] draws.
///
/// # Safety
/// As [`rand_special`]'s.
unsafe extern "C" fn rand_gaussian(state: *mut u64, shape: *const Shape, a: u32, b: u32) -> u32 {
    // SAFETY: as the function's contract says
    let (state, shape) = unsafe { (&mut *state.cast::<[u64; 2]>(), &*shape) };
    on_stream(state, |r| shape.gaussian(r, a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(kind: RandType, f: fn(&mut RandParams)) -> (Lua, Table) {
        // SAFETY: a test's own state, with the libraries scripts get (ffi)
        let lua = unsafe { Lua::unsafe_new_with(mlua::StdLib::ALL, mlua::LuaOptions::new()) };
        let mut p = RandParams {
            kind,
            sysbench_seed: 42,
            ..Default::default()
        };
        f(&mut p);
        let stream = crate::workload::rand::stream_for(&p, 0, 0);
        let t = rand_table(&lua, Arc::new(Unique::new(1)), &p, stream).unwrap();
        (lua, t)
    }

    fn five(t: &Table, name: &str) -> String {
        let f: mlua::Function = t.get(name).unwrap();
        let v: Vec<String> = (0..5)
            .map(|_| f.call::<i64>((1, 1000)).unwrap().to_string())
            .collect();
        v.join(" ")
    }

    /// tests/sysbench_diff/rand.lua's lines, drawn as it draws them.
    fn rand_lua_lines(t: &Table) -> Vec<String> {
        let mut out: Vec<String> = ["default", "uniform", "gaussian", "special", "pareto"]
            .iter()
            .map(|n| five(t, n))
            .collect();
        let u64f: mlua::Function = t.get("uniform_uint64").unwrap();
        let v: mlua::Value = u64f.call(()).unwrap();
        out.push(v.to_string().unwrap());
        let d: mlua::Function = t.get("uniform_double").unwrap();
        out.push(format!("{:.6}", d.call::<f64>(()).unwrap()));
        let s: mlua::Function = t.get("string").unwrap();
        out.push(s.call::<String>("###-@@@-###").unwrap());
        out
    }

    #[test]
    fn lua_draws_what_sysbench_draws() {
        // /usr/bin/sysbench rand.lua --rand-seed=42 --events=1 run (1.0.20)
        let (_lua, t) = table(RandType::Special, |_| {});
        assert_eq!(
            rand_lua_lines(&t),
            [
                "499 503 503 502 498",
                "999 844 607 224 381",
                "600 410 501 474 420",
                "500 504 290 498 475",
                "1 1 352 306 20",
                "6916154342417049446ULL",
                "0.730987",
                "739-vwp-808",
            ]
        );
        let (_lua, t) = table(RandType::Gaussian, |_| {});
        assert_eq!(five(&t, "default"), "587 577 409 488 472");
        let (_lua, t) = table(RandType::Special, |p| {
            p.spec_pct = 5.0;
            p.spec_res = 50.0;
        });
        assert_eq!(rand_lua_lines(&t)[3], "516 501 509 516 520");
    }

    /// A range whose a > b (as uint32_t) wraps around in both of
    /// special's branches, as sb_rand.c's casts do.
    #[test]
    fn a_reversed_range_wraps_as_under_sysbench() {
        // /usr/bin/sysbench: 40 × sysbench.rand.special(-5, 7.5), --rand-seed=42
        let (_lua, t) = table(RandType::Special, |_| {});
        let f: mlua::Function = t.get("special").unwrap();
        let got: Vec<String> = (0..40)
            .map(|_| f.call::<i64>((-5, 7.5)).unwrap().to_string())
            .collect();
        assert_eq!(
            got.join(" "),
            "1 1 1 1 1 2 1 1 1 1 1 1 1 1 0 1 1 2 4294967295 0 4294967294 2 1 1 1 1 1 1 1 0 \
             1 1 1 1 1 1 1 1 1 1"
        );
    }

    /// A string drawn in Rust on Lua's stream is the one Lua's own
    /// per-character draws make (sb_rand_str), and leaves the stream where
    /// they leave it.
    #[test]
    fn strings_are_drawn_as_lua_draws_them() {
        let (lua, t) = table(RandType::Special, |_| {});
        let (_lua2, t2) = table(RandType::Special, |_| {});
        let s: mlua::Function = t.get("string").unwrap();
        let d: mlua::Function = t2.get("uniform_double").unwrap();
        let fmt = "###########-@@@@@-x#@".repeat(40);
        for _ in 0..50 {
            let got: String = s.call(fmt.as_str()).unwrap();
            let want: String = fmt
                .bytes()
                .map(|c| match c {
                    b'#' => (48.0 + d.call::<f64>(()).unwrap() * 10.0).floor() as u8 as char,
                    b'@' => (97.0 + d.call::<f64>(()).unwrap() * 26.0).floor() as u8 as char,
                    c => c as char,
                })
                .collect();
            assert_eq!(got, want);
        }
        let next = |t: &Table| {
            t.get::<mlua::Function>("uniform_uint64")
                .unwrap()
                .call::<mlua::Value>(())
                .unwrap()
                .to_string()
                .unwrap()
        };
        assert_eq!(next(&t), next(&t2));
        drop(lua);
    }

    #[test]
    fn lua_and_rust_draw_alike() {
        for kind in [
            RandType::Uniform,
            RandType::Gaussian,
            RandType::Special,
            RandType::Pareto,
            RandType::Zipfian,
        ] {
            let (_lua, t) = table(kind, |_| {});
            let p = RandParams {
                kind,
                sysbench_seed: 42,
                ..Default::default()
            };
            let mut r = crate::workload::Rng::for_connection(&p, 0, 0);
            let f: mlua::Function = t.get("default").unwrap();
            for (a, b) in [(1, 1000), (5, 5), (0, 4_000_000_000), (7, 100_000)] {
                for _ in 0..200 {
                    let lua_v = f.call::<i64>((a, b)).unwrap();
                    assert_eq!(lua_v, i64::from(r.default_in(a, b)), "{kind:?} {a} {b}");
                }
            }
        }
    }
}
