//! Prints the summary of an OpenDRIVE file and its load time: `cargo run --example info -- map.xodr`.
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: info <map.xodr>");
        std::process::exit(2);
    };
    let t = std::time::Instant::now();
    match opendrive::OpenDrive::from_path(&path) {
        Ok(m) => println!("loaded in {:?}\n{:#?}", t.elapsed(), m.info()),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
