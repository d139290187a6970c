//! What a campaign's variants really changed: each variant's server
//! variables that differ from the reference variant's, as the runs
//! captured them (the first finished run of each, same server label).
//! Read from the store; formatted by report (text) and ui (pages).

use crate::campaign::CampaignFile;
use crate::store::{RunRow, Store};
use anyhow::Result;

/// One variant's differences from the reference variant on one server.
pub struct VariantDiff {
    /// The server label the runs compared were made on.
    pub server: String,
    /// The variant's name (never the reference's).
    pub variant: String,
    /// (variable, reference's value, the variant's value), by name.
    pub diff: Vec<(String, String, String)>,
}

/// Empty with one variant, or when the runs captured no variables.
pub fn variant_diffs(store: &Store, c: &CampaignFile, runs: &[RunRow]) -> Result<Vec<VariantDiff>> {
    let mut out = Vec::new();
    if c.variants.len() < 2 {
        return Ok(out);
    }
    let reference = c.reference_variant();
    for server in &c.servers {
        let first = |variant: &str| {
            runs.iter()
                .find(|r| {
                    r.label.as_deref() == Some(&server.label)
                        && r.variant.as_deref() == Some(variant)
                })
                .map(|r| r.id)
        };
        let Some(rd) = first(reference)
            .map(|id| store.run_detail(id))
            .transpose()?
            .flatten()
        else {
            continue;
        };
        for v in c.variants.iter().filter(|v| v.name != reference) {
            let Some(vd) = first(&v.name)
                .map(|id| store.run_detail(id))
                .transpose()?
                .flatten()
            else {
                continue;
            };
            out.push(VariantDiff {
                server: server.label.clone(),
                variant: v.name.clone(),
                diff: crate::analyze::compare::variable_diff(
                    &rd.server_variables,
                    &vd.server_variables,
                ),
            });
        }
    }
    Ok(out)
}

/// The campaign file a campaign ran from, when its stored definition is
/// one (sweeps store JSON, not a campaign file: None).
pub fn campaign_file(store: &Store, id: i64) -> Result<Option<CampaignFile>> {
    Ok(store
        .campaign_definition(id)?
        .and_then(|text| CampaignFile::parse(&text, &format!("campaign {id}")).ok()))
}
