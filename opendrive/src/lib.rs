//! ASAM OpenDRIVE road manager (work in progress).
