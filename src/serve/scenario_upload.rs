//! `POST /scenarios` as `multipart/form-data`: an OpenSCENARIO file with the uploader's own
//! catalogs and road network. Parts: `xosc` (the scenario file, required), `file` (repeatable:
//! a catalog file or the .xodr, its part file name the relative path the scenario file names
//! it by, e.g. `../Catalogs/Vehicles/Vehicles.xosc`), and the text fields `id`, `parameters`
//! (a JSON object NAME → value), `map_id`. Relative references resolve against the uploaded
//! files first, else the bundled library ([`crate::xosc::upload`]); an uploaded road network
//! is registered as a map (under its file name's stem) unless that map already holds the same
//! network.

use std::collections::BTreeMap;

use axum::extract::Multipart;

use super::context::valid_id;
use super::error::{ApiError, ApiResult};
use super::state::AppState;
use crate::xosc::upload::{import_upload, UploadFile};

/// A multipart scenario upload, read.
pub struct Form {
    pub id: Option<String>,
    pub map_id: Option<String>,
    pub xosc: String,
    pub file_name: String,
    pub parameters: BTreeMap<String, String>,
    pub files: Vec<UploadFile>,
}

/// Reads the parts (unknown parts, a missing `xosc`, more bytes in all than
/// `limits.document_max_bytes` are refused).
pub async fn read(st: &AppState, mut mp: Multipart) -> ApiResult<Form> {
    let max = st.config.limits.document_max_bytes;
    let mut total: u64 = 0;
    let mut f = Form {
        id: None,
        map_id: None,
        xosc: String::new(),
        file_name: "upload.xosc".into(),
        parameters: BTreeMap::new(),
        files: Vec::new(),
    };
    let mut have_xosc = false;
    while let Some(field) = mp.next_field().await? {
        let name = field.name().unwrap_or("").to_string();
        let file_name = field.file_name().map(str::to_string);
        let bytes = field.bytes().await?;
        total += bytes.len() as u64;
        if total > max {
            return Err(ApiError::PayloadTooLarge(format!(
                "the upload is over {max} bytes (limits.document_max_bytes)"
            )));
        }
        let text = |what: &str| {
            String::from_utf8(bytes.to_vec())
                .map_err(|_| ApiError::Unprocessable(format!("{what} is not UTF-8 text")))
        };
        match name.as_str() {
            "id" => f.id = Some(text("id")?.trim().to_string()),
            "map_id" => f.map_id = Some(text("map_id")?.trim().to_string()),
            "parameters" => {
                f.parameters = serde_json::from_str(&text("parameters")?).map_err(|e| {
                    ApiError::Unprocessable(format!(
                        "parameters: a JSON object of NAME → value text expected: {e}"
                    ))
                })?
            }
            "xosc" => {
                if have_xosc {
                    return Err(ApiError::Unprocessable("more than one 'xosc' part".into()));
                }
                have_xosc = true;
                f.xosc = text("the scenario file")?;
                if let Some(n) = file_name.filter(|n| !n.is_empty()) {
                    f.file_name = super::replays::display_name(&n);
                }
            }
            "file" => {
                let path = file_name.filter(|n| !n.is_empty()).ok_or_else(|| {
                    ApiError::Unprocessable(
                        "a 'file' part needs a file name: the relative path the scenario names it by"
                            .into(),
                    )
                })?;
                f.files.push(UploadFile {
                    path,
                    bytes: bytes.to_vec(),
                });
            }
            other => {
                return Err(ApiError::Unprocessable(format!(
                    "unknown form field '{other}'"
                )))
            }
        }
    }
    if !have_xosc {
        return Err(ApiError::Unprocessable("missing form field 'xosc'".into()));
    }
    Ok(f)
}

/// Imports the upload: the scenario TOML, and the map id of an uploaded road network (stored
/// here when new).
pub async fn import(st: &AppState, f: &Form) -> ApiResult<(String, Option<String>)> {
    let (x, name, params, files) = (
        f.xosc.clone(),
        f.file_name.clone(),
        f.parameters.clone(),
        f.files.clone(),
    );
    let up = tokio::task::spawn_blocking(move || {
        let u = import_upload(&x, &name, &params, &files)?;
        let toml = u.imported.to_toml()?;
        Ok::<_, anyhow::Error>((toml, u.road_network))
    })
    .await
    .map_err(|e| ApiError::Internal(anyhow::anyhow!("import task: {e}")))?
    .map_err(|e| ApiError::Unprocessable(format!("invalid OpenSCENARIO: {e:#}")))?;
    let (toml, road) = up;
    let Some((file, xodr)) = road else {
        return Ok((toml, None));
    };
    let id = super::context::stem(std::path::Path::new(&file));
    if !valid_id(&id) {
        return Err(ApiError::Unprocessable(format!(
            "road network '{file}': '{id}' is no valid map id"
        )));
    }
    if let Some(m) = st.store.get_map(&id).await? {
        if m.xodr != xodr {
            return Err(ApiError::Conflict(format!(
                "road network '{file}': map '{id}' is registered with another network; rename the file"
            )));
        }
        return Ok((toml, Some(id)));
    }
    let st2 = st.clone();
    let (id2, file2) = (id.clone(), file.clone());
    let (row, map) = tokio::task::spawn_blocking(move || st2.map_row(&id2, &file2, xodr, false))
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))??;
    st.store
        .insert_map(&row)
        .await
        .map_err(|e| super::error::conflict_on_duplicate(e, "map", &id))?;
    st.cache_map(&id, map);
    Ok((toml, Some(id)))
}
