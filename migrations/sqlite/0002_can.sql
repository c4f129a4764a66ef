-- CAN in runs: the wheel speed fused from CAN, and DBCs registered with the service.
ALTER TABLE telemetry ADD COLUMN wheel_speed_mps REAL;

CREATE TABLE dbcs (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    file_name TEXT NOT NULL,
    text TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    messages INTEGER NOT NULL,
    bundled BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TEXT NOT NULL
);
