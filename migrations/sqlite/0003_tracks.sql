-- Tracks: every run belongs to a track of the proving ground (NULL: stored before tracks
-- existed); demo runs (`scil serve --demo`) are marked so that lists can hide them and the
-- service can keep only the newest few.
ALTER TABLE runs ADD COLUMN track TEXT;
ALTER TABLE runs ADD COLUMN demo BOOLEAN NOT NULL DEFAULT 0;
CREATE INDEX runs_track_state ON runs (track, state);
