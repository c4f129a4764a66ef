//! This instance among several sharing one database: its id (`instance_id`, SCIL_INSTANCE_ID,
//! default `<host>-<port>`), its lease on the runs it executes (renewed every third of
//! `lease_s` by a heartbeat task; a live lease of another process refuses the start), the
//! startup and periodic clean-up of runs whose owner is gone, and the 409 for control requests
//! on another instance's run.

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

/// The default id on a host: its name and the port this instance listens on (two instances on
/// one host cannot listen on one port), characters other than letters, digits, `-`, `_` and
/// `.` replaced by `-`, at most 64 characters.
pub fn default_id(host: &str, port: u16) -> String {
    let suffix = format!("-{port}");
    let keep = 64 - suffix.len();
    let mut id: String = host
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .take(keep)
        .collect();
    id.push_str(&suffix);
    id
}

/// Whether process `pid` exists on this host.
fn process_alive(pid: i64) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Why this process may not take instance `id`'s lease from `holder`.
fn refusal(id: &str, holder: &InstanceRow) -> anyhow::Error {
    let until = chrono::DateTime::<Utc>::from_timestamp_millis(holder.lease_until_ms)
        .map_or_else(|| holder.lease_until_ms.to_string(), |t| t.to_rfc3339());
    anyhow::anyhow!(
        "instance id '{id}' is in use: another scil process holds its lease (host {}, pid {}, lease until {until}). Give this instance its own id (instance_id, SCIL_INSTANCE_ID), or stop that process; to restart an instance whose process crashed on another machine before its lease expires, start with --take-over-instance (SCIL_TAKE_OVER_INSTANCE=1)",
        holder.host,
        holder.pid
    )
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
    /// runs without an owner and those of instances whose lease has expired. Refuses while
    /// another live process holds the id's lease, unless `take_over`; a lease left by a process
    /// of this host that no longer exists (a crash) is taken over.
    pub async fn claim(
        &self,
        store: &Store,
        take_over: bool,
    ) -> anyhow::Result<Vec<(String, Option<String>)>> {
        let now = now_ms();
        let pid = i64::from(std::process::id());
        let mut force = take_over;
        if let Some(prev) = store.get_instance(&self.id).await? {
            let live = prev.lease_until_ms >= now;
            let mine = prev.host == self.host && prev.pid == pid;
            if live && !mine && !force {
                if prev.host == self.host && !process_alive(prev.pid) {
                    tracing::warn!(
                        "instance {}: the lease of pid {} on this host is taken over (that process is gone)",
                        self.id,
                        prev.pid
                    );
                    force = true;
                } else {
                    return Err(refusal(&self.id, &prev));
                }
            } else if live && !mine {
                tracing::warn!(
                    "instance {}: taking over the live lease of host {} (pid {})",
                    self.id,
                    prev.host,
                    prev.pid
                );
            }
        }
        let row = InstanceRow {
            id: self.id.clone(),
            host: self.host.clone(),
            pid,
            started_ms: now,
            heartbeat_ms: now,
            lease_until_ms: now + ms(self.lease),
        };
        if !store.claim_instance(&row, force).await? {
            // Another process took it between the look and the claim.
            return Err(match store.get_instance(&self.id).await? {
                Some(holder) => refusal(&self.id, &holder),
                None => anyhow::anyhow!("instance id '{}': the lease could not be taken", self.id),
            });
        }
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
