//! The one API error type: every handler returns `Result<_, ApiError>`, and every failure —
//! validation, missing resource, auth, database — becomes `{"error": …, "detail": …}` with the
//! right status code.

use axum::extract::multipart::MultipartError;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unprocessable(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("{0}")]
    Internal(#[from] anyhow::Error),
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Database(_) | ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// Short machine-readable error name.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::NotFound(_) => "not_found",
            ApiError::BadRequest(_) => "bad_request",
            ApiError::Unprocessable(_) => "unprocessable",
            ApiError::Conflict(_) => "conflict",
            ApiError::Unauthorized(_) => "unauthorized",
            ApiError::Forbidden(_) => "forbidden",
            ApiError::PayloadTooLarge(_) => "payload_too_large",
            ApiError::Database(_) => "database_error",
            ApiError::Internal(_) => "internal_error",
        }
    }

    pub fn not_found(what: &str, id: &str) -> ApiError {
        ApiError::NotFound(format!("{what} '{id}' does not exist"))
    }
}

/// A failed insert: 409 naming the resource when the id is taken (the database's unique key
/// decided, so two concurrent creates cannot both succeed), else the database error.
pub fn conflict_on_duplicate(e: sqlx::Error, what: &str, id: &str) -> ApiError {
    if crate::store::is_unique_violation(&e) {
        ApiError::Conflict(format!("{what} '{id}' already exists"))
    } else {
        ApiError::Database(e)
    }
}

/// A fresh id for one failed request: in the 5xx answer and in the log line with the detail.
pub fn request_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..16].to_string()
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let body = if status.is_server_error() {
            // Database and internal detail (SQL, paths, driver messages) only in the log.
            let id = request_id();
            tracing::error!(request_id = %id, "{self:#}");
            json!({
                "error": self.code(),
                "detail": "internal error; the server log has the detail under this request id",
                "request_id": id,
            })
        } else {
            json!({ "error": self.code(), "detail": self.to_string() })
        };
        let mut r = (status, Json(body)).into_response();
        if status == StatusCode::UNAUTHORIZED {
            r.headers_mut().insert(
                axum::http::header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Bearer"),
            );
        }
        r
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        match r {
            JsonRejection::JsonDataError(e) => ApiError::Unprocessable(e.body_text()),
            JsonRejection::MissingJsonContentType(e) => ApiError::BadRequest(e.body_text()),
            other if other.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                ApiError::PayloadTooLarge(other.body_text())
            }
            other => ApiError::BadRequest(other.body_text()),
        }
    }
}

impl From<PathRejection> for ApiError {
    fn from(r: PathRejection) -> Self {
        ApiError::BadRequest(r.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> Self {
        ApiError::Unprocessable(r.body_text())
    }
}

impl From<MultipartError> for ApiError {
    fn from(e: MultipartError) -> Self {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::PayloadTooLarge(e.body_text())
        } else {
            ApiError::BadRequest(e.body_text())
        }
    }
}

/// `Json<T>` whose rejections are [`ApiError`]s.
#[derive(Debug, Clone, Copy, Default, axum::extract::FromRequest)]
#[from_request(via(axum::Json), rejection(ApiError))]
pub struct ApiJson<T>(pub T);

/// For an optional field of a request body: absent is `None` (with `#[serde(default)]`), a
/// value is `Some`, and `null` is refused (the document gives the field's type, not null).
pub fn not_null<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

impl<T: serde::Serialize> IntoResponse for ApiJson<T> {
    fn into_response(self) -> Response {
        Json(self.0).into_response()
    }
}

/// `Query<T>` whose rejections are [`ApiError`]s.
#[derive(Debug, Clone, Copy, Default, axum::extract::FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub struct ApiQuery<T>(pub T);

/// Every error answer in the documented shape: axum's own rejections (a `Path` with bad
/// percent-encoding, a body over the limit, a wrong content type, an unknown method) answer
/// plain text; this middleware rewrites any 4xx/5xx that is not JSON into
/// `{"error", "detail"}` with the same status (a body over the limit is always 413).
pub async fn json_errors(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let r = next.run(req).await;
    let status = r.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return r;
    }
    let is_json = r
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        return r;
    }
    let (parts, body) = r.into_parts();
    let text = axum::body::to_bytes(body, 4096)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let too_large = text.contains("length limit exceeded");
    let status = if too_large {
        StatusCode::PAYLOAD_TOO_LARGE
    } else {
        status
    };
    let e = match status {
        StatusCode::NOT_FOUND => ApiError::NotFound(text),
        StatusCode::UNPROCESSABLE_ENTITY => ApiError::Unprocessable(text),
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::PayloadTooLarge(text),
        StatusCode::UNAUTHORIZED => ApiError::Unauthorized(text),
        StatusCode::FORBIDDEN => ApiError::Forbidden(text),
        StatusCode::CONFLICT => ApiError::Conflict(text),
        s if s.is_server_error() => ApiError::Internal(anyhow::anyhow!("{s}: {text}")),
        _ => {
            let code = match status {
                StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
                StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
                _ => "bad_request",
            };
            let detail = if text.is_empty() {
                status.canonical_reason().unwrap_or("error").to_string()
            } else {
                text
            };
            let mut r = (status, Json(json!({ "error": code, "detail": detail }))).into_response();
            for (k, v) in parts.headers.iter() {
                if k == axum::http::header::ALLOW {
                    r.headers_mut().insert(k, v.clone());
                }
            }
            return r;
        }
    };
    e.into_response()
}

/// Fallback for unknown API paths.
pub async fn not_found_fallback(uri: axum::http::Uri) -> ApiError {
    ApiError::NotFound(format!("no such endpoint: {}", uri.path()))
}
