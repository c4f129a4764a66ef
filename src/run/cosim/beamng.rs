//! BeamNG.tech vehicleSystemsCoupling (placeholder, filled below).
