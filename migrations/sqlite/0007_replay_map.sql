-- The map a replay was recorded on, when known (its scenario's map, the map given at upload, or
-- the bundled proving ground for the bundled recordings): a run refuses a replay of another map.
ALTER TABLE replays ADD COLUMN map_id TEXT;
