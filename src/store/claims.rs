//! Carrier claims: a carrier (its ISO 22133 address) belongs to at most one active run.
//!
//! A claim is a row of `carrier_claims` whose primary key is the address. A run with real
//! carriers is inserted together with its claims in ONE transaction
//! ([`Store::insert_run_claiming`]): either the run and all of its claims are stored, or
//! nothing is and the caller learns which run holds the address. Because the database enforces
//! the key, the rule holds across every service instance that shares the database (PostgreSQL).
//! Claims are released in the transaction that writes a run's terminal state
//! ([`Store::update_run`]) and, for runs ended by a crash, at startup
//! ([`Store::release_stale_claims`]).

use chrono::Utc;

use super::{Db, RunRow, Store, StoreResult};

/// One address a run claims for one of its carriers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CarrierClaim {
    /// Normalised address (`ip:port` or `host:port`, lower case).
    pub address: String,
    /// The run's name for the carrier.
    pub carrier: String,
}

/// Why a run could not be created or armed with its carriers.
#[derive(Debug)]
pub enum ClaimError {
    /// `address` is claimed by `run_id` (its carrier `carrier`).
    Taken {
        address: String,
        run_id: String,
        carrier: String,
    },
    Db(sqlx::Error),
}

impl From<sqlx::Error> for ClaimError {
    fn from(e: sqlx::Error) -> Self {
        ClaimError::Db(e)
    }
}

/// True when `e` is a unique-constraint (or primary-key) violation, on either backend.
pub fn is_unique_violation(e: &sqlx::Error) -> bool {
    e.as_database_error()
        .is_some_and(|d| d.is_unique_violation())
}

impl Store {
    /// Inserts the run and claims every address for it, in one transaction. When an address is
    /// held by another run, nothing is stored and [`ClaimError::Taken`] names that run.
    pub async fn insert_run_claiming(
        &self,
        run: &RunRow,
        claims: &[CarrierClaim],
    ) -> Result<(), ClaimError> {
        let res: StoreResult<()> = on_db!(&self.db, |p, DB| async {
            let mut tx = p.begin().await?;
            run_insert_query!(DB, run).execute(&mut *tx).await?;
            for c in claims {
                sqlx::query(
                    "INSERT INTO carrier_claims (address, run_id, carrier, claimed_at) \
                     VALUES ($1, $2, $3, $4)",
                )
                .bind(&c.address)
                .bind(&run.id)
                .bind(&c.carrier)
                .bind(Utc::now())
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await
        }
        .await);
        match res {
            Ok(()) => Ok(()),
            Err(e) if is_unique_violation(&e) => Err(self.taken(claims, &run.id, e).await),
            Err(e) => Err(ClaimError::Db(e)),
        }
    }

    /// Makes sure `run_id` holds every address (claims the ones nobody holds, e.g. after a
    /// restart released them); [`ClaimError::Taken`] when another run holds one. Arm and start
    /// call it, so a run never drives a carrier it does not hold.
    pub async fn ensure_claims(
        &self,
        run_id: &str,
        claims: &[CarrierClaim],
    ) -> Result<(), ClaimError> {
        'claim: for c in claims {
            // A holder that ends between the two statements is retried (a few times at most).
            for _ in 0..3 {
                let holder: Option<(String, String)> = on_db!(&self.db, |p, DB| {
                    sqlx::query(
                        "INSERT INTO carrier_claims (address, run_id, carrier, claimed_at) \
                         VALUES ($1, $2, $3, $4) ON CONFLICT (address) DO NOTHING",
                    )
                    .bind(&c.address)
                    .bind(run_id)
                    .bind(&c.carrier)
                    .bind(Utc::now())
                    .execute(p)
                    .await?;
                    sqlx::query_as::<DB, (String, String)>(
                        "SELECT run_id, carrier FROM carrier_claims WHERE address = $1",
                    )
                    .bind(&c.address)
                    .fetch_optional(p)
                    .await?
                });
                match holder {
                    Some((holder, _)) if holder == run_id => continue 'claim,
                    Some((holder, carrier)) => {
                        return Err(ClaimError::Taken {
                            address: c.address.clone(),
                            run_id: holder,
                            carrier,
                        })
                    }
                    None => {}
                }
            }
            return Err(ClaimError::Db(sqlx::Error::Protocol(format!(
                "carrier address {} could not be claimed",
                c.address
            ))));
        }
        Ok(())
    }

    /// Which run holds one of `claims` (after a failed insert).
    async fn taken(&self, claims: &[CarrierClaim], own: &str, cause: sqlx::Error) -> ClaimError {
        for c in claims {
            if let Ok(Some((run_id, carrier))) = self.claim_holder(&c.address).await {
                if run_id != own {
                    return ClaimError::Taken {
                        address: c.address.clone(),
                        run_id,
                        carrier,
                    };
                }
            }
        }
        // The holder ended in the meantime (or the run id itself collided).
        ClaimError::Db(cause)
    }

    /// The run and carrier holding `address`, if any.
    pub async fn claim_holder(&self, address: &str) -> StoreResult<Option<(String, String)>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, (String, String)>(
                "SELECT run_id, carrier FROM carrier_claims WHERE address = $1",
            )
            .bind(address)
            .fetch_optional(p)
            .await
        })
    }

    /// The addresses a run holds.
    pub async fn claims_of(&self, run_id: &str) -> StoreResult<Vec<String>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_scalar::<DB, String>(
                "SELECT address FROM carrier_claims WHERE run_id = $1 ORDER BY address",
            )
            .bind(run_id)
            .fetch_all(p)
            .await
        })
    }

    /// Releases every claim of `run_id`.
    pub async fn release_claims(&self, run_id: &str) -> StoreResult<u64> {
        on_db!(&self.db, |p, DB| {
            sqlx::query("DELETE FROM carrier_claims WHERE run_id = $1")
                .bind(run_id)
                .execute(p)
                .await
                .map(|r| r.rows_affected())
        })
    }

    /// Releases claims whose run has ended or no longer exists (a process that crashed).
    pub async fn release_stale_claims(&self) -> StoreResult<u64> {
        on_db!(&self.db, |p, DB| {
            sqlx::query(
                "DELETE FROM carrier_claims WHERE run_id NOT IN \
                 (SELECT id FROM runs WHERE state IN ('created', 'armed', 'running'))",
            )
            .execute(p)
            .await
            .map(|r| r.rows_affected())
        })
    }
}
