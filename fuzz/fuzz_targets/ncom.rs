//! OxTS NCOM: single datagrams (the UDP listener's path) and a byte stream cut into packets.
#![no_main]
use libfuzzer_sys::fuzz_target;
use scil::ingest::health::SourceHealth;
use scil::ingest::ncom::{NcomDecoder, NcomStreamDecoder};
use scil::ingest::udp::handle_datagram;

fuzz_target!(|data: &[u8]| {
    let health = SourceHealth::new("fuzz");
    let mut dec = NcomDecoder::new("vut");
    // The whole input as one datagram, then as 72-byte datagrams (one decoder: the status
    // channels and the GPS-minutes state carry over between packets, as on the wire).
    let _ = handle_datagram(&mut dec, &health, data);
    for chunk in data.chunks(72) {
        let _ = handle_datagram(&mut dec, &health, chunk);
    }
    let mut stream = NcomStreamDecoder::new();
    let mut dec = NcomDecoder::new("vut");
    for chunk in data.chunks(97) {
        stream.push(chunk);
        while let Some(p) = stream.next_packet() {
            let _ = dec.handle_packet(&p);
        }
    }
});
