//! The schema's migrations, embedded in the binary: `migrations/sqlite` and
//! `migrations/postgres`, each file as sqlx reads a migration folder (`<version>_<words>.sql`,
//! the words with `_` for spaces; a file starting `-- no-transaction` runs outside one).
//!
//! They are listed here rather than read by `sqlx::migrate!`: that macro lives in sqlx's macro
//! crate, which brings a build-time copy of both database drivers into every build. A database
//! migrated by either way holds the same versions and checksums (the test below compares them
//! with sqlx's own reading of the folders), and a file added to a folder but not here fails
//! that test.

use std::borrow::Cow;

use futures_util::future::BoxFuture;
use sqlx::error::BoxDynError;
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};

/// Both backends' migration files, (file name, SQL) each: the two folders hold the same files
/// (the schema is kept in step; only the SQL dialect differs).
macro_rules! folders {
    ($($file:literal),* $(,)?) => {
        pub const SQLITE: &[(&str, &str)] =
            &[$(($file, include_str!(concat!("../../migrations/sqlite/", $file)))),*];
        pub const POSTGRES: &[(&str, &str)] =
            &[$(($file, include_str!(concat!("../../migrations/postgres/", $file)))),*];
    };
}

folders!(
    "0001_init.sql",
    "0002_can.sql",
    "0003_tracks.sql",
    "0004_reliability.sql",
    "0005_instances.sql",
    "0006_series.sql",
    "0007_replay_map.sql",
    "0008_safety.sql",
    "0009_records.sql",
    "0010_telemetry_archive.sql",
    "0011_replay_kind.sql",
);

/// A list of embedded migration files as a source sqlx's [`Migrator`] reads.
#[derive(Debug, Clone, Copy)]
pub struct Embedded(pub &'static [(&'static str, &'static str)]);

impl Embedded {
    /// The migrations, in version order, named as sqlx names a folder's files.
    pub fn migrations(self) -> Result<Vec<Migration>, String> {
        let mut out = Vec::with_capacity(self.0.len());
        for (file, sql) in self.0 {
            let (version, rest) = file
                .split_once('_')
                .filter(|(_, rest)| rest.ends_with(".sql"))
                .ok_or_else(|| format!("migration {file}: not <version>_<words>.sql"))?;
            let version: i64 = version
                .parse()
                .map_err(|_| format!("migration {file}: the version is not a number"))?;
            let kind = MigrationType::from_filename(rest);
            let description = rest.trim_end_matches(kind.suffix()).replace('_', " ");
            out.push(Migration::new(
                version,
                Cow::Owned(description),
                kind,
                Cow::Borrowed(sql),
                sql.starts_with("-- no-transaction"),
            ));
        }
        out.sort_by_key(|m| m.version);
        Ok(out)
    }

    /// The migrator of these migrations.
    pub async fn migrator(self) -> anyhow::Result<Migrator> {
        Migrator::new(self)
            .await
            .map_err(|e| anyhow::anyhow!("embedded migrations: {e}"))
    }
}

impl MigrationSource<'static> for Embedded {
    fn resolve(self) -> BoxFuture<'static, Result<Vec<Migration>, BoxDynError>> {
        Box::pin(async move { self.migrations().map_err(BoxDynError::from) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same versions, descriptions, kinds, checksums and SQL as sqlx reads from the folder,
    /// and every file of the folder embedded.
    async fn same_as_folder(dir: &str, embedded: Embedded) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let folder = Migrator::new(path.as_path())
            .await
            .expect("sqlx reads the folder");
        let ours = embedded.migrator().await.expect("embedded");
        let key = |m: &Migration| {
            (
                m.version,
                m.description.to_string(),
                m.migration_type.label().to_string(),
                m.checksum.to_vec(),
                m.sql.to_string(),
                m.no_tx,
            )
        };
        let a: Vec<_> = folder.iter().map(key).collect();
        let b: Vec<_> = ours.iter().map(key).collect();
        assert_eq!(
            a.iter().map(|k| k.0).collect::<Vec<_>>(),
            b.iter().map(|k| k.0).collect::<Vec<_>>(),
            "{dir}: every file of the folder is listed in src/store/migrations.rs"
        );
        assert_eq!(a, b, "{dir}: embedded as sqlx reads it");
    }

    #[tokio::test]
    async fn embedded_migrations_are_the_folders() {
        same_as_folder("migrations/sqlite", Embedded(SQLITE)).await;
        same_as_folder("migrations/postgres", Embedded(POSTGRES)).await;
    }

    #[test]
    fn a_badly_named_file_is_an_error_naming_it() {
        let e = Embedded(&[("init.sql", "SELECT 1")])
            .migrations()
            .unwrap_err();
        assert!(e.contains("init.sql"), "{e}");
    }
}
