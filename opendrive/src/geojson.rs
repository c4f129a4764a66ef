//! GeoJSON export (in progress).
