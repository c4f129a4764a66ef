//! Writer (see below).
