/// The most memory the parser's wasm module may grow to: 512 MiB. The heaviest header measured,
/// a 262,144-token vocabulary (24 MB of header), takes 51 MiB, so real models fit ten times over;
/// a hostile header that makes the decoder hold more (hundreds of millions of empty arrays, say)
/// traps at the cap, which the page reports before the tab itself runs short (a wasm32 memory may
/// grow to 4 GiB, and Chromium ends a tab at a few). Shared by the build script, which sets it as
/// the module's memory maximum, and the crate, which tells the page (`maxMemory`).
pub const MAX_MEMORY: u32 = 512 << 20;
