//! The digital twin: the latest state of every vehicle and target object in the map frame.
//!
//! Updated only from samples (and the engine's own simulated objects), so it is as
//! deterministic as its input. Derived quantities (acceleration, yaw rate) come from consecutive
//! samples of the same vehicle when the source does not measure them.

use std::sync::Arc;

use serde::Serialize;

use crate::frame::wrap_pi;
use crate::sample::{Sample, VehicleId};

/// Where a vehicle is on the road network (from the OpenDRIVE map matcher).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaneMatch {
    pub road_id: std::sync::Arc<str>,
    pub lane_id: i32,
    pub s: f64,
    pub t: f64,
    /// Vehicle yaw relative to the lane direction, radians.
    pub heading_rel_rad: f64,
}

/// On the map or off it: being off the map is a state, not an error.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RoadState {
    /// No map loaded or not matched yet.
    #[default]
    Unknown,
    OnLane(LaneMatch),
    OffMap,
}

/// State of one vehicle or object.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct VehicleState {
    pub time_s: f64,
    pub x: f64,
    pub y: f64,
    pub yaw_rad: f64,
    pub speed_mps: f64,
    /// Longitudinal acceleration, measured or derived from consecutive speeds.
    pub accel_mps2: f64,
    /// Yaw rate, measured or derived from consecutive yaws (counter-clockwise positive).
    pub yaw_rate_rps: f64,
    pub steering_wheel_deg: Option<f64>,
    pub road_wheel_deg: Option<f64>,
    pub brake_light: Option<bool>,
    /// Mean wheel speed from CAN, m/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wheel_speed_mps: Option<f64>,
    pub road: RoadState,
    /// Samples applied to this vehicle.
    pub samples: u64,
}

/// Map matching seam: the twin asks the road manager where a point is.
pub trait MapMatcher: Send + Sync {
    fn locate(&self, x: f64, y: f64, yaw_rad: f64) -> Option<LaneMatch>;

    /// [`MapMatcher::locate`] for a moving vehicle, warm-started from its previous match
    /// (`hint`); must give the same answer.
    fn locate_hinted(
        &self,
        x: f64,
        y: f64,
        yaw_rad: f64,
        _hint: &mut opendrive::MatchHint,
    ) -> Option<LaneMatch> {
        self.locate(x, y, yaw_rad)
    }

    /// The t range (from the road's reference line, left positive) a lane spans at `s`:
    /// where its edges are. `None` when the road, the lane or `s` is not on the map.
    fn lane_span(&self, _road: &str, _lane: i32, _s: f64) -> Option<(f64, f64)> {
        None
    }
}

/// Why a sample was not applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TwinError {
    #[error("sample for '{vehicle}' at t={time_s} is not newer than the last one (t={last_s})")]
    OutOfOrder {
        vehicle: String,
        time_s: f64,
        last_s: f64,
    },
}

/// The digital twin.
#[derive(Default, Clone)]
pub struct Twin {
    /// Each vehicle's state and its last map match (to warm-start the next), in the order the
    /// vehicles appeared: a slot's index never changes, so the engine can keep it.
    slots: Vec<Slot>,
    /// Slot indices sorted by vehicle id: lookups by name, and the iteration order.
    by_id: Vec<usize>,
    matcher: Option<Arc<dyn MapMatcher>>,
    /// Samples rejected as out of order.
    pub out_of_order: u64,
}

#[derive(Clone)]
struct Slot {
    id: String,
    /// The shared id (`Arc<str>`) of this vehicle's latest sample. A source hands out one
    /// shared id for all its samples, so comparing pointers finds the slot without a string
    /// compare; holding the `Arc` keeps its address from being reused for another id.
    seen: Option<VehicleId>,
    state: VehicleState,
    hint: opendrive::MatchHint,
}

impl std::fmt::Debug for Twin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Twin")
            .field(
                "vehicles",
                &self.vehicles().map(|v| v.1).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Twin {
    pub fn new(matcher: Option<Arc<dyn MapMatcher>>) -> Self {
        Twin {
            slots: Vec::new(),
            by_id: Vec::new(),
            matcher,
            out_of_order: 0,
        }
    }

    /// The road manager the twin matches with, when it has a map.
    pub fn matcher(&self) -> Option<&dyn MapMatcher> {
        self.matcher.as_deref()
    }

    pub fn get(&self, id: &str) -> Option<&VehicleState> {
        self.find(id).map(|i| &self.slots[i].state)
    }

    /// Vehicles in id order.
    pub fn vehicles(&self) -> impl Iterator<Item = (&String, &VehicleState)> {
        self.by_id
            .iter()
            .map(|&i| (&self.slots[i].id, &self.slots[i].state))
    }

    /// The slot of vehicle `id`, if it has one.
    fn find(&self, id: &str) -> Option<usize> {
        self.by_id
            .binary_search_by(|&i| self.slots[i].id.as_str().cmp(id))
            .ok()
            .map(|k| self.by_id[k])
    }

    /// The slot of vehicle `id`, made (with `state`) when it has none.
    fn slot_or_insert(&mut self, id: &str, state: impl FnOnce() -> VehicleState) -> usize {
        match self
            .by_id
            .binary_search_by(|&i| self.slots[i].id.as_str().cmp(id))
        {
            Ok(k) => self.by_id[k],
            Err(k) => {
                let i = self.slots.len();
                self.slots.push(Slot {
                    id: id.to_string(),
                    seen: None,
                    state: state(),
                    hint: opendrive::MatchHint::default(),
                });
                self.by_id.insert(k, i);
                i
            }
        }
    }

    /// The slot of the sample's vehicle: by pointer when its shared id was seen before.
    fn slot_of(&mut self, id: &VehicleId) -> Option<usize> {
        if let Some(i) = self
            .slots
            .iter()
            .position(|v| v.seen.as_ref().is_some_and(|a| Arc::ptr_eq(a, id)))
        {
            return Some(i);
        }
        let i = self.find(id)?;
        self.slots[i].seen = Some(id.clone());
        Some(i)
    }

    /// Applies a sample; returns the updated state.
    pub fn update(&mut self, s: &Sample) -> Result<&VehicleState, TwinError> {
        self.update_slot(s).map(|i| &self.slots[i].state)
    }

    /// [`Twin::update`] returning the vehicle's slot (stable for the twin's life; see
    /// [`Twin::state_at`]).
    pub fn update_slot(&mut self, s: &Sample) -> Result<usize, TwinError> {
        let found = self.slot_of(&s.vehicle);
        let matcher = self.matcher.as_deref();
        match found {
            Some(i) => {
                let slot = &mut self.slots[i];
                let prev = &slot.state;
                let dt = s.time_s - prev.time_s;
                if dt <= 0.0 || !dt.is_finite() {
                    self.out_of_order += 1;
                    return Err(TwinError::OutOfOrder {
                        vehicle: s.vehicle.to_string(),
                        time_s: s.time_s,
                        last_s: prev.time_s,
                    });
                }
                let accel = s.accel_mps2.unwrap_or((s.speed_mps - prev.speed_mps) / dt);
                let yaw_rate = s
                    .yaw_rate_rps
                    .unwrap_or(wrap_pi(s.yaw_rad - prev.yaw_rad) / dt);
                let n = prev.samples + 1;
                let road = road_state(matcher, s, &mut slot.hint);
                slot.state = state_of(s, accel, yaw_rate, road, n);
                Ok(i)
            }
            None => {
                let mut hint = opendrive::MatchHint::default();
                let road = road_state(matcher, s, &mut hint);
                let state = state_of(
                    s,
                    s.accel_mps2.unwrap_or(0.0),
                    s.yaw_rate_rps.unwrap_or(0.0),
                    road,
                    1,
                );
                let i = self.slot_or_insert(&s.vehicle, || state);
                let slot = &mut self.slots[i];
                slot.hint = hint;
                slot.seen = Some(s.vehicle.clone());
                Ok(i)
            }
        }
    }

    /// The state in slot `i` (from [`Twin::update_slot`] or [`Twin::object_slot`]).
    pub fn state_at(&self, i: usize) -> Option<&VehicleState> {
        self.slots.get(i).map(|v| &v.state)
    }

    /// Sets a simulated or carrier-reported object directly (targets, dummies).
    pub fn set_object(&mut self, id: &str, state: VehicleState) {
        let i = self.object_slot(id);
        self.slots[i].state = state;
    }

    /// The slot of object `id`, made (in its default state) when it has none; an object set
    /// every sample keeps it and writes with [`Twin::set_object_at`] without a lookup.
    pub fn object_slot(&mut self, id: &str) -> usize {
        self.slot_or_insert(id, VehicleState::default)
    }

    /// [`Twin::set_object`] by slot; a slot this twin never gave out is ignored.
    pub fn set_object_at(&mut self, i: usize, state: VehicleState) {
        if let Some(v) = self.slots.get_mut(i) {
            v.state = state;
        }
    }
}

/// Where the sample is on the map (warm-started from `hint`, which is updated).
fn road_state(
    matcher: Option<&dyn MapMatcher>,
    s: &Sample,
    hint: &mut opendrive::MatchHint,
) -> RoadState {
    match matcher {
        None => RoadState::Unknown,
        Some(m) => match m.locate_hinted(s.x, s.y, s.yaw_rad, hint) {
            Some(lm) => RoadState::OnLane(lm),
            None => RoadState::OffMap,
        },
    }
}

fn state_of(s: &Sample, accel: f64, yaw_rate: f64, road: RoadState, samples: u64) -> VehicleState {
    VehicleState {
        time_s: s.time_s,
        x: s.x,
        y: s.y,
        yaw_rad: s.yaw_rad,
        speed_mps: s.speed_mps,
        accel_mps2: accel,
        yaw_rate_rps: yaw_rate,
        steering_wheel_deg: s.steering_wheel_deg,
        road_wheel_deg: s.road_wheel_deg,
        brake_light: s.brake_light,
        wheel_speed_mps: s.wheel_speed_mps,
        road,
        samples,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(t: f64, x: f64, v: f64, yaw: f64) -> Sample {
        Sample::vut(t, x, 0.0, yaw, v)
    }

    #[test]
    fn derives_accel_and_yaw_rate_and_rejects_out_of_order() {
        let mut t = Twin::default();
        t.update(&sample(0.0, 0.0, 10.0, 3.1)).unwrap();
        let s = t.update(&sample(0.5, 5.0, 11.0, -3.1)).unwrap();
        assert!((s.accel_mps2 - 2.0).abs() < 1e-12);
        // 3.1 → -3.1 is a small positive turn across ±π, not a 6.2 rad jump.
        assert!((s.yaw_rate_rps - (2.0 * std::f64::consts::PI - 6.2) / 0.5).abs() < 1e-9);
        assert!(t.update(&sample(0.5, 5.0, 11.0, 0.0)).is_err());
        assert_eq!(t.out_of_order, 1);
        assert_eq!(t.get("vut").unwrap().samples, 2);
    }

    #[test]
    fn slots_are_stable_and_found_by_name_or_shared_id() {
        let mut t = Twin::default();
        let dummy = t.object_slot("target");
        let a = t.update_slot(&sample(0.0, 0.0, 1.0, 0.0)).unwrap();
        // Another `Arc` with the same name (a second source) lands in the same slot.
        let other: VehicleId = "vut".into();
        let b = t
            .update_slot(&Sample {
                vehicle: other.clone(),
                ..sample(0.1, 0.1, 1.0, 0.0)
            })
            .unwrap();
        assert_eq!(a, b);
        let c = t
            .update_slot(&Sample {
                vehicle: "aaa".into(),
                ..sample(0.1, 0.1, 1.0, 0.0)
            })
            .unwrap();
        assert_ne!(c, a);
        // Slots keep their index as vehicles sorting before them arrive; iteration is by id.
        assert_eq!(t.object_slot("target"), dummy);
        t.set_object_at(
            dummy,
            VehicleState {
                x: 7.0,
                ..Default::default()
            },
        );
        assert_eq!(t.get("target").unwrap().x, 7.0);
        let ids: Vec<&str> = t.vehicles().map(|v| v.0.as_str()).collect();
        assert_eq!(ids, ["aaa", "target", "vut"]);
        assert_eq!(t.get("vut").unwrap().samples, 2);
        assert_eq!(t.state_at(a).unwrap().time_s, 0.1);
        assert!(t.get("nobody").is_none());
    }
}
