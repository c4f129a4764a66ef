//! What the control centre learns of an object once connected, and how it starts and
//! retimes each object accordingly.
//!
//! The stock isoObject (RI-SE's reference test object) reports readyToArm 2 ("unavailable")
//! while DISARMED, which no real platform does; it follows its TRAJ exactly from its start
//! time and ignores MTSP. Identified so, its capabilities that are still the defaults become
//! what it is: no MTSP, no dead time.
//!
//! Every object's trajectory begins standing for its dead time (as configured, measured when
//! it was characterised, or its kind's default) and its STRT and MTSP origins are that much
//! earlier than the engine's instants ([`ObjectPlan::lead_s`]): an object that tracks its
//! trajectory's clock from its start time then moves when the plan says, whatever its dead
//! time up to that lead. An object that does not honour MTSP is sent none.

use super::plan::ObjectPlan;
use crate::capabilities::{ObjectCapabilities, Source};
use crate::run::sink::carriers::ObjectSync;

/// How the stock isoObject is named as a source of its capabilities.
pub const STOCK: &str = "identified as the stock isoObject (readyToArm unavailable while DISARMED)";

/// `caps` of an object identified as the stock isoObject when `stock`: its default
/// `honours_mtsp` and `dead_time_s` replaced by what it does (no MTSP, 0 s). Configured and
/// measured values stand.
pub fn identified(caps: &ObjectCapabilities, stock: bool) -> ObjectCapabilities {
    let mut c = caps.clone();
    if !stock {
        return c;
    }
    let src = Source::Identified {
        what: STOCK.to_string(),
    };
    if c.source_of("honours_mtsp") == Source::Default {
        c.honours_mtsp = false;
        c.sources.insert("honours_mtsp".into(), src.clone());
    }
    if c.source_of("dead_time_s") == Source::Default {
        c.dead_time_s = 0.0;
        c.sources.insert("dead_time_s".into(), src);
    }
    c
}

/// How each object of a motion is started and retimed: by its name, whether MTSP goes to it
/// and how much earlier than the engine's instants its STRT and MTSP times are (its plan's
/// lead).
pub fn object_sync(plans: &[ObjectPlan], stock: &[bool]) -> Vec<(String, ObjectSync)> {
    plans
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let c = identified(&p.capabilities, stock.get(i).copied().unwrap_or(false));
            (
                p.name.clone(),
                ObjectSync {
                    honours_mtsp: c.honours_mtsp,
                    start_lead_s: p.lead_s,
                },
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capabilities::{CapabilitiesPatch, ObjectKind};

    #[test]
    fn the_stock_object_gets_no_mtsp_and_no_lead_unless_configured() {
        let d = ObjectCapabilities::default_for(ObjectKind::VehiclePlatform);
        let s = identified(&d, true);
        assert!(!s.honours_mtsp);
        assert_eq!(s.dead_time_s, 0.0);
        assert!(matches!(
            s.source_of("honours_mtsp"),
            Source::Identified { .. }
        ));
        assert_eq!(identified(&d, false), d);
        // Configured: stands.
        let by = Source::Configured { by: "run".into() };
        let c = d
            .clone()
            .with(
                &CapabilitiesPatch {
                    honours_mtsp: Some(false),
                    dead_time_s: Some(0.25),
                    ..Default::default()
                },
                &by,
            )
            .expect("valid");
        let s = identified(&c, true);
        assert_eq!(s.dead_time_s, 0.25);
        assert_eq!(s.source_of("dead_time_s"), by);
    }
}
