//! Error type for loading OpenDRIVE files.
//!
//! Every error about the content of a file names the element and, where it applies, the
//! attribute and the line, because a map author fixing a 2 MB file needs to find the spot.

use thiserror::Error;

/// Failure to read or interpret an OpenDRIVE document.
#[derive(Debug, Error)]
pub enum Error {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// Path that was opened.
        path: String,
        /// Underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The XML itself is not well-formed.
    #[error("XML syntax error at line {line}: {message}")]
    Xml {
        /// 1-based line of the error.
        line: usize,
        /// What the XML reader reported.
        message: String,
    },
    /// A required attribute is absent.
    #[error("<{element}> at line {line}: missing required attribute \"{attribute}\"")]
    MissingAttribute {
        /// Element name.
        element: String,
        /// Attribute name.
        attribute: String,
        /// 1-based line.
        line: usize,
    },
    /// An attribute is present but its value is not acceptable.
    #[error("<{element}> at line {line}: attribute \"{attribute}\" = \"{value}\": {reason}")]
    InvalidAttribute {
        /// Element name.
        element: String,
        /// Attribute name.
        attribute: String,
        /// The raw value as written in the file.
        value: String,
        /// Why it was rejected.
        reason: String,
        /// 1-based line.
        line: usize,
    },
    /// The document structure is not usable (e.g. no `<OpenDRIVE>` root, a road without geometry).
    #[error("invalid OpenDRIVE structure: {0}")]
    Structure(String),
}
