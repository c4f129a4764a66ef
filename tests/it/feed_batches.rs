//! A replay at `Max` pace reads a recorded file in batches already in the map frame, converted
//! on the reader thread (`Feed::next_batch_now`). These tests hold that path to the one-by-one
//! path it replaces: the same samples in the same order, the same error at the same line, and
//! the same result whether the first reads were one by one or not.

use crate::support;

use scil::frame::Interface;
use scil::run::source::{self, dbc_from_path, MapItem};
use scil::run::{OpenCtx, SourceSpec};
use scil::sample::Sample;

/// A 25 Hz run of `rows` rows; `bad` puts an unreadable speed on that data row (1-based).
fn write_run(dir: &std::path::Path, rows: usize, bad: Option<usize>) -> std::path::PathBuf {
    let mut text = String::from("Time,PosX,PosY,Heading,Velocity,Steering_Angle,Brake_Light\n");
    for i in 0..rows {
        let t = 387_000.0 + i as f64 * 0.04;
        let x = 20.0 + i as f64 * 0.3359;
        let speed = if bad == Some(i + 1) {
            "fast".to_string()
        } else {
            format!("{:.3}", 30.25 - i as f64 * 0.001)
        };
        text.push_str(&format!(
            "{t:.3},{x:.4},-1.7500,{:.3},{speed},{:.1},{}\n",
            90.0 + (i % 7) as f64 * 0.01,
            (i % 5) as f64 * 0.1 - 0.2,
            u8::from(i > rows / 2)
        ));
    }
    let p = dir.join(format!("run-{rows}-{bad:?}.csv"));
    std::fs::write(&p, text).expect("write run");
    p
}

/// A rotated, shifted interface block, so the conversion is not the identity.
fn iface() -> Interface {
    Interface {
        origin_x: 12.5,
        origin_y: -3.25,
        rotation_deg: 17.0,
        ..Interface::default()
    }
}

async fn open(path: &std::path::Path) -> scil::run::Feed {
    let ctx = OpenCtx {
        vut_id: "vut",
        dbc: &dbc_from_path,
    };
    source::open(&SourceSpec::csv(path), &ctx)
        .await
        .expect("open the run")
}

/// One by one through `Feed::next`, converted here: the reference.
async fn one_by_one(path: &std::path::Path) -> (Vec<Sample>, Option<String>) {
    let mut feed = open(path).await;
    let mut out = Vec::new();
    while let Some(item) = feed.next().await {
        match item {
            Ok(s) => out.push(iface().to_map(&s).expect("local positions convert")),
            Err(e) => return (out, Some(e.to_string())),
        }
    }
    (out, None)
}

/// Batches through `Feed::next_batch_now`, after `first` samples taken one by one.
async fn batched(path: &std::path::Path, first: usize) -> (Vec<Sample>, Option<String>, usize) {
    let mut feed = open(path).await;
    let i = iface();
    let mut out = Vec::new();
    for _ in 0..first {
        match feed.next_now().expect("a file never waits") {
            Some(Ok(s)) => out.push(i.to_map(&s).expect("converts")),
            other => panic!("expected a sample, got {other:?}"),
        }
    }
    let mut batch: Vec<MapItem> = Vec::new();
    let mut batches = 0;
    loop {
        feed.next_batch_now(&i, &mut batch)
            .expect("a file never waits");
        if batch.is_empty() {
            return (out, None, batches);
        }
        batches += 1;
        for item in batch.iter_mut() {
            match item {
                Ok(s) => out.push(s.clone()),
                Err(e) => return (out, Some(e.to_string()), batches),
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_in_the_map_frame_are_the_samples_read_one_by_one() {
    let dir = support::tempdir("feed-batches");
    // Long enough that spent batches go back to the reader and are refilled many times.
    let path = write_run(&dir, 5_000, None);
    let (want, err) = one_by_one(&path).await;
    assert_eq!(want.len(), 5_000);
    assert!(err.is_none());
    for first in [0, 3] {
        let (got, err, batches) = batched(&path, first).await;
        assert!(err.is_none(), "{err:?}");
        assert!(batches >= 5_000 / 256, "{batches} batches");
        assert_eq!(got.len(), want.len(), "first {first}");
        for (k, (a, b)) in got.iter().zip(&want).enumerate() {
            assert_eq!(a, b, "sample {k} (first {first})");
        }
    }
    // Not the identity: the interface block was applied.
    assert!((want[0].x - 20.0).abs() > 1.0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_row_ends_the_batches_with_its_line_after_every_good_sample() {
    let dir = support::tempdir("feed-batches-bad");
    let path = write_run(&dir, 1_500, Some(1_203));
    let (want, want_err) = one_by_one(&path).await;
    let want_err = want_err.expect("the bad row stops the replay");
    assert!(want_err.contains(":1204:"), "{want_err}"); // header is line 1
    assert_eq!(want.len(), 1_202);
    for first in [0, 3] {
        let (got, err, _) = batched(&path, first).await;
        assert_eq!(err.as_deref(), Some(want_err.as_str()), "first {first}");
        assert_eq!(got, want, "first {first}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
