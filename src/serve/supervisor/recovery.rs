//! What a stopped process left. At startup: the runs this instance's previous process left
//! active (or an instance whose lease expired) are failed, and the carrier claims of ended
//! runs released. While the service runs: this instance's lease is renewed, and the runs of
//! instances whose lease expired are failed.

use std::sync::Arc;

use chrono::Utc;
use serde_json::json;

use super::{Inner, Supervisor};
use crate::serve::instance::{ms, now_ms};
use crate::store::InstanceRow;

/// Hears the ids of runs the supervisor failed because their process is gone (a test series
/// gives their points back).
pub type OnFailed = Arc<dyn Fn(Vec<String>) + Send + Sync>;

impl Supervisor {
    /// Takes this instance's lease and fails the runs a stopped process left active: this
    /// instance's previous one, or one whose lease expired (a live instance's runs are left
    /// alone). Releases the carrier claims of ended runs. Returns the runs it failed.
    pub async fn recover(&self) -> anyhow::Result<Vec<String>> {
        let failed = self
            .instance
            .claim(&self.store, self.config.take_over_instance)
            .await?;
        let ids = report_failed(
            self,
            &failed,
            "left active by a stopped process (this instance's previous one, or one whose lease expired)",
        );
        let n = self.store.release_stale_claims().await?;
        if n > 0 {
            tracing::warn!("{n} carrier claim(s) of ended runs released");
        }
        Ok(ids)
    }

    /// Starts the lease keeper: renews this instance's lease every third of it and fails other
    /// instances' runs whose lease has expired, telling `on_failed`. Ends when the supervisor
    /// is dropped, or when another process took the lease over.
    pub fn keep_lease(&self, on_failed: OnFailed) -> tokio::task::JoinHandle<()> {
        let weak = Arc::downgrade(&self.0);
        let period = self.instance.lease / 3;
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(period);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            tick.tick().await;
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                if !renew(&inner).await {
                    return;
                }
                let me = &inner.instance;
                match inner
                    .store
                    .fail_expired_runs(&me.id, now_ms(), Utc::now())
                    .await
                {
                    Ok(failed) => {
                        let ids = report_failed(&inner, &failed, "its instance's lease expired");
                        if !ids.is_empty() {
                            on_failed(ids);
                        }
                    }
                    Err(e) => tracing::warn!("instance {}: lease sweep: {e}", me.id),
                }
            }
        })
    }
}

/// Renews the lease (takes it again if its row is gone). False when another process holds it:
/// this one stops renewing, and its runs are the other process's to clean up.
async fn renew(inner: &Inner) -> bool {
    let me = &inner.instance;
    let now = now_ms();
    let pid = i64::from(std::process::id());
    match inner
        .store
        .renew_instance(&me.id, (&me.host, pid), now, now + ms(me.lease))
        .await
    {
        Ok(true) => {}
        Ok(false) => {
            let row = InstanceRow {
                id: me.id.clone(),
                host: me.host.clone(),
                pid,
                started_ms: now,
                heartbeat_ms: now,
                lease_until_ms: now + ms(me.lease),
            };
            match inner.store.claim_instance(&row, false).await {
                Ok(true) => tracing::warn!("instance {}: lease row missing; taken again", me.id),
                Ok(false) => {
                    let holder = inner.store.get_instance(&me.id).await.ok().flatten();
                    tracing::error!(
                        "instance {}: its lease was taken over by {}; this process stops renewing it and its runs are the other process's to clean up",
                        me.id,
                        holder.map_or("another process".into(), |h| format!(
                            "host {} (pid {})",
                            h.host, h.pid
                        ))
                    );
                    return false;
                }
                Err(e) => tracing::error!("instance {}: cannot take the lease again ({e})", me.id),
            }
        }
        Err(e) => tracing::error!(
            "instance {}: cannot renew the lease ({e}); other instances fail this instance's runs once it expires",
            me.id
        ),
    }
    true
}

/// Records and announces runs marked failed (run id, owning instance); returns their ids.
fn report_failed(inner: &Inner, failed: &[(String, Option<String>)], why: &str) -> Vec<String> {
    for (id, owner) in failed {
        let owner = owner.as_deref().unwrap_or("(none)");
        tracing::warn!("run {id} (instance {owner}) marked failed: {why}");
        inner.record_event(
            Some(id),
            None,
            "state",
            &json!({"event": "state", "state": "failed", "instance": owner, "reason": why}),
        );
    }
    failed.iter().map(|(id, _)| id.clone()).collect()
}
