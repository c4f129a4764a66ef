//! The Euro NCAP rating-tool workbook (.xlsx): opening the package and reading its
//! verification sheets.
#![no_main]
use libfuzzer_sys::fuzz_target;
use scil::ncap::{sheet, xlsx::Workbook};

fuzz_target!(|data: &[u8]| {
    let Ok(wb) = Workbook::from_bytes(data.to_vec()) else {
        return;
    };
    let _ = sheet::read(&wb);
    for name in wb.sheet_names.iter().take(4) {
        let _ = wb.grid(name);
    }
});
