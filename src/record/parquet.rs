//! Parquet export of a run's telemetry and events (the `parquet` crate's column writer; snappy
//! pages). Readable by DuckDB, pandas/pyarrow, Spark.
//!
//! Telemetry columns follow [`TelemetryRow`]; `brake_light` is a BOOLEAN, strings are UTF8,
//! optional fields are nullable. Events: `id, run_id, t, kind, payload (JSON text), created_at`
//! (`TIMESTAMP(MICROS, UTC)`).

use std::io::Write;
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

use crate::store::{EventRow, TelemetryRow};

/// Rows per row group.
const ROW_GROUP: usize = 65_536;

const TELEMETRY_SCHEMA: &str = "message scil_telemetry {
  REQUIRED BYTE_ARRAY run_id (UTF8);
  REQUIRED INT64 seq;
  REQUIRED DOUBLE t;
  REQUIRED BYTE_ARRAY vehicle (UTF8);
  REQUIRED BYTE_ARRAY kind (UTF8);
  REQUIRED DOUBLE x;
  REQUIRED DOUBLE y;
  REQUIRED DOUBLE yaw;
  REQUIRED DOUBLE speed_mps;
  OPTIONAL DOUBLE steering_wheel_deg;
  OPTIONAL BOOLEAN brake_light;
  OPTIONAL BYTE_ARRAY road_id (UTF8);
  OPTIONAL INT32 lane_id;
  OPTIONAL DOUBLE road_s;
  OPTIONAL DOUBLE road_t;
}";

const EVENTS_SCHEMA: &str = "message scil_events {
  REQUIRED INT64 id;
  OPTIONAL BYTE_ARRAY run_id (UTF8);
  OPTIONAL DOUBLE t;
  REQUIRED BYTE_ARRAY kind (UTF8);
  REQUIRED BYTE_ARRAY payload (UTF8);
  REQUIRED INT64 created_at (TIMESTAMP(MICROS,true));
}";

/// One column's values for a row group; `None` = null.
pub(crate) enum Col {
    Str(Vec<Option<String>>),
    F64(Vec<Option<f64>>),
    I64(Vec<Option<i64>>),
    I32(Vec<Option<i32>>),
    Bool(Vec<Option<bool>>),
}

fn split<T: Clone>(v: &[Option<T>]) -> (Vec<T>, Vec<i16>) {
    let vals = v.iter().flatten().cloned().collect();
    let defs = v.iter().map(|x| i16::from(x.is_some())).collect();
    (vals, defs)
}

pub(crate) fn write_file<W: Write + Send>(
    out: W,
    schema: &str,
    groups: impl Iterator<Item = Vec<Col>>,
) -> anyhow::Result<W> {
    let schema = Arc::new(parse_message_type(schema)?);
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_created_by(concat!("scil ", env!("CARGO_PKG_VERSION")).to_string())
            .build(),
    );
    let mut writer = SerializedFileWriter::new(out, schema, props)?;
    for cols in groups {
        let mut rg = writer.next_row_group()?;
        let mut cols = cols.into_iter();
        while let Some(mut cw) = rg.next_column()? {
            let col = cols
                .next()
                .ok_or_else(|| anyhow::anyhow!("parquet: fewer columns than the schema"))?;
            let required = cw_required(&mut cw);
            macro_rules! put {
                ($ty:ty, $v:expr) => {{
                    let (vals, defs) = split(&$v);
                    let defs = if required { None } else { Some(&defs[..]) };
                    cw.typed::<$ty>().write_batch(&vals, defs, None)?;
                }};
            }
            match col {
                Col::Str(v) => {
                    let v: Vec<Option<ByteArray>> = v
                        .into_iter()
                        .map(|s| s.map(|s| ByteArray::from(s.into_bytes())))
                        .collect();
                    put!(ByteArrayType, v)
                }
                Col::F64(v) => put!(DoubleType, v),
                Col::I64(v) => put!(Int64Type, v),
                Col::I32(v) => put!(Int32Type, v),
                Col::Bool(v) => put!(BoolType, v),
            }
            cw.close()?;
        }
        rg.close()?;
    }
    Ok(writer.into_inner()?)
}

fn cw_required(cw: &mut parquet::file::writer::SerializedColumnWriter<'_>) -> bool {
    use parquet::column::writer::ColumnWriter as C;
    let descr = match cw.untyped() {
        C::BoolColumnWriter(w) => w.get_descriptor().clone(),
        C::Int32ColumnWriter(w) => w.get_descriptor().clone(),
        C::Int64ColumnWriter(w) => w.get_descriptor().clone(),
        C::Int96ColumnWriter(w) => w.get_descriptor().clone(),
        C::FloatColumnWriter(w) => w.get_descriptor().clone(),
        C::DoubleColumnWriter(w) => w.get_descriptor().clone(),
        C::ByteArrayColumnWriter(w) => w.get_descriptor().clone(),
        C::FixedLenByteArrayColumnWriter(w) => w.get_descriptor().clone(),
    };
    descr.max_def_level() == 0
}

/// Telemetry rows as a Parquet file written to `out` (returned when done).
pub fn write_telemetry<W: Write + Send>(out: W, rows: &[TelemetryRow]) -> anyhow::Result<W> {
    let groups = rows.chunks(ROW_GROUP.max(1)).map(|rs| {
        vec![
            Col::Str(rs.iter().map(|r| Some(r.run_id.clone())).collect()),
            Col::I64(rs.iter().map(|r| Some(r.seq)).collect()),
            Col::F64(rs.iter().map(|r| Some(r.t)).collect()),
            Col::Str(rs.iter().map(|r| Some(r.vehicle.clone())).collect()),
            Col::Str(rs.iter().map(|r| Some(r.kind.clone())).collect()),
            Col::F64(rs.iter().map(|r| Some(r.x)).collect()),
            Col::F64(rs.iter().map(|r| Some(r.y)).collect()),
            Col::F64(rs.iter().map(|r| Some(r.yaw)).collect()),
            Col::F64(rs.iter().map(|r| Some(r.speed_mps)).collect()),
            Col::F64(rs.iter().map(|r| r.steering_wheel_deg).collect()),
            Col::Bool(rs.iter().map(|r| r.brake_light).collect()),
            Col::Str(rs.iter().map(|r| r.road_id.clone()).collect()),
            Col::I32(rs.iter().map(|r| r.lane_id).collect()),
            Col::F64(rs.iter().map(|r| r.road_s).collect()),
            Col::F64(rs.iter().map(|r| r.road_t).collect()),
        ]
    });
    write_file(out, TELEMETRY_SCHEMA, groups)
}

/// Events as a Parquet file written to `out`.
pub fn write_events<W: Write + Send>(out: W, events: &[EventRow]) -> anyhow::Result<W> {
    let groups = events.chunks(ROW_GROUP.max(1)).map(|es| {
        vec![
            Col::I64(es.iter().map(|e| Some(e.id)).collect()),
            Col::Str(es.iter().map(|e| e.run_id.clone()).collect()),
            Col::F64(es.iter().map(|e| e.t).collect()),
            Col::Str(es.iter().map(|e| Some(e.kind.clone())).collect()),
            Col::Str(es.iter().map(|e| Some(e.payload.clone())).collect()),
            Col::I64(
                es.iter()
                    .map(|e| Some(e.created_at.timestamp_micros()))
                    .collect(),
            ),
        ]
    });
    write_file(out, EVENTS_SCHEMA, groups)
}
