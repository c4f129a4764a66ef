-- CAN in runs: the wheel speed fused from CAN, and DBCs registered with the service.
ALTER TABLE telemetry ADD COLUMN wheel_speed_mps DOUBLE PRECISION;

CREATE TABLE dbcs (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    file_name TEXT NOT NULL,
    text TEXT NOT NULL,
    bytes BIGINT NOT NULL,
    messages BIGINT NOT NULL,
    bundled BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMPTZ NOT NULL
);
