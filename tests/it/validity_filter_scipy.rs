//! The protocols' filter against SciPy: scil's 12-pole phaseless Butterworth at 10 Hz (a
//! 6th-order low-pass run forwards and backwards) gives what `scipy.signal.butter(6, 10,
//! fs=100, output="sos")` and `sosfiltfilt` give on the same record (same odd padding of 19
//! samples, steady-state start), and the AEB onset found on it is the same instant.

use scil::scenario::validity::{aeb, filter::Butterworth};

use crate::support;

const SCRIPT: &str = r#"
import json, sys
import numpy as np
from scipy.signal import butter, sosfiltfilt
x = np.array(json.loads(sys.argv[1]))
sos = butter(6, 10.0, btype="low", fs=100.0, output="sos")
y = sosfiltfilt(sos, x, padtype="odd", padlen=19)
print(json.dumps(list(y)))
"#;

/// 6 s at 100 Hz: a speed-difference acceleration with 1 cm/s steps (±1 m/s² spikes), a
/// 2 Hz sway, and a braking ramp to −6 m/s² from 4 s.
fn record() -> (Vec<f64>, Vec<f64>) {
    let (mut t, mut a) = (Vec::new(), Vec::new());
    for k in 0..600 {
        let tk = k as f64 * 0.01;
        let brake = if tk >= 4.0 {
            -(30.0 * (tk - 4.0)).min(6.0)
        } else {
            0.0
        };
        let step = match k % 7 {
            0 => -1.0,
            1 => 1.0,
            _ => 0.0,
        };
        t.push(tk);
        a.push(brake + step + 0.3 * (2.0 * std::f64::consts::PI * 2.0 * tk).sin());
    }
    (t, a)
}

#[test]
fn phaseless_butterworth_matches_scipy_sosfiltfilt() {
    let (t, a) = record();
    let arg = serde_json::to_string(&a).expect("json");
    let Some(out) = support::python::run("scipy", SCRIPT, &[&arg]) else {
        return;
    };
    let want: Vec<f64> = serde_json::from_str(out.trim()).expect("scipy's output");
    let f = Butterworth::lowpass(6, 10.0, 100.0).expect("design");
    let got = f.filtfilt(&a);
    assert_eq!(got.len(), want.len());
    let worst = got
        .iter()
        .zip(&want)
        .map(|(g, w)| (g - w).abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-9, "largest difference from scipy {worst:e}");
    // The AEB onset on scil's filtered record is where scipy's filtered record crosses.
    let onset = aeb::onset(&t, &a, 1.0, 1.0).expect("onset");
    let k = want.iter().position(|v| *v <= -1.0).expect("scipy crosses");
    assert!(
        onset > t[k - 1] && onset <= t[k] + 1e-12,
        "onset {onset} vs scipy's crossing between {} and {}",
        t[k - 1],
        t[k]
    );
}
