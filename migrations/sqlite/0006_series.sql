-- Test series: a rating-tool workbook (Euro NCAP 2026 crash avoidance) planned point by point,
-- each point's attempts (runs) and the measured values that count. Keep in step with
-- ../postgres/0006_series.sql.

CREATE TABLE series (
    id               TEXT PRIMARY KEY,
    name             TEXT NOT NULL,
    workbook         BLOB NOT NULL,
    workbook_bytes   BIGINT NOT NULL,
    map_id           TEXT NOT NULL,
    junction_map_id  TEXT,
    track            TEXT,
    points           BIGINT NOT NULL,
    runnable         BIGINT NOT NULL,
    created_at       TEXT NOT NULL
);

-- One row per verification point, in the workbook's order (idx). `state`: planned, running,
-- valid (its value is measured, its baseline run is still due), invalid (the last attempt was
-- invalid: run it again), done, not_runnable (`reason` says why).
CREATE TABLE series_points (
    series_id      TEXT NOT NULL REFERENCES series (id) ON DELETE CASCADE,
    idx            BIGINT NOT NULL,
    sheet          TEXT NOT NULL,
    row_no         BIGINT NOT NULL,
    scenario       TEXT NOT NULL,
    test_point     TEXT,
    expected       TEXT NOT NULL,
    baseline_expected TEXT,
    prediction     TEXT,
    catalogue_row  TEXT,
    params         TEXT NOT NULL,
    scenario_toml  TEXT,
    junction       BOOLEAN NOT NULL DEFAULT 0,
    reason         TEXT,
    state          TEXT NOT NULL,
    value          DOUBLE PRECISION,
    baseline_value DOUBLE PRECISION,
    updated_at     TEXT NOT NULL,
    PRIMARY KEY (series_id, idx)
);

-- Every run of a point, kept: `kind` test or baseline; `state` running, valid, invalid,
-- failed (the run did not finish, or its value could not be measured; `note` says why).
CREATE TABLE series_attempts (
    series_id   TEXT NOT NULL,
    idx         BIGINT NOT NULL,
    attempt     BIGINT NOT NULL,
    run_id      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    state       TEXT NOT NULL,
    value       DOUBLE PRECISION,
    note        TEXT,
    options     TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    ended_at    TEXT,
    PRIMARY KEY (series_id, idx, attempt),
    FOREIGN KEY (series_id, idx) REFERENCES series_points (series_id, idx) ON DELETE CASCADE
);
CREATE INDEX series_attempts_run ON series_attempts (run_id);
CREATE INDEX series_attempts_state ON series_attempts (state);
