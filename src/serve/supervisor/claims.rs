//! Which carrier addresses a run claims, and the API's answer when one is taken (409 naming
//! the run that holds it). The rule itself is the database's (`store::claims`).

use super::run::CarrierSpec;
use crate::dispatch::control_centre::CarrierConfig;
use crate::serve::error::{ApiError, ApiResult};
use crate::store::{CarrierClaim, ClaimError};

/// The addresses of a run's carriers: each carrier's TCP endpoint, the host resolved to every
/// IP address it names (so `localhost:6000` and `127.0.0.1:6000` are one carrier), or the
/// lower-cased host name when it does not resolve. 422 when two carriers of the run share one.
pub async fn claims_for(carriers: &[CarrierSpec]) -> ApiResult<Vec<CarrierClaim>> {
    let mut out: Vec<CarrierClaim> = Vec::new();
    for c in carriers {
        let cfg = CarrierConfig::parse_spec(&format!("{}={}", c.name, c.address), 0)
            .map_err(|e| ApiError::Unprocessable(format!("carrier '{}': {e}", c.name)))?;
        let host = cfg
            .host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        let mut addrs: Vec<String> = match host.parse::<std::net::IpAddr>() {
            Ok(ip) => vec![std::net::SocketAddr::new(ip, cfg.tcp_port).to_string()],
            Err(_) => {
                let lookup = tokio::net::lookup_host((host.as_str(), cfg.tcp_port));
                match tokio::time::timeout(std::time::Duration::from_secs(2), lookup).await {
                    Ok(Ok(it)) => it.map(|a| a.to_string()).collect(),
                    _ => Vec::new(),
                }
            }
        };
        if addrs.is_empty() {
            addrs.push(format!("{host}:{}", cfg.tcp_port));
        }
        addrs.sort();
        addrs.dedup();
        for a in addrs {
            if let Some(other) = out.iter().find(|o| o.address == a) {
                return Err(ApiError::Unprocessable(format!(
                    "carriers '{}' and '{}' name the same address {a}",
                    other.carrier, c.name
                )));
            }
            out.push(CarrierClaim {
                address: a,
                carrier: c.name.clone(),
            });
        }
    }
    Ok(out)
}

/// The API error of a failed claim.
pub fn claim_error(e: ClaimError) -> ApiError {
    match e {
        ClaimError::Taken {
            address,
            run_id,
            carrier,
        } => ApiError::Conflict(format!(
            "carrier address {address} belongs to active run '{run_id}' (its carrier \
             '{carrier}'); a carrier serves one run at a time: end that run first"
        )),
        ClaimError::Db(e) => crate::serve::error::conflict_on_duplicate(e, "run", "(generated id)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, address: &str) -> CarrierSpec {
        CarrierSpec {
            name: name.into(),
            address: address.into(),
            drives: None,
            mobility: None,
            max_lateral_m: None,
            capabilities: None,
        }
    }

    #[tokio::test]
    async fn one_carrier_one_address() {
        let c = claims_for(&[spec("a", "127.0.0.1:6000")])
            .await
            .expect("ok");
        assert_eq!(c[0].address, "127.0.0.1:6000");
        // The UDP port does not make another carrier.
        let e = claims_for(&[
            spec("a", "127.0.0.1:6000"),
            spec("b", "127.0.0.1:6000:7000"),
        ])
        .await
        .expect_err("same address twice");
        assert!(e.to_string().contains("same address"), "{e}");
        let c = claims_for(&[spec("a", "No-Such-Host.invalid:6000")])
            .await
            .expect("ok");
        assert_eq!(c[0].address, "no-such-host.invalid:6000");
    }
}
