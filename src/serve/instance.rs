//! This instance among several sharing one database: its id (`instance_id`, SCIL_INSTANCE_ID,
//! default the host name), its lease on the runs it executes (renewed every third of
//! `lease_s` by a heartbeat task), the startup and periodic clean-up of runs whose owner is
//! gone, and the 409 for control requests on another instance's run.

use std::time::Duration;

use chrono::Utc;

use super::error::ApiError;
use crate::store::{InstanceRow, RunRow, Store};

/// This instance.
#[derive(Debug, Clone)]
pub struct Instance {
    pub id: String,
    pub host: String,
    pub lease: Duration,
}

/// The host name (`gethostname`), or `scil` when there is none.
pub fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname writes at most that many bytes.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    let name = String::from_utf8_lossy(&buf[..end]).trim().to_string();
    if rc != 0 || name.is_empty() {
        "scil".into()
    } else {
        name
    }
}

/// Checks a configured instance id: 1–64 characters of letters, digits, `-`, `_`, `.`.
pub fn check_id(id: &str) -> anyhow::Result<()> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !ok {
        anyhow::bail!(
            "instance_id (SCIL_INSTANCE_ID) '{id}': use 1 to 64 letters, digits, '-', '_' or '.'"
        );
    }
    Ok(())
}

pub fn now_ms() -> i64 {
    Utc::now().timestamp_millis()
}

pub fn ms(d: Duration) -> i64 {
    d.as_millis().min(i64::MAX as u128) as i64
}

impl Instance {
    /// From the configuration (the id checked, the lease bounded).
    pub fn from_config(c: &super::config::Config) -> anyhow::Result<Instance> {
        let host = host_name();
        let id = c.instance_id.clone().unwrap_or_else(|| {
            host.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                        c
                    } else {
                        '-'
                    }
                })
                .take(64)
                .collect()
        });
        check_id(&id)?;
        Ok(Instance {
            id,
            host,
            lease: c.lease()?,
        })
    }

    /// Takes the lease and fails the runs left over by this instance's previous process, the
    /// runs without an owner and those of instances whose lease has expired.
    pub async fn claim(&self, store: &Store) -> anyhow::Result<Vec<(String, Option<String>)>> {
        let now = now_ms();
        if let Some(prev) = store.get_instance(&self.id).await? {
            // A restart on the same host takes its own lease over; a live lease held from
            // another host means two machines were given the same instance_id.
            if prev.lease_until_ms >= now && prev.host != self.host {
                tracing::warn!(
                    "instance id '{}' holds a live lease from host {} (pid {}): two machines configured with the same instance_id take each other's runs",
                    self.id,
                    prev.host,
                    prev.pid
                );
            }
        }
        store
            .put_instance(&InstanceRow {
                id: self.id.clone(),
                host: self.host.clone(),
                pid: i64::from(std::process::id()),
                started_ms: now,
                heartbeat_ms: now,
                lease_until_ms: now + ms(self.lease),
            })
            .await?;
        Ok(store
            .fail_runs_at_startup(&self.id, now, Utc::now())
            .await?)
    }
}

/// 409 for a control request on a run that another instance executes (its carriers and live
/// sources are on that instance's network), `None` for this instance's or a finished run.
pub fn foreign_owner(me: &Instance, row: &RunRow, action: &str) -> Option<ApiError> {
    let owner = row.instance.as_deref()?;
    let active = matches!(row.state.as_str(), "created" | "armed" | "running");
    (owner != me.id && active).then(|| {
        ApiError::Conflict(format!(
            "cannot {action} run '{}' here: it is {} on instance '{owner}' (its carriers and sources are on that instance's network); send the request to instance '{owner}'",
            row.id, row.state
        ))
    })
}

