//! GeneSys ADMAnet: single datagrams (the UDP listener's path) and a recording (packets one
//! after another, resynchronised on the `GBIN` id).
#![no_main]
use libfuzzer_sys::fuzz_target;
use scil::ingest::adma::{self, file::AdmaFile, AdmaDecoder};
use scil::ingest::csv::BadRowPolicy;
use scil::ingest::health::SourceHealth;

fuzz_target!(|data: &[u8]| {
    let health = SourceHealth::new("fuzz");
    let mut dec = AdmaDecoder::new("vut");
    let _ = adma::handle_datagram(&mut dec, &health, data);
    for chunk in data.chunks(adma::PACKET_LEN) {
        let _ = adma::handle_datagram(&mut dec, &health, chunk);
    }
    let reader = std::io::Cursor::new(data.to_vec());
    let mut f = AdmaFile::from_reader(
        Box::new(reader),
        std::path::Path::new("fuzz.adma"),
        BadRowPolicy::Skip,
    );
    while f.next_sample().is_some() {}
});
