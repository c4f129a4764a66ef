-- scil service schema, PostgreSQL dialect. Keep in step with ../sqlite/0001_init.sql: same tables,
-- columns and meaning; only the types differ (TIMESTAMPTZ, BOOLEAN, BIGSERIAL).

CREATE TABLE maps (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    file_name     TEXT NOT NULL,
    xodr          TEXT NOT NULL,
    bytes         BIGINT NOT NULL,
    roads         BIGINT NOT NULL,
    geo_reference TEXT,
    bundled       BOOLEAN NOT NULL DEFAULT FALSE,
    created_at    TIMESTAMPTZ NOT NULL
);

CREATE TABLE scenarios (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    map_id      TEXT,
    toml        TEXT NOT NULL,
    bundled     BOOLEAN NOT NULL DEFAULT FALSE,
    created_at  TIMESTAMPTZ NOT NULL
);

CREATE TABLE replays (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    scenario_id TEXT,
    path        TEXT NOT NULL,
    bytes       BIGINT NOT NULL,
    row_count   BIGINT NOT NULL,
    bundled     BOOLEAN NOT NULL DEFAULT FALSE,
    created_at  TIMESTAMPTZ NOT NULL
);

CREATE TABLE runs (
    id          TEXT PRIMARY KEY,
    state       TEXT NOT NULL,
    scenario_id TEXT NOT NULL,
    map_id      TEXT,
    source      TEXT NOT NULL,
    speed       DOUBLE PRECISION,
    error       TEXT,
    created_at  TIMESTAMPTZ NOT NULL,
    armed_at    TIMESTAMPTZ,
    started_at  TIMESTAMPTZ,
    finished_at TIMESTAMPTZ
);
CREATE INDEX runs_created ON runs (created_at);

CREATE TABLE events (
    id         BIGSERIAL PRIMARY KEY,
    run_id     TEXT,
    t          DOUBLE PRECISION,
    kind       TEXT NOT NULL,
    payload    TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX events_run ON events (run_id, id);

CREATE TABLE telemetry (
    run_id             TEXT NOT NULL,
    seq                BIGINT NOT NULL,
    t                  DOUBLE PRECISION NOT NULL,
    vehicle            TEXT NOT NULL,
    kind               TEXT NOT NULL,
    x                  DOUBLE PRECISION NOT NULL,
    y                  DOUBLE PRECISION NOT NULL,
    yaw                DOUBLE PRECISION NOT NULL,
    speed_mps          DOUBLE PRECISION NOT NULL,
    steering_wheel_deg DOUBLE PRECISION,
    brake_light        BOOLEAN,
    road_id            TEXT,
    lane_id            INTEGER,
    road_s             DOUBLE PRECISION,
    road_t             DOUBLE PRECISION,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX telemetry_run_t ON telemetry (run_id, t);

CREATE TABLE results (
    run_id     TEXT PRIMARY KEY,
    result     TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
