//! A verification point's robustness layer (`Robustness layer` and `Verification condition`
//! cells) as offsets of its test: the speed layer changes the target's speed, the heading layer
//! rotates the target's path about the impact point, the initial-position layer starts the
//! target closer to the impact point or shifts its path sideways (in the lane-departure rows:
//! away from or closer to the VUT), the impact-location layer moves the contact along the
//! target (lane-departure rows). Driver input before the crash
//! (steering and throttle as the protocol prescribes) is the driver's or the robot's: the test
//! scil drives is the nominal one, and the plan says so. A layer or condition scil cannot apply
//! is an error naming it.

use crate::scenario::ncap2026::Robustness;

/// The offsets of a point's layer, and a note for what the test itself does not carry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layer {
    pub offsets: Robustness,
    pub note: Option<String>,
}

/// The leading signed number of `s` (`"+ 3 km/h"` → 3, `"-25% m of …"` → −25).
fn leading_number(s: &str) -> Option<f64> {
    let t: String = s.trim().chars().filter(|c| !c.is_whitespace()).collect();
    let end = t
        .char_indices()
        .find(|(i, c)| !(c.is_ascii_digit() || *c == '.' || ((*c == '+' || *c == '-') && *i == 0)))
        .map_or(t.len(), |(i, _)| i);
    t[..end].parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Reads a layer; `None` or "Not applicable" is the nominal test.
pub fn parse(layer: Option<&str>, condition: Option<&str>) -> Result<Layer, String> {
    let Some(layer) = layer.map(str::trim).filter(|l| {
        !l.is_empty()
            && !l.eq_ignore_ascii_case("not applicable")
            && !l.eq_ignore_ascii_case("none")
    }) else {
        return Ok(Layer::default());
    };
    let cond = condition.map(str::trim).unwrap_or("");
    let need = |what: &str| -> Result<f64, String> {
        leading_number(cond).ok_or_else(|| {
            format!("robustness layer '{layer}': cannot read {what} from the condition '{cond}'")
        })
    };
    let mut out = Layer::default();
    let l = layer.to_ascii_lowercase();
    let c = cond.to_ascii_lowercase();
    match l.as_str() {
        "speed" => out.offsets.target_speed_kmh = need("a speed change (km/h)")?,
        "trajectory/heading" | "heading" => out.offsets.heading_deg = need("an angle (°)")?,
        "initial position offset" => {
            if c.contains("distance to impact") && c.contains('%') {
                // "-25% of distance to impact point": 25 % closer.
                out.offsets.start_fraction = -need("a fraction (%)")? / 100.0;
            } else if c.contains("path offset") {
                out.offsets.path_offset_m = need("an offset (m)")?;
            } else if c.contains("headway") {
                // Braking rows: "-0.5s Time headway".
                out.offsets.headway_s = need("a headway change (s)")?;
            } else if c.contains("away from vut") || c.contains("closer to vut") {
                // Lane departure: "0.25m away from VUT" / "0.25m closer to VUT".
                let m = need("an offset (m)")?.abs();
                out.offsets.lateral_away_m = if c.contains("closer") { -m } else { m };
            } else {
                return Err(format!(
                    "robustness layer '{layer}' with condition '{cond}' is not applied yet"
                ));
            }
        }
        "acceleration" => {
            // Braking rows: "+2 m/s²" added to the target's (negative) acceleration, i.e. its
            // deceleration is that much smaller.
            out.offsets.decel_mps2 = -need("an acceleration change (m/s²)")?;
        }
        "impact location" if c.contains("range change") && c.contains('%') => {
            // Lane departure: "+10% Range change", the contact moved along the target.
            out.offsets.impact_change = need("a change (%)")? / 100.0;
        }
        "driver input pre-crash" => {
            out.note = Some(
                "robustness layer 'Driver input pre-crash': steering and throttle before the crash are the driver's or the robot's, as the protocol prescribes; the test driven is the nominal one".into(),
            );
        }
        _ => {
            return Err(format!(
                "robustness layer '{layer}' (condition '{cond}') is not applied yet"
            ))
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rating_tools_conditions_read_as_offsets() {
        let p = |l: &str, c: &str| parse(Some(l), Some(c)).expect(c).offsets;
        assert_eq!(p("Speed", "+5 km/h").target_speed_kmh, 5.0);
        assert_eq!(p("Speed", "-5 km/h").target_speed_kmh, -5.0);
        assert_eq!(p("Speed", "+ 3 km/h").target_speed_kmh, 3.0);
        assert_eq!(
            p(
                "Trajectory/Heading",
                "+20° (rotation around the impact point)"
            )
            .heading_deg,
            20.0
        );
        assert_eq!(
            p(
                "Trajectory/Heading",
                "-20° (rotation around the impact point)"
            )
            .heading_deg,
            -20.0
        );
        assert_eq!(
            p(
                "Initial position offset",
                "-25% m of distance to impact point"
            )
            .start_fraction,
            0.25
        );
        assert_eq!(
            p("Initial position offset", "+0.5m Path offset").path_offset_m,
            0.5
        );
        let d = parse(
            Some("Driver input pre-crash"),
            Some("Steer and throttle condition. See protocol"),
        )
        .expect("driver input");
        assert_eq!(d.offsets, Robustness::default());
        assert!(d.note.is_some());
        assert_eq!(
            parse(Some("Not applicable"), None).expect("none"),
            Layer::default()
        );
        assert_eq!(parse(None, None).expect("none"), Layer::default());
        let l = parse(Some("Impact location"), Some("+50% Range change")).expect("impact");
        assert_eq!(l.offsets.impact_change, 0.5);
        let l = parse(Some("Impact location"), Some("-10% Range change")).expect("impact");
        assert_eq!(l.offsets.impact_change, -0.1);
        let l = parse(Some("Initial position offset"), Some("0.25m away from VUT")).expect("away");
        assert_eq!(l.offsets.lateral_away_m, 0.25);
        let l =
            parse(Some("Initial position offset"), Some("0.25m closer to VUT")).expect("closer");
        assert_eq!(l.offsets.lateral_away_m, -0.25);
        let l = parse(Some("Acceleration"), Some("+2 m/s²")).expect("acceleration");
        assert_eq!(l.offsets.decel_mps2, -2.0);
        let l = parse(Some("Initial position offset"), Some("-0.5s Time headway")).expect("hw");
        assert_eq!(l.offsets.headway_s, -0.5);
        let e = parse(Some("Impact location"), Some("somewhere else")).unwrap_err();
        assert!(e.contains("Impact location"), "{e}");
        let e = parse(Some("Initial position offset"), Some("0.25m sideways")).unwrap_err();
        assert!(e.contains("0.25m sideways"), "{e}");
        let e = parse(Some("Speed"), Some("faster")).unwrap_err();
        assert!(e.contains("faster"), "{e}");
    }
}
