//! A run's whole motion against the site's geofence, before anything moves: each object's
//! drive to its start (from where it stands, when known), its test run (launch, run-up, the
//! test, braking out) and its drive back to the start.

use super::plan::ObjectPlan;
use super::route::plan_route;
use super::track::{PlannedTrack, Pose};
use crate::dispatch::motion_watch::{Breach, Geofence};

/// The first point of any object's motion that breaks the geofence, in words naming the
/// object, the part of its motion and the point; `None` when every motion keeps inside.
/// `from` is where each object stands now (same order as `plans`), if known.
pub fn first_breach(
    fence: &Geofence,
    plans: &[ObjectPlan],
    from: &[Option<Pose>],
    dt_s: f64,
) -> Option<String> {
    for (i, p) in plans.iter().enumerate() {
        let start = p.track.start();
        let to_start = from
            .get(i)
            .copied()
            .flatten()
            .and_then(|f| plan_route(f, start, &p.mobility, dt_s));
        let back = plan_route(p.track.end(), start, &p.mobility, dt_s);
        let parts: [(&str, Option<&PlannedTrack>); 3] = [
            ("its drive to its start", to_start.as_ref()),
            ("its test run", Some(&p.track)),
            ("its drive back to its start", back.as_ref()),
        ];
        for (what, track) in parts {
            let Some(track) = track else { continue };
            if let Some((x, y, b)) = track
                .points
                .iter()
                .find_map(|q| fence.breach(q.x, q.y).map(|b| (q.x, q.y, b)))
            {
                let verb = match b {
                    Breach::Outside => "leaves the permitted area".to_string(),
                    Breach::Forbidden(n) => format!("enters forbidden zone {}", n + 1),
                };
                return Some(format!(
                    "object {}: {what} {verb} at ({x:.1}, {y:.1})",
                    p.name
                ));
            }
        }
    }
    None
}
