-- Several scil instances on one database: each run names the instance that executes it, and
-- each instance holds a lease (renewed by its heartbeat) on the runs it owns. Times in
-- milliseconds since the Unix epoch (compared across instances; keep their clocks in NTP sync).
ALTER TABLE runs ADD COLUMN instance TEXT;
CREATE INDEX runs_instance_state ON runs (instance, state);

CREATE TABLE instances (
    id              TEXT PRIMARY KEY,
    host            TEXT NOT NULL,
    pid             BIGINT NOT NULL,
    started_ms      BIGINT NOT NULL,
    heartbeat_ms    BIGINT NOT NULL,
    lease_until_ms  BIGINT NOT NULL
);
