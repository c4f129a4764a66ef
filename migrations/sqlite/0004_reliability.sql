-- Carriers belong to one active run: a claim per carrier address, taken in the same
-- transaction as the run is created and released when the run ends. The primary key makes
-- the claim exclusive across every service instance sharing this database.
CREATE TABLE carrier_claims (
    address    TEXT PRIMARY KEY,
    run_id     TEXT NOT NULL,
    carrier    TEXT NOT NULL,
    claimed_at TEXT NOT NULL
);
CREATE INDEX carrier_claims_run ON carrier_claims (run_id);
