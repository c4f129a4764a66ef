-- Traceable records. Keep in step with ../postgres/0009_records.sql.

-- The audit trail: one row per request that changes something, accepted or refused. `who` is a
-- configured name, "unknown token" or "anonymous"; never a token.
CREATE TABLE audit (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    at      TEXT NOT NULL,
    who     TEXT NOT NULL,
    action  TEXT NOT NULL,
    target  TEXT NOT NULL,
    method  TEXT NOT NULL,
    path    TEXT NOT NULL,
    status  BIGINT NOT NULL,
    detail  TEXT NOT NULL
);
CREATE INDEX audit_at ON audit (at, id);

-- A run's events form a hash chain: each event's hash is SHA-256(previous hash ‖ its canonical
-- content); the run keeps the chain's head and length. Runs stored before are `unchained`.
ALTER TABLE events ADD COLUMN hash TEXT;
ALTER TABLE runs ADD COLUMN unchained BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE runs ADD COLUMN chain_head TEXT;
ALTER TABLE runs ADD COLUMN chain_len BIGINT NOT NULL DEFAULT 0;
UPDATE runs SET unchained = TRUE;
