//! What the control centre shows of each carrier (its snapshot).

use super::super::iso22133::{ObjectState, Readiness};
use super::super::link_health::LinkHealth;
use serde::{Deserialize, Serialize};

/// A carrier's view for the twin and the JSON result.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CarrierSnapshot {
    pub name: String,
    pub connected: bool,
    pub state: Option<ObjectState>,
    /// The last MONR's readiness allows arming: readyToArm 1, or 2 (unavailable, the stock
    /// isoObject) unless `safety.arm_when_readiness_unavailable` is off. Raw value: `readiness`.
    pub ready_to_arm: bool,
    /// The last MONR's readyToArm (0 not ready, 1 ready, 2 unavailable).
    pub readiness: Option<Readiness>,
    /// Position, local frame at the OSEM origin (= map frame), metres.
    pub x: f64,
    pub y: f64,
    pub yaw_deg: f64,
    pub speed_mps: f64,
    pub last_monr_s: Option<f64>,
    pub monr_count: u64,
    pub malformed_frames: u64,
    /// (t_s, state) each time the reported state changed.
    pub states_seen: Vec<(f64, ObjectState)>,
    pub strt_scheduled_s: Option<f64>,
    pub strt_written_s: Option<f64>,
    /// Scheduled instant (or decision, if later) → STRT written to the socket, µs.
    pub strt_latency_us: Option<f64>,
    /// Timer firing − scheduled instant, µs.
    pub strt_timer_late_us: Option<f64>,
    /// Position at the first MONR after STRT was written.
    pub start_position: Option<(f64, f64)>,
    /// Trajectory origin of the last MTSP written (control-centre seconds) and how many were.
    pub mtsp_origin_s: Option<f64>,
    pub mtsp_count: u32,
    /// MONR track since the carrier was armed: (t_s, x, y, speed, state), timed by the
    /// carrier's own time stamp (on the control centre's clock), not by the MONR's arrival.
    pub track: Vec<(f64, f64, f64, f64, ObjectState)>,
    /// MONR rate, loss and latency over the last second ([`super::link_health`]).
    pub link: LinkHealth,
    /// Arrival of the first MONR since the carrier connected (the link is measured from then).
    pub link_since_s: Option<f64>,
    /// Once started: how far behind its plan it is at its latest MONR (metres along its path
    /// and seconds at the planned speed there; negative = ahead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag: Option<super::super::motion_watch::Lag>,
}

impl CarrierSnapshot {
    /// Whether the supervisor would arm this carrier now: connected and DISARMED with
    /// readyToArm 1, or 2 (unavailable, the stock isoObject) when `unavailable_ok`; or ARMED
    /// already (readiness only matters in DISARMED).
    pub fn armable(&self, unavailable_ok: bool) -> bool {
        self.connected
            && match self.state {
                Some(ObjectState::Armed) => true,
                Some(ObjectState::Disarmed) => match self.readiness {
                    Some(Readiness::Ready) => true,
                    Some(Readiness::Unavailable) => unavailable_ok,
                    _ => false,
                },
                _ => false,
            }
    }
}
