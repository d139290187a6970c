//! The handshake and the auth exchange against a scripted server: arbitrary
//! bytes, arbitrary packets, and valid greetings and auth packets (native,
//! caching_sha2 fast and full auth with an RSA key, sha256, ed25519, auth
//! switches) with random damage.

use super::against;
use super::gen::{self, mutations, Mutation};
use crate::protocol::{Conn, ConnOpts};
use proptest::prelude::*;

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..max)
}

/// What the server sends after the greeting.
#[derive(Debug, Clone)]
enum Step {
    Ok,
    Err,
    /// Auth switch to PLUGINS[i] with data of this kind.
    Switch(usize, u8, Vec<u8>),
    /// Auth more data: fast auth, full auth, an RSA key, or anything.
    More(u8, Vec<Mutation>, Vec<u8>),
    Raw(Vec<u8>),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        Just(Step::Ok),
        Just(Step::Err),
        (0..gen::PLUGINS.len(), 0u8..3, bytes(40)).prop_map(|(i, k, d)| Step::Switch(i, k, d)),
        (0u8..6, mutations(), bytes(40)).prop_map(|(k, m, d)| Step::More(k, m, d)),
        bytes(40).prop_map(Step::Raw),
    ]
}

fn payload(s: &Step) -> Vec<u8> {
    match s {
        Step::Ok => gen::ok(0, 2, &[]),
        Step::Err => gen::err(1045, b"Access denied"),
        Step::Switch(i, k, d) => {
            let mut p = vec![0xFE];
            p.extend_from_slice(gen::PLUGINS[*i].as_bytes());
            p.push(0);
            match k {
                0 => {
                    p.extend(d.iter().copied().cycle().take(20));
                    p.push(0);
                }
                1 => p.extend(d.iter().copied().cycle().take(32)),
                _ => p.extend_from_slice(d),
            }
            p
        }
        Step::More(k, ms, d) => {
            let mut p = vec![0x01];
            match k {
                0 => p.push(3),
                1 => p.push(4),
                2 => p.extend_from_slice(gen::PEM),
                3 => p.extend(gen::pem_of(&gen::mutate(gen::der(), ms), false)),
                4 => p.extend(gen::pem_of(
                    &gen::mutate(gen::der()[24..].to_vec(), ms),
                    true,
                )),
                _ => p.extend_from_slice(d),
            }
            p
        }
        Step::Raw(d) => d.clone(),
    }
}

fn login(script: Vec<u8>, tune: impl FnOnce(&mut ConnOpts)) {
    let _ = against(script, |mut opts| async move {
        tune(&mut opts);
        Conn::connect(&opts).await.map(|_| ())
    });
}

fn version() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"5.5.5-10.11.6-MariaDB".to_vec()),
        Just(b"8.0.36".to_vec()),
        Just(b"99999999999999999999.1.1".to_vec()),
        Just(b"5.5.5-".to_vec()),
        bytes(12).prop_map(|v| v.into_iter().filter(|&b| b != 0).collect()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn handshake_arbitrary_bytes(script in bytes(200)) {
        login(script, |_| {});
    }

    #[test]
    fn handshake_arbitrary_packets(
        greeting in bytes(120), protocol10 in any::<bool>(), rest in proptest::collection::vec(bytes(60), 0..3)
    ) {
        let mut g = greeting;
        if protocol10 {
            g.insert(0, 10);
        }
        let mut packets = vec![g];
        packets.extend(rest);
        login(gen::frame(&packets, 0), |_| {});
    }

    #[test]
    fn handshake_mutated(
        version in version(),
        caps in any::<u32>(),
        scramble in any::<[u8; 20]>(),
        plugin in 0..gen::PLUGINS.len(),
        ext in any::<u32>(),
        greeting_damage in mutations(),
        steps in proptest::collection::vec((step(), mutations()), 0..5),
        password in prop_oneof![Just(String::new()), Just("secret".to_string()), Just("p".repeat(300))],
        key in proptest::option::of((mutations(), any::<bool>())),
    ) {
        let caps = gen::CAPS_BASE | (caps & gen::CAPS_VARY);
        let g = gen::greeting(&version, caps, &scramble, gen::PLUGINS[plugin], ext);
        let mut packets = vec![gen::mutate(g, &greeting_damage)];
        for (s, ms) in &steps {
            packets.push(gen::mutate(payload(s), ms));
        }
        login(gen::frame(&packets, 0), |o| {
            o.password = password;
            o.server_public_key = key.map(|(ms, pkcs1)| gen::pem_of(&gen::mutate(gen::der(), &ms), pkcs1));
        });
    }
}
