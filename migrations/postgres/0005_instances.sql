-- Several scil instances on one database: each run names the instance that executes it, and
-- each instance holds a lease (renewed by its heartbeat) on the runs it owns. Times in
-- milliseconds since the Unix epoch (compared across instances; keep their clocks in NTP sync).
ALTER TABLE runs ADD COLUMN instance TEXT;
-- Unfinished runs are few: the lease checks find them by state.
CREATE INDEX runs_state_instance ON runs (state, instance);

CREATE TABLE instances (
    id              TEXT PRIMARY KEY,
    host            TEXT NOT NULL,
    pid             BIGINT NOT NULL,
    started_ms      BIGINT NOT NULL,
    heartbeat_ms    BIGINT NOT NULL,
    lease_until_ms  BIGINT NOT NULL
);

-- Files every instance can read (uploaded replays, run recordings; maps, scenarios and DBCs
-- are stored as text in their own tables): chunks of at most 1 MiB, visible once complete.
CREATE TABLE blobs (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    bytes       BIGINT NOT NULL,
    chunks      BIGINT NOT NULL,
    complete    BOOLEAN NOT NULL DEFAULT FALSE,
    created_ms  BIGINT NOT NULL
);

CREATE TABLE blob_chunks (
    blob_id  TEXT NOT NULL,
    seq      BIGINT NOT NULL,
    data     BYTEA NOT NULL,
    PRIMARY KEY (blob_id, seq)
);

-- The run list pages by key (created_at, id), newest first.
CREATE INDEX runs_created_id ON runs (created_at, id);
DROP INDEX runs_created;
