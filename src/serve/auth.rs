//! Bearer-token auth with two roles.
//!
//! * `operator`: every mutating endpoint (create/arm/start/abort runs, uploads, registering
//!   scenarios and maps) takes the [`Operator`] extractor.
//! * `viewer`: read endpoints take [`Reader`]; they are open unless
//!   `auth.read_requires_token = true`, then a viewer or operator token is needed.
//!
//! Tokens come from the config file and `SCIL_OPERATOR_TOKEN` / `SCIL_VIEWER_TOKEN`. With no
//! operator token configured, `scil serve` generates one at startup and prints it.
//! Browsers cannot set headers on a WebSocket, so `?token=…` is accepted as well.
//! Tokens are compared in constant time.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use super::error::ApiError;
use super::state::AppState;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    Viewer,
    Operator,
}

#[derive(Debug, Clone, Default)]
pub struct Tokens {
    pub operator: Vec<String>,
    pub viewer: Vec<String>,
    pub read_requires_token: bool,
}

fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl Tokens {
    pub fn role_of(&self, token: &str) -> Option<Role> {
        let hit = |list: &[String]| {
            list.iter()
                .fold(false, |f, t| f | ct_eq(t.as_bytes(), token.as_bytes()))
        };
        if hit(&self.operator) {
            Some(Role::Operator)
        } else if hit(&self.viewer) {
            Some(Role::Viewer)
        } else {
            None
        }
    }
}

/// The bearer token of a request: `Authorization: Bearer …`, else `?token=…` on GET/HEAD only
/// (reads and WebSocket upgrades, which browsers cannot give a header): an operator token in a
/// POST URL would end up in proxy and access logs.
fn token_of(parts: &Parts) -> Option<String> {
    if let Some(v) = parts.headers.get(axum::http::header::AUTHORIZATION) {
        let v = v.to_str().ok()?.trim();
        let (scheme, rest) = v.split_once(' ')?;
        return scheme
            .eq_ignore_ascii_case("bearer")
            .then(|| rest.trim().to_string());
    }
    if !matches!(
        parts.method,
        axum::http::Method::GET | axum::http::Method::HEAD
    ) {
        return None;
    }
    parts.uri.query().and_then(|q| {
        q.split('&')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == "token")
            .map(|(_, v)| v.to_string())
    })
}

fn check(parts: &Parts, state: &AppState, need: Role) -> Result<Option<Role>, ApiError> {
    let tokens = &state.tokens;
    let Some(tok) = token_of(parts) else {
        let query_token = parts
            .uri
            .query()
            .is_some_and(|q| q.split('&').any(|kv| kv.starts_with("token=")));
        if query_token && need == Role::Operator {
            return Err(ApiError::Unauthorized(
                "?token= is accepted only on GET and WebSocket upgrades; \
                 send Authorization: Bearer <token>"
                    .into(),
            ));
        }
        if need == Role::Viewer && !tokens.read_requires_token {
            return Ok(None);
        }
        return Err(ApiError::Unauthorized(format!(
            "this endpoint needs an {} token: Authorization: Bearer <token>",
            if need == Role::Operator {
                "operator"
            } else {
                "viewer or operator"
            }
        )));
    };
    match tokens.role_of(&tok) {
        None => Err(ApiError::Unauthorized("unknown token".into())),
        Some(r) if r >= need => Ok(Some(r)),
        Some(_) => Err(ApiError::Forbidden(
            "this endpoint needs the operator role".into(),
        )),
    }
}

/// Proof that the request carries an operator token.
pub struct Operator;

impl FromRequestParts<AppState> for Operator {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        check(parts, state, Role::Operator).map(|_| Operator)
    }
}

/// A request allowed to read (open unless `read_requires_token`).
pub struct Reader;

impl FromRequestParts<AppState> for Reader {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        check(parts, state, Role::Viewer).map(|_| Reader)
    }
}

/// A fresh random token (printed at startup when none is configured).
pub fn generate_token() -> String {
    format!("scil-{}", uuid::Uuid::new_v4().simple())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles() {
        let t = Tokens {
            operator: vec!["op".into()],
            viewer: vec!["view".into()],
            read_requires_token: false,
        };
        assert_eq!(t.role_of("op"), Some(Role::Operator));
        assert_eq!(t.role_of("view"), Some(Role::Viewer));
        assert_eq!(t.role_of("vie"), None);
        assert!(Role::Operator > Role::Viewer);
    }
}
