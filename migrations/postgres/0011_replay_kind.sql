-- What a replay's file is (csv, mdf4, vbo, mcap, adma: told by its content at upload), the SHA-256 of
-- its bytes (a second upload of the same file is recognised; NULL for rows stored before) and
-- the column mapping given with it (FIELD=COLUMN[:UNIT], one per line; NULL: none).
ALTER TABLE replays ADD COLUMN kind TEXT NOT NULL DEFAULT 'csv';
ALTER TABLE replays ADD COLUMN sha256 TEXT;
ALTER TABLE replays ADD COLUMN columns TEXT;
