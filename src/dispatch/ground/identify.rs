//! What the control centre learns of an object once connected, and how it starts and
//! retimes each object accordingly.
//!
//! The stock isoObject (RI-SE's reference test object) reports readyToArm 2 ("unavailable")
//! while DISARMED, which no real platform does; it follows its TRAJ exactly from its start
//! time and ignores MTSP. Identified so, its capabilities that are still the defaults become
//! what it is: no MTSP, no dead time.
//!
//! An object that does not honour MTSP is sent none; its start is advanced by its dead time
//! (measured when it was characterised), so that it moves when the plan says. An object that
//! honours MTSP starts at the planned instant and is retimed: it tracks its trajectory's clock
//! from its start time, so an earlier start time would put its whole schedule early.

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
/// and how much earlier than planned its STRT time is.
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
                    start_lead_s: if c.honours_mtsp { 0.0 } else { c.dead_time_s },
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
