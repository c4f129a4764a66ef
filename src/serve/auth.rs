//! Bearer-token auth with two roles.
//!
//! * `operator`: every mutating endpoint (create/arm/start/abort runs, uploads, registering
//!   scenarios and maps) takes the [`Operator`] extractor.
//! * `viewer`: read endpoints take [`Reader`]; they are open unless
//!   `auth.read_requires_token = true`, then a viewer or operator token is needed.
//!
//! Every token belongs to a name: the people of `[[operators]]` / `[[viewers]]` (the file keeps
//! only each token's SHA-256) and `SCIL_OPERATORS` / `SCIL_VIEWERS` (`alice=TOKEN,…`); the
//! unnamed tokens of `[auth]`, `SCIL_OPERATOR_TOKEN` and `SCIL_VIEWER_TOKEN` are named
//! `operator` and `viewer`. The name is what the audit trail and a run's events show. With no
//! operator token configured, `scil serve` generates one at startup and prints it.
//! Browsers cannot set headers on a WebSocket, so `?token=…` is accepted as well.
//! Tokens are compared in constant time.

use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::config::{Config, NamedToken};
use super::error::ApiError;
use super::state::AppState;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    Viewer,
    Operator,
}

/// What a token is compared with: the token itself, or its SHA-256.
#[derive(Clone)]
pub enum Secret {
    Clear(String),
    Sha256([u8; 32]),
}

/// A token and the name of the person (or role) it belongs to.
#[derive(Clone)]
pub struct Person {
    pub name: String,
    pub secret: Secret,
}

impl Person {
    pub fn clear(name: &str, token: &str) -> Person {
        Person {
            name: name.into(),
            secret: Secret::Clear(token.into()),
        }
    }

    /// Constant time in the token's content.
    fn holds(&self, token: &str) -> bool {
        match &self.secret {
            Secret::Clear(t) => ct_eq(t.as_bytes(), token.as_bytes()),
            Secret::Sha256(d) => ct_eq(d, &Sha256::digest(token.as_bytes())),
        }
    }
}

#[derive(Clone, Default)]
pub struct Tokens {
    pub operator: Vec<Person>,
    pub viewer: Vec<Person>,
    pub read_requires_token: bool,
}

fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn people(list: &[NamedToken]) -> Vec<Person> {
    list.iter()
        .filter_map(|n| {
            let secret = match (&n.token, &n.token_sha256) {
                (Some(t), _) => Secret::Clear(t.clone()),
                (None, Some(h)) => Secret::Sha256(hex32(h)?),
                (None, None) => return None,
            };
            Some(Person {
                name: n.name.clone(),
                secret,
            })
        })
        .collect()
}

/// 64 hex digits as 32 bytes.
fn hex32(h: &str) -> Option<[u8; 32]> {
    let b = h.as_bytes();
    if b.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        let s = std::str::from_utf8(&b[2 * i..2 * i + 2]).ok()?;
        *o = u8::from_str_radix(s, 16).ok()?;
    }
    Some(out)
}

impl Tokens {
    /// The configured people: named ones, then the unnamed tokens as `operator` / `viewer`.
    pub fn from_config(c: &Config) -> Tokens {
        let mut operator = people(&c.operators);
        operator.extend(
            c.auth
                .operator_tokens
                .iter()
                .map(|t| Person::clear("operator", t)),
        );
        let mut viewer = people(&c.viewers);
        viewer.extend(
            c.auth
                .viewer_tokens
                .iter()
                .map(|t| Person::clear("viewer", t)),
        );
        Tokens {
            operator,
            viewer,
            read_requires_token: c.auth.read_requires_token,
        }
    }

    /// The role and name of a token. Every entry is compared (no early exit).
    pub fn person_of(&self, token: &str) -> Option<(Role, &str)> {
        fn hit(list: &[Person], token: &str) -> Option<usize> {
            list.iter().enumerate().fold(
                None,
                |f, (i, p)| {
                    if p.holds(token) {
                        f.or(Some(i))
                    } else {
                        f
                    }
                },
            )
        }
        let op = hit(&self.operator, token);
        let view = hit(&self.viewer, token);
        match (op, view) {
            (Some(i), _) => Some((Role::Operator, &self.operator[i].name)),
            (None, Some(i)) => Some((Role::Viewer, &self.viewer[i].name)),
            (None, None) => None,
        }
    }

    pub fn role_of(&self, token: &str) -> Option<Role> {
        self.person_of(token).map(|(r, _)| r)
    }

    /// Who sent a request, as the audit trail names them: a name, `unknown token`, or
    /// `anonymous` (no token). Never the token.
    pub fn who(&self, parts: &Parts) -> String {
        match token_of(parts) {
            None => "anonymous".into(),
            Some(t) => match self.person_of(&t) {
                Some((_, name)) => name.to_string(),
                None => "unknown token".into(),
            },
        }
    }
}

/// The bearer token of a request: `Authorization: Bearer …`, else `?token=…` on GET/HEAD only
/// (reads and WebSocket upgrades, which browsers cannot give a header): an operator token in a
/// POST URL would end up in proxy and access logs.
pub fn token_of(parts: &Parts) -> Option<String> {
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

/// The person a request's token names (`None`: no token, or an unknown one).
pub struct SignedIn(pub Option<(Role, String)>);

impl FromRequestParts<AppState> for SignedIn {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        Ok(SignedIn(token_of(parts).and_then(|t| {
            state.tokens.person_of(&t).map(|(r, n)| (r, n.to_string()))
        })))
    }
}

pub fn router() -> Router<AppState> {
    Router::new().route("/whoami", get(whoami))
}

/// `GET /whoami`: the name and role the request's token stands for (the dashboard shows who
/// is signed in): `{"name": "alice", "role": "operator"}`, or nulls without a known token.
async fn whoami(State(_st): State<AppState>, who: SignedIn) -> Response {
    let (name, role) = match who.0 {
        Some((r, n)) => (
            json!(n),
            json!(if r == Role::Operator {
                "operator"
            } else {
                "viewer"
            }),
        ),
        None => (json!(null), json!(null)),
    };
    axum::Json(json!({"name": name, "role": role})).into_response()
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
        let mut c = Config::default();
        c.auth.operator_tokens = vec!["op".into()];
        c.auth.viewer_tokens = vec!["view".into()];
        c.apply_env(|k| (k == "SCIL_OPERATORS").then(|| "alice=a1, bob=b2".into()));
        // carol's token is "c3", given as its SHA-256 (as in scil.toml).
        c.viewers.push(NamedToken {
            name: "carol".into(),
            token_sha256: Some(format!("{:x}", Sha256::digest(b"c3"))),
            ..NamedToken::default()
        });
        c.validate().unwrap();
        let t = Tokens::from_config(&c);
        assert_eq!(t.role_of("op"), Some(Role::Operator));
        assert_eq!(t.person_of("op"), Some((Role::Operator, "operator")));
        assert_eq!(t.person_of("a1"), Some((Role::Operator, "alice")));
        assert_eq!(t.person_of("b2"), Some((Role::Operator, "bob")));
        assert_eq!(t.person_of("c3"), Some((Role::Viewer, "carol")));
        assert_eq!(t.role_of("view"), Some(Role::Viewer));
        assert_eq!(t.role_of("vie"), None);
        assert_eq!(t.role_of("alice"), None);
        assert!(Role::Operator > Role::Viewer);
    }

    #[test]
    fn bad_people_are_refused_without_their_token() {
        for (env, needle) in [
            ("secret-no-name", "entry 1 needs a name"),
            ("alice=secret1,alice=secret2", "named twice"),
            ("alice=", "has no token"),
        ] {
            let mut c = Config::default();
            c.apply_env(|k| (k == "SCIL_OPERATORS").then(|| env.into()));
            let e = c.validate().unwrap_err().to_string();
            assert!(
                e.contains(needle) && e.contains("SCIL_OPERATORS"),
                "{env}: {e}"
            );
            assert!(!e.contains("secret"), "{e}");
        }
        let bad: Config =
            toml::from_str("[[operators]]\nname = \"dan\"\ntoken_sha256 = \"abc\"\n").unwrap();
        assert!(bad.validate().unwrap_err().to_string().contains("64 hex"));
        // A clear token in the file is refused: only its digest may be stored.
        assert!(
            toml::from_str::<Config>("[[operators]]\nname = \"dan\"\ntoken = \"t\"\n").is_err()
        );
    }
}
