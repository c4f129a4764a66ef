-- Why a run was aborted, as data (JSON: kind, object, value, limit, text): the dashboard and the
-- report show its text, tools read its fields.
ALTER TABLE runs ADD COLUMN abort TEXT;
-- A map's geofence (JSON: permitted polygon, forbidden polygons, the map's metres), set with
-- PUT /maps/{id}/geofence.
CREATE TABLE map_geofences (
    map_id TEXT PRIMARY KEY,
    geofence TEXT NOT NULL
);
