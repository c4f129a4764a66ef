//! The HTTP state: the shared context, the run supervisor and what only the HTTP side keeps
//! (tokens, the GeoJSON cache, the sweeps, the upload directory). Handles only; handlers reach
//! the context's fields through it directly (`st.store`, `st.config`, …).

use std::ops::Deref;
use std::path::PathBuf;
use std::sync::Arc;

use super::auth::Tokens;
use super::context::{Ctx, Shared};
use super::geojson_cache::GeoCache;
use super::supervisor::Supervisor;
use super::sweep_jobs::Registry;

/// Cheaply cloneable handle to the service state.
#[derive(Clone)]
pub struct AppState(pub Arc<Inner>);

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

pub struct Inner {
    pub ctx: Ctx,
    /// Owns every active run of this instance, from create to stored result.
    pub supervisor: Supervisor,
    pub tokens: Tokens,
    /// Set when no operator token was configured and one was generated at startup.
    pub generated_operator_token: Option<String>,
    /// Generated `/maps/{id}/geojson` documents, bounded by `limits.geojson_cache_bytes`.
    pub geojson: GeoCache,
    /// Sweeps run by the service.
    pub sweeps: Registry,
    pub upload_dir: PathBuf,
}

impl Deref for Inner {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.ctx
    }
}
