//! Archive checksums: `--checksum ALGO:HEX` parsed, a file's SHA-256,
//! SHA-1 or MD5 computed and compared.

use anyhow::{bail, Context, Result};
use std::fs;
use std::io::Read;
use std::path::Path;

/// A checksum to verify an archive against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checksum {
    pub algo: Algo,
    pub hex: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algo {
    Sha256,
    Sha1,
    Md5,
}

impl Checksum {
    pub fn parse(s: &str) -> Result<Checksum> {
        let (algo, hex) = match s.split_once(':') {
            Some((a, h)) => (a.trim().to_ascii_lowercase(), h.trim()),
            None => ("sha256".into(), s.trim()),
        };
        let (kind, len) = match algo.as_str() {
            "sha256" => (Algo::Sha256, 64),
            "sha1" => (Algo::Sha1, 40),
            "md5" => (Algo::Md5, 32),
            _ => bail!(
                "--checksum {s}: unknown algorithm '{algo}'; write sha256:HEX, sha1:HEX or md5:HEX"
            ),
        };
        if hex.len() != len || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            bail!("--checksum {s}: a {algo} checksum is {len} hexadecimal digits");
        }
        Ok(Checksum {
            algo: kind,
            hex: hex.to_ascii_lowercase(),
        })
    }

    /// The file's digest with this checksum's algorithm.
    pub fn of_file(algo: Algo, path: &Path) -> Result<String> {
        let mut f =
            fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        let mut buf = vec![0u8; 1 << 20];
        enum H {
            Ring(ring::digest::Context),
            Md5(md5::Md5),
        }
        use md5::Digest;
        let mut h = match algo {
            Algo::Sha256 => H::Ring(ring::digest::Context::new(&ring::digest::SHA256)),
            Algo::Sha1 => H::Ring(ring::digest::Context::new(
                &ring::digest::SHA1_FOR_LEGACY_USE_ONLY,
            )),
            Algo::Md5 => H::Md5(md5::Md5::new()),
        };
        loop {
            let n = f.read(&mut buf)?;
            if n == 0 {
                break;
            }
            match &mut h {
                H::Ring(c) => c.update(&buf[..n]),
                H::Md5(m) => m.update(&buf[..n]),
            }
        }
        let bytes: Vec<u8> = match h {
            H::Ring(c) => c.finish().as_ref().to_vec(),
            H::Md5(m) => m.finalize().to_vec(),
        };
        Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    pub fn verify(&self, path: &Path) -> Result<()> {
        let got = Checksum::of_file(self.algo, path)?;
        if got != self.hex {
            bail!(
                "checksum mismatch for {}: expected {:?} {}, got {}; the download is damaged or not the file meant (remove it and fetch again)",
                path.display(),
                self.algo,
                self.hex,
                got
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_parse_and_match() {
        assert_eq!(Checksum::parse(&"a".repeat(64)).unwrap().algo, Algo::Sha256);
        assert_eq!(
            Checksum::parse(&format!("MD5:{}", "F".repeat(32)))
                .unwrap()
                .hex,
            "f".repeat(32)
        );
        assert!(Checksum::parse("sha256:abc").is_err());
        assert!(Checksum::parse(&format!("crc:{}", "a".repeat(8))).is_err());
        let dir = std::env::temp_dir().join(format!("qpslab-sum-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let f = dir.join("x");
        fs::write(&f, b"abc").unwrap();
        assert_eq!(
            Checksum::of_file(Algo::Sha256, &f).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            Checksum::of_file(Algo::Md5, &f).unwrap(),
            "900150983cd24fb0d6963f7d28e17f72"
        );
        assert_eq!(
            Checksum::of_file(Algo::Sha1, &f).unwrap(),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert!(Checksum::parse(&"0".repeat(64))
            .unwrap()
            .verify(&f)
            .is_err());
        let _ = fs::remove_dir_all(&dir);
    }
}
