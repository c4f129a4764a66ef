-- A finished run's telemetry compacted into columnar chunks (one per vehicle; `chunks` counts
-- them) in one blob `telemetry/<run>`, written in the same transaction that deletes the run's
-- rows and inserts this row. `pruned_ms`: the telemetry was dropped by retention.
CREATE TABLE telemetry_archive (
    run_id       TEXT PRIMARY KEY,
    samples      BIGINT NOT NULL,
    chunks       BIGINT NOT NULL,
    bytes        BIGINT NOT NULL,
    compacted_ms BIGINT NOT NULL,
    pruned_ms    BIGINT
);
